"""What each kind of production request produces with a model that does not follow instructions:
a report in sections with the facts found in memory and documents, a story in chapters, a list, a
picture book with a picture per scene (sea/production/drafts.py), for several topics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from sea.production.drafts import hero_of
from sea.production.planner import read_request, template_plan
from sea.production.state import TargetScope


@pytest.fixture(autouse=True)
def _in_the_atelier(request: pytest.FixtureRequest) -> None:
    """A test that opens the conftest world has ソラ in the atelier."""
    if "manager" in request.fixturenames:
        request.getfixturevalue("manager").world.move_persona("sora", "atelier")


def production_items(m: SAIVerseManager, building: str = "atelier") -> list[Any]:
    return [i for i in m.items.list_owned("building", building) if "production_run" in i.state]


def _run(manager: SAIVerseManager, request: str) -> dict[str, str]:
    summary = manager.production.start("sora", "atelier", request, lambda ev: None)
    assert summary.finished and all(s["status"] == "completed" for s in summary.plan), summary.plan
    return {a["name"].split(" — ")[-1]: a.get("text", "") for a in summary.artifacts.values()}


def test_a_report_has_sections_with_facts_from_memory_and_documents(manager: SAIVerseManager) -> None:
    manager.memory.add("sora", "user", "港の灯台は明治時代に建てられた白い塔です。", tags=["conversation"])
    manager.memory.add("sora", "assistant", "灯台の光は二十キロ先の船まで届くそうですね。", tags=["conversation"])
    manager.items.create_document("港の案内", "港の北の端には古い灯台があり、今も毎晩光っている。",
                                  owner_kind="building", owner_id="library")
    texts = _run(manager, "港の灯台のレポートを書いて")
    outline, body = texts["構成"], texts["本文"]
    assert "1. はじめに" in outline and "記憶から" in outline and "資料「港の案内」から" in outline
    assert "## 1. はじめに" in body and "## 2. 記憶から" in body and body.count("## ") == 4
    for fact in ("明治時代に建てられた白い塔", "二十キロ先の船", "港の北の端には古い灯台"):
        assert fact in body, fact
    for story_word in ("登場人物", "主人公", "旅に出る", "ページ1"):
        assert story_word not in outline + body


def test_a_report_on_an_unknown_topic_says_what_is_missing(manager: SAIVerseManager) -> None:
    body = _run(manager, "資料を作って: 火星の天気")["本文"]
    assert "「火星の天気」の記録はまだありません" in body and "## 3. これから調べること" in body
    assert "主人公" not in body


def test_a_story_is_a_story_in_chapters_without_pictures(manager: SAIVerseManager) -> None:
    texts = _run(manager, "物語を書いて: 森の小さな郵便屋")
    assert hero_of("森の小さな郵便屋") == "小さな郵便屋" and hero_of("猫の冒険") == "猫"
    assert "- 小さな郵便屋: この物語の主人公" in texts["あらすじと登場人物"]
    assert [line for line in texts["本文"].splitlines() if line.startswith("第")][:2] == ["第1章 はじまり", "第2章 出会い"]
    assert not [i for i in production_items(manager) if i.type == "picture"]


def test_a_list_lists_what_the_city_holds(manager: SAIVerseManager) -> None:
    for name, text in (("星の図鑑", "夜空の星座を写真で紹介する本。"), ("星の王子さま", "小さな星から来た王子の物語。")):
        manager.items.create_document(name, text, owner_kind="building", owner_id="library")
    listed = _run(manager, "星の本の一覧を作って")["リスト"]
    entries = [line for line in listed.splitlines() if line[:1].isdigit()]
    assert len(entries) >= 2 and all(e.split(". ", 1)[0].isdigit() for e in entries)
    assert any(e.startswith(tuple(f"{n}. 星の図鑑" for n in range(1, 9))) for e in entries)
    assert any("星の王子さま" in e and "小さな星から来た王子" in e for e in entries)
    assert "登場人物" not in listed and "## " not in listed


def test_a_picture_book_gets_a_picture_for_each_scene(manager: SAIVerseManager, saiverse_home: Path) -> None:
    texts = _run(manager, "絵本を作って: 月のうさぎ")
    assert "- うさぎ: この物語の主人公" in texts["あらすじと登場人物"] and "ページ4 おわり" in texts["本文"]
    pictures = [i for i in production_items(manager) if i.type == "picture"]
    assert len(pictures) == 4 and len({i.state["prompt"] for i in pictures}) == 4
    assert all("月のうさぎ" in i.state["prompt"] for i in pictures)
    assert len({(saiverse_home / i.file_path).read_bytes() for i in pictures}) == 4  # four different drawings


@pytest.mark.parametrize(("request_text", "kind", "topic"), [
    ("絵本を作って: 猫の冒険", "絵本", "猫の冒険"),
    ("港の灯台のレポートを書いて", "資料", "港の灯台"),
    ("まとめて: 今週の出来事", "資料", "今週の出来事"),
    ("リストを作って：夏に読みたい本", "リスト", "夏に読みたい本"),
    ("物語を書いて: 星を探す少年", "物語", "星を探す少年"),
    ("絵本「月のうさぎ」を作って", "絵本", "月のうさぎ"),
    ("春の歌を作って", "作品", "春の歌"),
])
def test_requests_are_read_as_kind_and_topic(request_text: str, kind: str, topic: str) -> None:
    assert read_request(request_text) == (kind, topic)
    plan = template_plan(request_text, TargetScope(building_id="atelier"))
    assert plan[-1]["capability"] == "data_analyst" and plan[0]["target_scope"]["kind"] == kind
    assert ("visualizer" in {s["capability"] for s in plan}) == (kind in ("絵本", "作品"))
