"""SAIMemory's recall index triggers (database/steps.py, MEMORY_LINEAR_GRAMS_SQL) on real SQLite files:
the grams they index are exactly `grams()`'s, long messages included, and the step that installs
them re-indexes messages step 3 indexed past the cap so later deletes stay exact."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from database.engine import Database
from database.migrate import migrate
from database.steps import GRAM_CAP, MEMORY_GRAM_INDEX_SQL, SHORT_GRAMS
from saiverse.importer.grams import grams
from saiverse.memory import SAIMemory

ALPHABET = "ab 猫図書\x00🐈‍⬛が゙\n\t　A\"é" + chr(0x10FFFF)


def _indexed(db: sqlite3.Connection, persona: str, content: str) -> str:
    """The GRAMS text the installed insert trigger computes, read back from its own SQL."""
    if not db.execute("SELECT 1 FROM sqlite_temp_master WHERE name = 'probe'").fetchone():
        trigger = db.execute("SELECT sql FROM sqlite_master WHERE name = 'saimemory_gram_ai'").fetchone()[0]
        expression = trigger.split("VALUES (new.ID, ", 1)[1].rsplit(");", 1)[0]
        db.execute("CREATE TEMP TABLE probe (PERSONA_ID TEXT, CONTENT TEXT)")
        db.execute("CREATE TEMP TABLE probe_out (GRAMS TEXT)")
        # As a trigger, like the real one: a column read in a plain SELECT is re-read at every use.
        db.execute(f"CREATE TEMP TRIGGER probe_ai AFTER INSERT ON probe BEGIN "
                   f"INSERT INTO probe_out VALUES ({expression}); END")
    db.execute("DELETE FROM probe_out")
    db.execute("INSERT INTO probe VALUES (?, ?)", (persona, content))
    return db.execute("SELECT GRAMS FROM probe_out").fetchone()[0]


def _vocabulary(db: sqlite3.Connection) -> list[tuple[str, int]]:
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, saimemory_fts, 'row')")
    return db.execute("SELECT term, doc FROM temp.v ORDER BY term").fetchall()


def test_the_trigger_indexes_exactly_the_grams_of_grams(tmp_path: Path) -> None:
    migrate(tmp_path / "s.db")
    db = sqlite3.connect(tmp_path / "s.db")
    rng = random.Random(7)
    samples = ["", "a", "猫", "ab\x00cd", "\x00", "🐈‍⬛" * 3]
    samples += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 14))) for _ in range(300)]
    # Past SHORT_GRAMS the walk over the bytes takes over from step 3's form.
    samples += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(SHORT_GRAMS - 3, 400))) for _ in range(100)]
    for content in samples:
        assert _indexed(db, "ソラ", content) == grams("ソラ", content), repr(content)
    for ch, n in (("a", GRAM_CAP), ("猫", GRAM_CAP - 1), ("🐈", GRAM_CAP + 5)):  # at, under, past the cap
        assert _indexed(db, "p", ch * n) == grams("p", ch * n)
    db.close()


def test_a_long_message_is_added_found_and_deleted_exactly(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    migrate(path)
    memory = SAIMemory(Database(f"sqlite:///{path}"))
    long = "長い話" * 50_000 + "終わりの猫"  # 150,005 characters: the cat is past the cap
    kept = memory.add("mina", "user", "図書館で猫を見た" + "。" * 140_000)
    gone = memory.add("mina", "assistant", long)
    assert [m["id"] for m in memory.search("mina", "話")] == [gone["id"]]
    assert [m["id"] for m in memory.search("mina", "猫")] == [kept["id"]]  # only the first 131,072 are indexed
    assert memory.delete("mina", gone["id"])
    db = sqlite3.connect(path)
    db.execute("INSERT INTO saimemory_fts (saimemory_fts) VALUES ('integrity-check')")
    assert "話" not in dict(_vocabulary(db)) and dict(_vocabulary(db))["猫"] == 1
    db.close()


def test_the_step_reindexes_what_step_3_indexed_past_the_cap(tmp_path: Path) -> None:
    """A database indexed by step 3's triggers (windows up to two characters past the cap) migrates
    to an index identical to a fresh one, and deletes through the new triggers then empty it."""
    old, fresh = tmp_path / "old.db", tmp_path / "fresh.db"
    contents = ["x" * (GRAM_CAP - 2) + "かきくけこ", "猫" * GRAM_CAP + "🐈", "図書館", "a\x00" + "b" * GRAM_CAP]
    migrate(old, target=6)
    db = sqlite3.connect(old)
    db.execute("DROP TRIGGER saimemory_gram_ai")  # step 3's SQL grams take minutes at this length
    for n, content in enumerate(contents, 1):
        db.execute("INSERT INTO saimemory (ID, PERSONA_ID, ROLE, CONTENT, TAGS) VALUES (?, 'mina', 'user', ?, ?)",
                   (n, content, json.dumps([])))
        text = content.split("\x00", 1)[0]
        step3 = " ".join(f"{text[i]} {text[i:i + 2]} {text[i:i + 3]}" for i in range(min(len(text), GRAM_CAP)))
        db.execute("INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (?, ?)", (n, f"p:{b'mina'.hex().upper()} {step3}"))
    trigger = next(s for s in MEMORY_GRAM_INDEX_SQL.split("END;") if "CREATE TRIGGER saimemory_gram_ai" in s)
    db.execute(trigger[trigger.index("CREATE TRIGGER"):] + "END;")
    db.commit()
    assert "きくけ" in dict(_vocabulary(db))  # step 3 indexed two characters past the cap
    db.close()
    migrate(old)
    migrate(fresh)
    db = sqlite3.connect(fresh)
    db.executemany("INSERT INTO saimemory (ID, PERSONA_ID, ROLE, CONTENT, TAGS) VALUES (?, 'mina', 'user', ?, '[]')",
                   list(enumerate(contents, 1)))
    db.commit()
    expected = _vocabulary(db)
    db.close()
    db = sqlite3.connect(old)
    assert _vocabulary(db) == expected
    db.execute("DELETE FROM saimemory")
    db.execute("INSERT INTO saimemory_fts (saimemory_fts) VALUES ('integrity-check')")
    db.commit()
    assert _vocabulary(db) == []
    db.close()
