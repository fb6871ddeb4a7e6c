"""SAIMemory on both stores — real SQLite files and a real PostgreSQL database (tests/support/pg.py): writing
and tags, pulse-scoped context, recall (the same results on both), export."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from database.engine import Database
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from saiverse.memory._store import SAIMemory, match_expression, query_terms


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, saiverse_home: Path) -> Iterator[Database]:
    if request.param == "postgresql":
        database = Database(request.getfixturevalue("pg_url"), workers=1)
        migrate_pg(database.engine)
    else:
        path = saiverse_home / "saiverse.db"
        migrate(path)
        database = Database(f"sqlite:///{path}")
    yield database
    database.dispose()


@pytest.fixture
def memory(db: Database) -> SAIMemory:
    return SAIMemory(db)


def _contents(records: list) -> list[str]:
    return [r["content"] for r in records]


# ---- add / tags -----------------------------------------------------------------------------------
def test_add_stores_tags_and_the_automatic_pulse_tag(memory: SAIMemory, db: Database) -> None:
    rec = memory.add("mina", "assistant", "こんにちは", tags=["conversation", "conversation"], pulse_id="p1")
    assert rec["tags"] == ["conversation", "pulse:p1"]
    assert rec["pulse_id"] == "p1" and rec["id"] > 0
    assert datetime.fromisoformat(rec["created_at"]).tzinfo is not None
    stored = memory.list_messages("mina")
    assert stored[0]["tags"] == ["conversation", "pulse:p1"] and stored[0]["content"] == "こんにちは"
    assert _contents(memory.list_messages("mina", tag="pulse:p1")) == ["こんにちは"]
    assert _contents(memory.list_messages("mina", tag="conversation")) == ["こんにちは"]
    assert memory.list_messages("mina", tag="internal") == []
    assert memory.count("mina") == 1 and memory.count("sora") == 0
    no_pulse = memory.add("mina", "user", "やあ")
    assert no_pulse["tags"] == [] and no_pulse["pulse_id"] is None


@pytest.mark.parametrize(
    ("persona", "role", "message"),
    [("", "user", "persona_id"), ("  ", "user", "persona_id"), ("mina", "robot", "role must be one of")],
)
def test_add_rejects_bad_input(memory: SAIMemory, persona: str, role: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        memory.add(persona, role, "x")
    with pytest.raises(ValueError, match="tags"):
        memory.add("mina", "user", "x", tags=["ok", ""])
    assert memory.count("mina") == 0


def test_add_in_a_session_commits_with_it_or_not_at_all(memory: SAIMemory, db: Database) -> None:
    with pytest.raises(RuntimeError):
        with db.session() as s:
            memory.add("mina", "user", "途中で失敗", session=s, pulse_id="p")
            raise RuntimeError("pulse failed")
    assert memory.count("mina") == 0 and memory.search("mina", "失敗") == []
    with db.session() as s:
        memory.add("mina", "user", "一緒に保存", session=s, pulse_id="p")
        memory.add("mina", "assistant", "二つ目", session=s, pulse_id="p")
    assert memory.count("mina") == 2 and _contents(memory.search("mina", "保存")) == ["一緒に保存"]


def test_list_messages_pages_newest_first(memory: SAIMemory) -> None:
    ids = [memory.add("mina", "user", f"m{i}")["id"] for i in range(5)]
    page = memory.list_messages("mina", limit=2)
    assert [r["id"] for r in page] == [ids[4], ids[3]]
    assert [r["id"] for r in memory.list_messages("mina", limit=10, before_id=ids[3])] == ids[2::-1]


# ---- recent_persona_messages ----------------------------------------------------------------------
def test_recent_includes_current_pulse_whatever_its_tags(memory: SAIMemory) -> None:
    memory.add("mina", "user", "前の会話", tags=["conversation"], pulse_id="old")
    memory.add("mina", "assistant", "前のメモ", tags=["internal"], pulse_id="old")
    memory.add("mina", "user", "<system>前の結果</system>", tags=["memory_research"], pulse_id="old")
    memory.add("sora", "user", "他人の会話", tags=["conversation"], pulse_id="now")
    memory.add("mina", "user", "今の質問", tags=["conversation"], pulse_id="now")
    memory.add("mina", "user", "<system>\n結果\n</system>", tags=["memory_research", "sub_save_results"],
               pulse_id="now")
    memory.add("mina", "assistant", "考え中", tags=["internal"], pulse_id="now")

    got = memory.recent_persona_messages("mina", ("conversation",), pulse_id="now")
    assert _contents(got) == ["前の会話", "今の質問", "<system>\n結果\n</system>", "考え中"]
    assert [r["id"] for r in got] == sorted(r["id"] for r in got)
    # Without a pulse only the required tags count; other pulses' results never leak in.
    assert _contents(memory.recent_persona_messages("mina")) == ["前の会話", "今の質問"]
    assert len(memory.recent_persona_messages("mina", None)) == 6
    assert _contents(memory.recent_persona_messages("mina", (), pulse_id="old")) == [
        "前の会話", "前のメモ", "<system>前の結果</system>"]


def test_recent_limit_cuts_tagged_history_but_never_the_pulse(memory: SAIMemory) -> None:
    for i in range(10):
        memory.add("mina", "user", f"会話{i}", tags=["conversation"], pulse_id=f"p{i}")
    for i in range(3):
        memory.add("mina", "user", f"結果{i}", tags=["memory_research"], pulse_id="cur")
    memory.add("mina", "assistant", "現在の返答", tags=["conversation"], pulse_id="cur")
    got = memory.recent_persona_messages("mina", ["conversation", "internal"], pulse_id="cur", limit=3)
    assert _contents(got) == ["会話8", "会話9", "結果0", "結果1", "結果2", "現在の返答"]
    assert _contents(memory.recent_persona_messages("mina", limit=2)) == ["会話9", "現在の返答"]


# ---- search ---------------------------------------------------------------------------------------
@pytest.fixture
def library(memory: SAIMemory) -> SAIMemory:
    for text in ["図書館で猫の本を探した", "猫が窓辺で眠っている", "図書の整理をした", "美術館で絵を見た",
                 "Hello World, a story about cats", "犬と散歩した"]:
        memory.add("mina", "user", text, tags=["conversation"])
    memory.add("sora", "user", "ソラも猫が好き", tags=["conversation"])
    return memory


def test_search_three_plus_character_japanese(library: SAIMemory) -> None:
    assert _contents(library.search("mina", "図書館")) == ["図書館で猫の本を探した"]
    assert _contents(library.search("mina", "窓辺で眠")) == ["猫が窓辺で眠っている"]
    assert library.search("mina", "図書館の猫") == []  # grams present, not adjacent: re-check drops it


def test_search_one_and_two_character_terms(library: SAIMemory) -> None:
    assert set(_contents(library.search("mina", "猫"))) == {"図書館で猫の本を探した", "猫が窓辺で眠っている"}
    assert set(_contents(library.search("mina", "図書"))) == {"図書館で猫の本を探した", "図書の整理をした"}
    assert _contents(library.search("mina", "犬")) == ["犬と散歩した"]
    assert all("score" in r for r in library.search("mina", "猫"))


def test_search_is_per_persona(library: SAIMemory) -> None:
    assert _contents(library.search("sora", "猫")) == ["ソラも猫が好き"]
    assert library.search("nobody", "猫") == []


def test_search_mixed_terms_are_anded(library: SAIMemory) -> None:
    assert _contents(library.search("mina", "猫 図書館")) == ["図書館で猫の本を探した"]
    assert _contents(library.search("mina", "図書　猫")) == ["図書館で猫の本を探した"]  # full-width space
    assert library.search("mina", "猫 美術館") == []


def test_search_english_is_case_insensitive(library: SAIMemory) -> None:
    assert _contents(library.search("mina", "CATS")) == ["Hello World, a story about cats"]
    assert _contents(library.search("mina", "hello world")) == ["Hello World, a story about cats"]
    assert _contents(library.search("mina", "a")) == ["Hello World, a story about cats"]


def test_search_ranks_by_relevance_then_recency(memory: SAIMemory) -> None:
    now = datetime.now(UTC)
    old = memory.add("mina", "user", "猫の話", created_at=now - timedelta(days=90))
    new = memory.add("mina", "user", "猫の話", created_at=now - timedelta(hours=1))
    rich = memory.add("mina", "user", "猫と猫と猫の話", created_at=now - timedelta(days=2))
    got = memory.search("mina", "猫")
    assert [r["id"] for r in got] == [rich["id"], new["id"], old["id"]]
    assert got[0]["score"] > got[1]["score"] > got[2]["score"]
    assert [r["id"] for r in memory.search("mina", "猫", limit=1)] == [rich["id"]]


@pytest.mark.parametrize(
    "query",
    ['"', '""', "AND", "OR", "NOT", "*", "(", ")", "NEAR(", 'NEAR("a" "b", 2)', "猫 AND", "^猫", "猫*",
     "col:猫", "-猫", "+", "'", "\\", "\x00", "\u180e", "🐱", "  \t\n "],
)
def test_search_fts_hostile_input_never_raises(library: SAIMemory, memory: SAIMemory, query: str) -> None:
    library.search("mina", query)  # must not raise
    memory.add("mina", "user", f"記号 {query} 入り")
    if query_terms(query):  # control and separator characters are not searchable text
        found = _contents(memory.search("mina", query))
        assert f"記号 {query} 入り" in found


def test_search_empty_query_and_terms(library: SAIMemory) -> None:
    assert library.search("mina", "") == [] and library.search("mina", "   ") == []
    assert query_terms("  猫 　図書 猫 CATS ") == ["猫", "図書", "cats"]
    assert match_expression("mina", ['a"b']) == '"p:6d696e61" AND "a""b"'


def test_index_follows_deletes_and_updates_made_outside_saimemory(library: SAIMemory, db: Database) -> None:
    if db.engine.dialect.name == "postgresql":  # no index of its own to drift: pg_trgm and the gram index follow the table
        with db.engine.begin() as pg:
            pg.exec_driver_sql("UPDATE saimemory SET CONTENT = '鳥が鳴いた' WHERE CONTENT = '犬と散歩した'")
            pg.exec_driver_sql("DELETE FROM saimemory WHERE CONTENT = '美術館で絵を見た'")
    else:
        with sqlite3.connect(db.url.removeprefix("sqlite:///")) as conn:
            conn.execute("UPDATE saimemory SET CONTENT = '鳥が鳴いた' WHERE CONTENT = '犬と散歩した'")
            conn.execute("DELETE FROM saimemory WHERE CONTENT = '美術館で絵を見た'")
            conn.execute("INSERT INTO saimemory_fts (saimemory_fts) VALUES ('integrity-check')")
    assert library.search("mina", "犬") == [] and library.search("mina", "美術館") == []
    assert _contents(library.search("mina", "鳥")) == ["鳥が鳴いた"]


# ---- export ---------------------------------------------------------------------------------------
def test_export_jsonl_round_trip(memory: SAIMemory) -> None:
    written = [
        memory.add("mina", "user", "一行目\n改行あり \"引用\"", tags=["conversation"], pulse_id="p"),
        memory.add("mina", "assistant", "二行目", tags=["internal"]),
    ]
    memory.add("sora", "user", "他人")
    buf = io.StringIO()
    assert memory.export_jsonl("mina", buf) == 2
    lines = buf.getvalue().splitlines()
    assert [json.loads(line) for line in lines] == written
    assert memory.export_jsonl("nobody", io.StringIO()) == 0
