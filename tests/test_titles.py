"""Titles from the request (issue 21): made things get short titles from what is asked, production
plans follow the request's own counts and parts, and a made thing names the model that made it."""

from __future__ import annotations

from typing import Any

import pytest

from chat.titles import TITLE_LIMIT, named_title, request_parts, request_subject, request_title, without_title
from saiverse.llm.names import made_by_note
from saiverse.manager import SAIVerseManager
from sea.production.drafts import DEFAULT_HERO, hero_of
from sea.production.planner import read_request, template_plan
from sea.production.state import TargetScope
from tests.support.models import MakeManager, ScriptedModel

BOOK = "短い絵本を作って。表紙の絵と3ページの文章"
MANUAL_IMAGE = {"selected_playbook": "image_generate_playbook"}


@pytest.mark.parametrize(("request_text", "title"), [
    ("海の絵を描いて、波と灯台のある夕方の景色で", "灯台のある夕方の海"),
    ("ソラ、海の絵を描いて", "海"),
    ("@ソラ 夜の森の絵を描いてください", "夜の森"),
    ("猫の絵を描いてくれる？", "猫"),
    (BOOK, "短い絵本"),
    ("絵本を作って: 猫の冒険", "猫の冒険"),
    ("絵本「月のうさぎ」を作って", "月のうさぎ"),
    ("港の灯台のレポートを書いて", "港の灯台のレポート"),
    ("文章を書いて", ""),  # only a kind of thing: the caller names it from what it knows
])
def test_request_titles_are_short_and_made_of_what_is_asked(request_text: str, title: str) -> None:
    assert request_title(request_text) == title
    assert len(request_title(request_text * 3)) <= TITLE_LIMIT


def test_a_picture_prompt_keeps_every_description_but_not_the_request_words() -> None:
    assert request_subject("海の絵を描いて、波と灯台のある夕方の景色で") == "海、波と灯台のある夕方の景色"


@pytest.mark.parametrize(("request_text", "pages", "cover", "illustrations"), [
    (BOOK, 3, True, False),
    ("五ページの絵本を作って: 猫の冒険", 5, False, False),
    ("表紙と挿絵のある絵本を作って", None, True, True),
    ("絵本を作って: 猫の冒険", None, False, False),
])
def test_request_parts_are_read(request_text: str, pages: int | None, cover: bool, illustrations: bool) -> None:
    parts = request_parts(request_text)
    assert (parts.pages, parts.cover, parts.illustrations) == (pages, cover, illustrations)


def test_a_book_plan_has_a_cover_and_the_pages_asked_for() -> None:
    assert read_request(BOOK) == ("絵本", "短い絵本")
    plan = template_plan(BOOK, TargetScope(building_id="atelier"))
    titles = [s["title"] for s in plan]
    assert "表紙" in titles and "挿絵" not in titles
    assert plan[0]["target_scope"]["pages"] == 3
    assert all(BOOK not in s["instruction"] for s in plan)
    # A request that names no parts keeps the whole picture-book plan: a picture per scene, no cover.
    assert [s["title"] for s in template_plan("絵本を作って: 猫の冒険", TargetScope())] == [
        "題材集め", "あらすじと登場人物", "本文", "挿絵", "製本"]


def test_a_hero_is_never_a_kind_of_thing() -> None:
    assert hero_of("短い絵本") == DEFAULT_HERO and hero_of("文章") == DEFAULT_HERO
    assert hero_of("猫の冒険") == "猫"


def _made(manager: SAIVerseManager, building: str) -> list[Any]:
    return [i for i in manager.items.list_owned("building", building) if "production_run" in i.state]


def test_a_short_picture_book_is_a_cover_and_three_pages(manager: SAIVerseManager) -> None:
    manager.world.move_persona("sora", "atelier")
    summary = manager.production.start("sora", "atelier", BOOK, lambda ev: None)
    assert summary.finished
    items = _made(manager, "atelier")
    pictures = [i for i in items if i.type == "picture"]
    assert [p.name for p in pictures] == ["短い絵本 — 表紙"]
    for item in items:  # no item is named with (or summarised as) the whole request
        assert BOOK not in item.name and BOOK not in (item.description or "")
        assert len(item.name) <= 2 * TITLE_LIMIT
    body = next(a["text"] for a in summary.artifacts.values() if a["name"] == "短い絵本 — 本文")
    pages = [line for line in body.splitlines() if line.startswith("ページ")]
    assert [p.split()[0] for p in pages] == ["ページ1", "ページ2", "ページ3"]
    assert "文章は" not in body and "- 文章:" not in body and DEFAULT_HERO in body
    assert "（オフラインモデルで作成しました）" in body


def test_a_draft_names_the_model_the_run_used() -> None:
    assert made_by_note("offline") == "（オフラインモデルで作成しました）"
    local = made_by_note("local")
    assert "ローカルモデル (llama.cpp)" in local and "オフライン" not in local


def test_a_book_written_under_the_local_model_says_so(make_manager: MakeManager) -> None:
    class LocalLike(ScriptedModel):
        """Reports itself as the embedded local model, which does not follow instructions."""

        name = "local"
        provider = "local"

    manager = make_manager(model=LocalLike(follows_instructions=False))
    manager.world.move_persona("sora", "atelier")
    summary = manager.production.start("sora", "atelier", "絵本を作って: 猫の冒険", lambda ev: None)
    texts = [a["text"] for a in summary.artifacts.values() if a.get("kind") == "document" and a.get("text")]
    written = [t for t in texts if "作成しました" in t]
    assert written and all("組み込みのローカルモデル (llama.cpp)" in t and "オフラインモデル" not in t for t in written)


