"""Memopedia on real SQLite: pages under three roots, parents, history, search, open pages, bad input."""

from __future__ import annotations

import json
import sqlite3

import pytest
from sqlalchemy import text

from saiverse.manager import SAIVerseManager
from saiverse.memory import LongTermMemoryError, MemopediaStore
from saiverse.memory._memopedia_page import MAX_CONTENT
from tests.support.compat import compat_path

pytestmark = pytest.mark.chronicle_by_hand

P = "mina"


def _counts(m: SAIVerseManager) -> tuple[int, int]:
    with m.db.engine.connect() as c:
        return (c.execute(text("SELECT count(*) FROM memopedia_page")).scalar_one(),
                c.execute(text("SELECT count(*) FROM memopedia_edit")).scalar_one())


def test_pages_live_under_three_roots_with_history(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    page = store.create(P, "ソラ", summary="アトリエの画家。", content="星の絵をよく描く。", category="people",
                        keywords=["画家", "星"])
    assert page.parent_id == "root_people" and page.category == "people"
    roots = [n["page"].title for n in store.tree(P)]
    assert roots == ["人物", "用語", "予定"]
    assert [c["page"].title for c in store.tree(P)[0]["children"]] == ["ソラ"]
    child = store.create(P, "ソラの好きな色", content="群青。", parent_id=page.page_id)
    assert child.category == "people"
    store.update(P, page.page_id, content="星の絵をよく描く。最近は流星群の絵。", source="user")
    history = store.history(P, page.page_id)
    assert [h["edit_type"] for h in history] == ["update", "create"]
    assert "+content:" in history[1]["diff"] or "+星の絵" in history[1]["diff"]
    assert "-星の絵をよく描く。" in history[0]["diff"] and "+星の絵をよく描く。最近は流星群の絵。" in history[0]["diff"]
    assert history[0]["edit_source"] == "user"
    assert store.get(P, page.page_id).content.endswith("流星群の絵。")
    assert store.pages("sora") == []  # per persona


def test_save_page_finds_by_title_and_note_appends(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    page, created = store.save_page(P, "流星群の観測", summary="八月の計画。", content="屋上で見る。", category="plans",
                                    keywords=["流星群"])
    assert created and page.vividness == "vivid"
    again, created = store.save_page(P, "流星群の観測", summary="八月十二日の計画。", content="屋上で見る。ソラも誘う。",
                                     category="plans")
    assert not created and again.page_id == page.page_id and again.keywords == ["流星群"]
    noted = store.note(P, "双眼鏡を忘れない", page_id=page.page_id, day="2026-08-01")
    assert noted.content.endswith("\n- 2026-08-01: 双眼鏡を忘れない")
    fresh = store.note(P, "ユーザーは紅茶が好き", title="ユーザー", category="people")
    assert fresh.parent_id == "root_people" and fresh.content == "- ユーザーは紅茶が好き"
    assert [h["edit_type"] for h in store.history(P, fresh.page_id)] == ["note", "create"]


def test_search_matches_title_keywords_and_body_in_japanese(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    store.create(P, "図書館", summary="ミナの職場。", content="古い星図がある。", keywords=["本"])
    store.create(P, "星図", summary="星の地図。", content="図書館で見つけた。", keywords=["天文"])
    store.create(P, "紅茶", summary="好きな飲み物。", category="terms")
    assert [p.title for p in store.search(P, "図書館")] == ["図書館", "星図"]  # a title hit ranks first
    assert [p.title for p in store.search(P, "天文")] == ["星図"]
    assert {p.title for p in store.search(P, "星 図書館")} == {"図書館", "星図"}  # every term, anywhere
    assert store.search(P, "図書館", category="plans") == []
    assert store.search(P, "  ") == []


def test_bad_input_is_refused_and_changes_nothing(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    a = store.create(P, "親", content="a")
    b = store.create(P, "子", parent_id=a.page_id)
    c = store.create(P, "孫", parent_id=b.page_id)
    before = _counts(manager)
    with pytest.raises(LongTermMemoryError, match="循環"):
        store.update(P, a.page_id, parent_id=c.page_id)
    with pytest.raises(LongTermMemoryError, match="循環"):
        store.update(P, a.page_id, parent_id=a.page_id)
    with pytest.raises(LongTermMemoryError, match=f"上限 {MAX_CONTENT} 字"):
        store.update(P, a.page_id, content="長" * (MAX_CONTENT + 1))
    with pytest.raises(LongTermMemoryError, match="本文が長すぎます"):
        store.create(P, "巨大なページ", content="x" * (MAX_CONTENT + 1))
    with pytest.raises(LongTermMemoryError, match="'no-such-page'"):
        store.get(P, "no-such-page")
    with pytest.raises(LongTermMemoryError, match="「存在しない」"):
        store.find(P, title="存在しない")
    with pytest.raises(LongTermMemoryError, match="'diary'"):
        store.create(P, "日記", category="diary")
    with pytest.raises(LongTermMemoryError, match="もうあります"):
        store.create(P, "親")
    with pytest.raises(LongTermMemoryError, match="ルートページ"):
        store.update(P, "root_people", title="ひと")
    with pytest.raises(LongTermMemoryError, match="題名が空"):
        store.save_page(P, "  ")
    assert _counts(manager) == before
    assert store.get(P, a.page_id).parent_id == "root_terms" and store.get(P, a.page_id).content == "a"


def test_moving_a_page_moves_its_subtree_to_the_new_category(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    a = store.create(P, "旅行", category="terms")
    b = store.create(P, "旅行の持ち物", parent_id=a.page_id)
    store.update(P, a.page_id, parent_id="root_plans")
    assert store.get(P, a.page_id).category == "plans" and store.get(P, b.page_id).category == "plans"


def test_imported_cycles_and_orphans_are_shown_not_looped(manager: SAIVerseManager) -> None:
    with manager.db.session() as s:
        for pid, parent in (("x", "y"), ("y", "x"), ("z", "gone")):
            s.execute(text("INSERT INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, CATEGORY, KEYWORDS, "
                           "CREATED_AT, UPDATED_AT) VALUES (:p, :id, :parent, :t, 'terms', '[]', 1795439843, "
                           "1795439843)"), {"p": P, "id": pid, "parent": parent, "t": f"頁{pid}"})
    terms = manager.memopedia.tree(P)[1]
    problems = {}

    def walk(node: dict) -> None:
        problems[node["page"].page_id] = node["problem"]
        for child in node["children"]:
            walk(child)

    walk(terms)
    assert problems["z"] == "親ページが見つかりません"
    assert "循環" in (problems["x"] or problems["y"] or "") and {"x", "y"} <= set(problems)
    assert manager.memopedia.get(P, "x").created_at.startswith("2026-11-23")  # epoch seconds read as UTC


def test_open_pages_belong_to_the_thread_and_the_core(manager: SAIVerseManager) -> None:
    store = manager.memopedia
    page = store.create(P, "合言葉", summary="図書館の合言葉。", content="フクロウ")
    store.create(P, "大事な人", summary="ユーザー。", category="people")
    listed, opened = store.core(P)
    assert {p.title for p in listed} == {"合言葉", "大事な人"} and opened == []
    store.set_open(P, page.page_id, True)
    assert [p.title for p in store.core(P)[1]] == ["合言葉"]
    assert store.core(P, thread_id="mina:library")[1] == []
    store.set_open(P, page.page_id, False)
    assert store.core(P)[1] == []
    with pytest.raises(LongTermMemoryError):
        store.set_open(P, "nope", True)


def test_upstream_pages_are_used_as_they_are(manager: SAIVerseManager) -> None:
    """Rows copied from the shared upstream home as they are stored upstream (epoch times, escaped keywords)."""
    db = compat_path("saiverse-home", "personas", "nova_city_a", "memory.db")
    src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = src.execute("SELECT id, parent_id, title, summary, content, category, keywords, vividness, is_trunk, "
                       "is_important, is_deleted, last_referenced_at, created_at, updated_at FROM memopedia_pages")
    with manager.db.session() as s:
        for r in rows:
            s.execute(text(
                "INSERT INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, KEYWORDS, "
                "VIVIDNESS, IS_TRUNK, IS_IMPORTANT, IS_DELETED, LAST_REFERENCED_AT, CREATED_AT, UPDATED_AT) VALUES "
                "('nova', :0, :1, :2, :3, :4, :5, :6, :7, :8, :9, :10, :11, :12, :13)"),
                {str(i): v for i, v in enumerate(r)})
    src.close()
    store = MemopediaStore(manager.db)
    assert [p.title for p in store.search("nova", "流星群")] == ["ペルセウス座流星群の観測"]  # \\u-escaped keyword
    assert [p.title for p in store.search("nova", "挨拶")] == ["ユーザー"]
    plans = store.tree("nova")[2]
    assert plans["page"].title == "予定" and [c["page"].title for c in plans["children"]] == ["ペルセウス座流星群の観測"]
    page = store.find("nova", title="ユーザー")
    assert page.keywords == ["ユーザー", "挨拶"] and page.updated_at.startswith("2026-11-23")
    store.note("nova", "夜更かしは控えめに", page_id=page.page_id)
    assert json.loads(manager.db.engine.connect().execute(text(
        "SELECT KEYWORDS FROM memopedia_page WHERE PERSONA_ID='nova' AND PAGE_ID=:id"), {"id": page.page_id}
    ).scalar_one()) == ["ユーザー", "挨拶"]
