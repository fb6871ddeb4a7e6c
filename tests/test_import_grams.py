"""The importer's parts on their own: the recall index it builds without the trigger, the streaming JSON
reader of building logs, and the recovery of files staged by an import that died."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from database.engine import Database
from database.migrate import migrate
from saiverse.importer.files import FileStager, recover_staged_files
from saiverse.importer.grams import MAX_INDEXED_CHARS, GramIndex, grams
from saiverse.importer.jsonarray import JSONArrayError, iter_json_array
from saiverse.importer.progress import Progress
from saiverse.memory import SAIMemory

CONTENTS = [
    "図書館で猫の本を探した", "", "a", "ab", "猫", "絵文字🐈‍⬛と結合文字が゙まじる", "NUL の後\x00は索引されない",
    "Mixed Case ENGLISH text", "改行\nとタブ\tと　全角空白", "長文" * 1500, "\"引用\" AND NEAR( * 記号",
]
# (The trigger's SQL grams cost O(n²) in a message's length, so the 131,072-character cap is checked on
# `grams` alone below.)
PERSONAS = ["mina", "ソラ", "p'1"]


def _insert(db: sqlite3.Connection) -> None:
    db.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID) VALUES (?, 'user', ?, ?, ?)",
                   [(p, c, json.dumps(["conversation", f"pulse:{n}"]), str(n))
                    for n, (p, c) in enumerate((p, c) for p in PERSONAS for c in CONTENTS)])


def _vocabulary(path: Path) -> list[tuple[str, int]]:
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, saimemory_fts, 'row')")
    try:
        return db.execute("SELECT term, doc FROM temp.v ORDER BY term").fetchall()
    finally:
        db.close()


def test_the_index_built_without_the_trigger_is_the_triggers_index(tmp_path: Path) -> None:
    by_trigger, by_import = tmp_path / "trigger.db", tmp_path / "import.db"
    for path in (by_trigger, by_import):
        migrate(path)
    db = sqlite3.connect(by_trigger)
    _insert(db)
    db.commit()
    db.close()
    db = sqlite3.connect(by_import, isolation_level=None)
    db.execute("BEGIN")
    index = GramIndex(db)
    assert index.fast
    _insert(db)
    phase = Progress(None).phase("index")
    index.finish(phase)
    db.execute("COMMIT")
    assert phase.done == len(PERSONAS) * len(CONTENTS)
    triggers = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")]
    assert "saimemory_gram_ai" in triggers
    assert db.execute("SELECT v FROM saimemory_fts_config WHERE k = 'hashsize'").fetchone() == (1024 * 1024,)
    tags = db.execute("SELECT MESSAGE_ID, TAG FROM saimemory_tag ORDER BY MESSAGE_ID").fetchall()
    db.close()
    assert _vocabulary(by_import) == _vocabulary(by_trigger)
    assert tags == [(n + 1, "conversation") for n in range(len(PERSONAS) * len(CONTENTS))]  # no pulse tag rows
    # Deletes through the trigger remove exactly what the import added; search stays exact.
    memory = SAIMemory(Database(f"sqlite:///{by_import}"))
    assert [m["content"] for m in memory.search("mina", "猫")] == ["猫", "図書館で猫の本を探した"]
    assert [m["content"] for m in memory.search("p'1", "結合文字")] == ["絵文字🐈‍⬛と結合文字が゙まじる"]
    db = sqlite3.connect(by_import)
    db.execute("DELETE FROM saimemory WHERE PERSONA_ID = 'mina'")
    db.execute("INSERT INTO saimemory_fts (saimemory_fts) VALUES ('integrity-check')")
    db.commit()
    db.close()
    assert memory.search("mina", "猫") == [] and len(memory.search("ソラ", "猫")) == 2
    memory.db.dispose()


def test_grams_stop_where_the_trigger_stops() -> None:
    text = grams("p", "あ" * (MAX_INDEXED_CHARS + 50))
    assert text.count("あ") == 6 * MAX_INDEXED_CHARS - 4  # 1-, 2- and 3-grams of the first 131,072 characters
    assert grams("p", "ab\x00cd") == grams("p", "ab") == "p:70 a ab ab b b b"


def test_a_changed_trigger_is_left_to_do_the_work(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    migrate(path)
    db = sqlite3.connect(path, isolation_level=None)
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'saimemory_gram_ai'").fetchone()[0]
    db.execute("DROP TRIGGER saimemory_gram_ai")
    db.execute(sql.replace("BEGIN", "BEGIN SELECT 1;", 1))  # some later migration's version of it
    db.execute("BEGIN")
    index = GramIndex(db)
    assert not index.fast
    _insert(db)
    index.finish(Progress(None).phase("index"))
    db.execute("COMMIT")
    db.close()
    memory = SAIMemory(Database(f"sqlite:///{path}"))
    assert len(memory.search("mina", "猫")) == 2
    memory.db.dispose()


@pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 20])
def test_json_array_streams_whatever_the_chunk_size(tmp_path: Path, chunk: int) -> None:
    entries = [{"role": "user", "content": f"猫{i}" * (i % 5), "n": 10 ** i} for i in range(30)] + [12345, "末尾"]
    path = tmp_path / "log.json"
    path.write_text("\ufeff [ " + " , ".join(json.dumps(e, ensure_ascii=False) for e in entries) + " ]\n",
                    encoding="utf-8")
    assert list(iter_json_array(path, chunk)) == entries
    path.write_text("[]", encoding="utf-8")
    assert list(iter_json_array(path, chunk)) == []


@pytest.mark.parametrize("text, read", [
    ('[{"a": 1}, {"b": 2}, {"c": ', 2), ('[{"a": 1} {"b": 2}]', 1), ('{"a": 1}', 0), ("", 0), ('[{"a": 1}', 1),
])
def test_json_array_says_where_it_breaks(tmp_path: Path, text: str, read: int) -> None:
    path = tmp_path / "log.json"
    path.write_text(text, encoding="utf-8")
    got = []
    with pytest.raises(JSONArrayError) as err:
        for value in iter_json_array(path, 4):
            got.append(value)
    assert err.value.read == read == len(got)


def test_recovery_finishes_committed_files_and_drops_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    migrate(home / "saiverse.db")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    stager = FileStager(home, "t0ken")
    source = tmp_path / "pic.png"
    source.write_bytes(os.urandom(64))
    kept, dropped = stager.free_path("image/kept.png"), stager.free_path("image/dropped.png")
    for final in (kept, dropped, kept.with_name("kept.png.summary.txt")):
        stager.copy(source, final)
    manifest = json.loads(stager.manifest.read_text(encoding="utf-8"))
    stager.manifest.write_text(json.dumps({**manifest, "pid": int(dead.stdout)}), encoding="utf-8")  # died
    db = sqlite3.connect(home / "saiverse.db")
    db.execute("INSERT INTO item (ITEM_ID, NAME, TYPE, FILE_PATH) VALUES ('i', '絵', 'picture', 'image/kept.png')")
    db.commit()
    db.close()
    database = Database(f"sqlite:///{home / 'saiverse.db'}")
    assert recover_staged_files(home, database) == 2
    database.dispose()
    assert sorted(p.name for p in (home / "image").iterdir()) == ["kept.png", "kept.png.summary.txt"]
    assert (home / "image" / "kept.png").read_bytes() == source.read_bytes()
    assert not stager.manifest.exists()
