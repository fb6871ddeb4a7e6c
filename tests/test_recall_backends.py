"""Recall agrees on SQLite and PostgreSQL, 1- and 2-character Japanese terms included (issue 24).

SQLite finds candidates through its FTS5 gram index (migration step 3), PostgreSQL through pg_trgm for
terms of three characters or more and, for shorter ones, the GIN index over `saimemory_grams()`
(step 10, database/migrate_pg.py). The same messages, written into a fresh database of each, give
the same results for every query; the PostgreSQL gram index holds exactly the grams SQLite's rules
make, is filled for messages written before step 10 and by `move --to`, and answers the short terms.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from database.engine import Database
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from database.steps import GRAM_CAP
from saiverse.memory import SAIMemory

NOW = datetime.now(UTC)
CORPUS = [
    ("mina", "図書館で猫の本を探した", 40),
    ("mina", "猫が窓辺で眠っている", 30),
    ("mina", "図書の整理をした", 20),
    ("mina", "美術館で絵を見た\n猫はいなかった", 10),
    ("mina", "Hello World, a story about CATS and a Cat", 9),
    ("mina", "犬と散歩した。犬は元気", 8),
    ("mina", "本、本、本！", 7),
    ("mina", "🐱の絵文字と改行\nの後", 6),
    ("mina", "あ" * (GRAM_CAP - 1) + "猫鳥", 5),  # 猫 at the cap is indexed, 鳥 just past it is not (either side)
    ("sora", "ソラも猫が好き。図書館にも行く", 4),
    ("mina", "100% の_確率", 3),
    ("mina", "記号\\1と$&と\\\\と(..)", 2),  # what a regular expression's replacement would read as its own
]
QUERIES = ["猫", "図書", "犬", "の", "本", "絵", "鳥", "猫 図書館", "図書　猫", "猫 美術館", "a", "ab", "CAT", "cats",
           "hello world", "🐱", "%", "_", "100%", "の_", "窓辺で眠", "図書館の猫", "い", "った", "\\1", "$&", "(."]


def _open(kind: str, home: Path, request: pytest.FixtureRequest) -> Database:
    if kind == "postgresql":
        db = Database(request.getfixturevalue("pg_url"), workers=1)
        migrate_pg(db.engine)
        return db
    migrate(home / "recall.db", backup=False)
    return Database(f"sqlite:///{home / 'recall.db'}")


def _fill(memory: SAIMemory) -> None:
    for persona, content, days in CORPUS:
        memory.add(persona, "user", content, tags=["conversation"], created_at=NOW - timedelta(days=days))


@pytest.fixture
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, SAIMemory]]:
    """The corpus written into a fresh SQLite file and a fresh PostgreSQL database."""
    dbs = {kind: _open(kind, tmp_path, request) for kind in ("sqlite", "postgresql")}
    memories = {kind: SAIMemory(db) for kind, db in dbs.items()}
    for memory in memories.values():
        _fill(memory)
    yield memories
    for db in dbs.values():
        db.dispose()


def test_every_query_gives_the_same_results_on_both(both: dict[str, SAIMemory]) -> None:
    for persona in ("mina", "sora"):
        for query in QUERIES:
            got = {kind: [(r["id"], r["content"], round(r["score"], 3)) for r in m.search(persona, query)]
                   for kind, m in both.items()}
            assert got["sqlite"] == got["postgresql"], (persona, query)
    found = {q: len(both["postgresql"].search("mina", q)) for q in ("猫", "図書", "の", "本", "鳥", "ab", "_")}
    assert found == {"猫": 4, "図書": 2, "の": 4, "本": 2, "鳥": 0, "ab": 1, "_": 1}  # the corpus, by hand


def _grams_python(persona: str, content: str) -> set[str]:
    """SQLite's rules (database/steps.py step 9), lower-cased: 1- and 2-grams of the first GRAM_CAP characters."""
    head = content[:GRAM_CAP].lower()
    return {f"p:{persona}"} | {head[i] for i in range(len(head))} | {head[i:i + 2] for i in range(len(head))}


def _index_count(db: Database, grams: list[str]) -> tuple[int, str]:
    """How many messages the gram index alone finds for `grams`, and the plan that found them."""
    query = "SELECT count(*) FROM saimemory WHERE saimemory_grams(PERSONA_ID, CONTENT) @> CAST(:g AS text[])"
    with db.engine.connect() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")  # a tiny table: make the planner show the index
        plan = "\n".join(r[0] for r in conn.execute(text(f"EXPLAIN {query}"), {"g": grams}))
        return int(conn.execute(text(query), {"g": grams}).scalar() or 0), plan


def test_the_postgresql_grams_follow_sqlite_rules(both: dict[str, SAIMemory]) -> None:
    db = both["postgresql"].db
    with db.engine.connect() as conn:
        for persona, content, _days in CORPUS:
            made = conn.execute(text("SELECT saimemory_grams(:p, :c)"), {"p": persona, "c": content}).scalar()
            assert set(made) == _grams_python(persona, content), content[:20]
    count, plan = _index_count(db, ["p:mina", "猫"])
    assert count == 4 and "ix_saimemory_grams" in plan
    with db.engine.begin() as conn:  # writes from outside SAIMemory: the index follows the rows
        conn.exec_driver_sql("UPDATE saimemory SET CONTENT = '鳥が鳴いた' WHERE CONTENT = '犬と散歩した。犬は元気'")
        conn.execute(text("DELETE FROM saimemory WHERE CONTENT = :c"), {"c": CORPUS[0][1]})
    assert _index_count(db, ["p:mina", "猫"])[0] == 3 and _index_count(db, ["p:mina", "犬"])[0] == 0
    assert [r["content"] for r in both["postgresql"].search("mina", "鳥")] == ["鳥が鳴いた"]


def test_messages_written_before_step_10_are_indexed_by_it(pg_url: str) -> None:
    db = Database(pg_url, workers=1)
    try:
        migrate_pg(db.engine, target=9)  # a city from before the gram index
        memory = SAIMemory(db)
        for persona, content, days in CORPUS[:4]:
            memory.add(persona, "user", content, created_at=NOW - timedelta(days=days))
        assert migrate_pg(db.engine).applied[0] == "10: saimemory_short_terms"
        count, plan = _index_count(db, ["p:mina", "図書"])
        assert count == 2 and "ix_saimemory_grams" in plan
        assert {r["content"] for r in memory.search("mina", "図書")} == {"図書館で猫の本を探した", "図書の整理をした"}
    finally:
        db.dispose()