def test_a_picture_asked_for_in_chat_gets_a_title_from_the_request(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("atelier", "ソラ、海の絵を描いて、波と灯台のある夕方の景色で"))
    (created,) = [e for e in events if e["type"] == "item_created"]
    assert created["item"]["name"] == "灯台のある夕方の海"
    assert "描いて" not in created["item"]["state"]["prompt"]


def test_a_capable_models_title_is_used_and_a_long_one_falls_back_to_the_rule(make_manager: MakeManager) -> None:
    model = ScriptedModel()
    model.enqueue(data={"prompt": "夕方の海と灯台", "title": "夕暮れの灯台"}, when="波と灯台")
    manager = make_manager(model=model)
    manager.world.move_persona("sora", "atelier")
    events = list(manager.handle_user_input("atelier", "海の絵を描いて、波と灯台のある夕方の景色で",
                                            meta_playbook="meta_user_manual", args=MANUAL_IMAGE))
    names = [e["item"]["name"] for e in events if e["type"] == "item_created"]
    assert names == ["夕暮れの灯台"]
    model.enqueue(data={"prompt": "海、波と灯台のある夕方の景色",
                        "title": "波と灯台のある夕方の海の景色を描いた一枚の絵です"}, when="波と灯台")
    events = list(manager.handle_user_input("atelier", "海の絵を描いて、波と灯台のある夕方の景色で",
                                            meta_playbook="meta_user_manual", args=MANUAL_IMAGE))
    assert [e["item"]["name"] for e in events if e["type"] == "item_created"] == ["灯台のある夕方の海"]


def test_a_capable_models_plan_title_names_the_items(make_manager: MakeManager) -> None:
    steps = [{"capability": "writer", "title": "本文", "instruction": "3ページの文章を書く"},
             {"capability": "visualizer", "title": "表紙", "instruction": "表紙を描く", "depends_on": [1]}]
    model = ScriptedModel()
    model.enqueue(when="次の作業者で実行する計画", data={"title": "こぐまの小さな旅", "steps": steps})
    manager = make_manager(model=model)
    manager.world.move_persona("sora", "atelier")
    summary = manager.production.start("sora", "atelier", BOOK, lambda ev: None)
    assert summary.finished
    assert sorted(i.name for i in _made(manager, "atelier")) == ["こぐまの小さな旅 — 本文", "こぐまの小さな旅 — 表紙"]
    # A title longer than 20 characters is not taken: the rule's topic names the items.
    model.enqueue(when="次の作業者で実行する計画", data={"title": "あ" * 21, "steps": steps[:1]})
    manager.production.start("sora", "atelier", BOOK, lambda ev: None)
    assert "短い絵本 — 本文" in {i.name for i in _made(manager, "atelier")}


def test_a_document_asked_for_in_chat_gets_a_short_title(manager: SAIVerseManager) -> None:
    request = "港の灯台についての詩を書いて、夕方の静かな雰囲気で"
    events = list(manager.handle_user_input("library", request, meta_playbook="meta_user_manual",
                                            args={"selected_playbook": "document_create_playbook"}))
    (created,) = [e for e in events if e["type"] == "item_created"]
    name = created["item"]["name"]
    assert name == "夕方の静かな港の灯台についての詩" and len(name) <= TITLE_LIMIT


@pytest.mark.parametrize(("request_text", "title", "rest"), [
    ("今日の日記を「星の夜」というタイトルで文書にまとめて", "星の夜", "今日の日記を文書にまとめて"),
    ("タイトルは星の夜で、今日の日記を書いて", "星の夜", "今日の日記を書いて"),
    ("タイトルは「星の夜」。今日のことを日記にして", "星の夜", "今日のことを日記にして"),
    ("『月』って題で詩を書いて", "月", "詩を書いて"),
    ("名前は「タマ」にして猫の絵を描いて", "タマ", "猫の絵を描いて"),
    ('write a poem titled "Starry Night"', "Starry Night", "write a poem"),
    ("私の名前はタロウです、日記を書いて", "", "私の名前はタロウです、日記を書いて"),  # a name, not a title
    ("日記を書いて: 今日は「星の夜」を読んだ", "", "日記を書いて: 今日は「星の夜」を読んだ"),
])
def test_a_title_comes_from_its_role_in_the_request(request_text: str, title: str, rest: str) -> None:
    assert named_title(request_text) == title
    assert without_title(request_text) == rest
    if title:
        assert request_title(request_text) == title


def test_a_document_titled_in_the_request_has_that_name_and_the_diary_as_body(manager: SAIVerseManager) -> None:
    """Issue 35: 「今日の日記を「星の夜」というタイトルで文書にまとめて」 made 「今日の日記を文書にまとめて」 holding 星の夜."""
    for said in ("今日は図書館で猫と遊んだよ", "夜は星がとてもきれいだった"):
        list(manager.handle_user_input("library", said))
    events = list(manager.handle_user_input("library", "今日の日記を「星の夜」というタイトルで文書にまとめて"))
    (created,) = [e for e in events if e["type"] == "item_created"]
    assert created["item"]["name"] == "星の夜"
    body = manager.items.read_document(created["item"]["item_id"])
    assert "今日は図書館で猫と遊んだよ" in body and "夜は星がとてもきれいだった" in body
    assert "タイトル" not in body and body.strip() != "星の夜" and "オフラインモデル" not in body
    (speak,) = [e for e in events if e["type"] == "speak"]
    assert "「星の夜」" in speak["text"]
