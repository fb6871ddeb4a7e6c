"""Dense recall (issue 33): message vectors in the store (step 14), the background indexer, fusion.

The store tests run on a real SQLite file and a real PostgreSQL database (tests/support/pg.py) with a small
deterministic embedder (concept words → axes), so what is asserted is the store, the cursor and the
fusion, not a model's taste. Tests marked `local_model` run the packaged Gemma 3 270M through
LocalEmbedder in its own process: a kill -9 of that process in the middle of a batch, and
`python main.py memory-index --wait` through the real CLI.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from chat import LLMError
from database.engine import Database
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from saiverse.memory import ChronicleStore, MemopediaStore, MemoryIndex, SAIMemory, recall
from saiverse.settings import load_settings
from tests.support.embedder import LINES, embed

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime.now(UTC)


def _open(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Database:
    if kind == "postgresql":
        db = Database(request.getfixturevalue("pg_url"), workers=2)
        migrate_pg(db.engine)
        return db
    migrate(tmp_path / "dense.db", backup=False)
    return Database(f"sqlite:///{tmp_path / 'dense.db'}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    database = _open(request.param, tmp_path, request)
    with database.engine.begin() as conn:
        for pid in ("mina", "sora"):
            conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', 'c') ON CONFLICT DO NOTHING"))
            conn.execute(text("INSERT INTO ai (AIID, CITYID, AINAME) VALUES (:p, 'c', :p)"), {"p": pid})
    yield database
    database.dispose()


def _fill(memory: SAIMemory, persona: str = "mina", n: int = 1) -> list[int]:
    ids = []
    for k in range(n):
        for i, line in enumerate(LINES):
            when = NOW - timedelta(days=10 * (len(LINES) - i) + k)
            ids.append(memory.add(persona, "user", line, tags=["conversation"], created_at=when)["id"])
    return ids


def _rows(db: Database) -> dict[int, int]:
    with db.engine.connect() as conn:
        return {r[0]: r[1] for r in conn.execute(text("SELECT MESSAGE_ID, DIM FROM saimemory_vec"))}


def test_every_message_gets_one_vector_and_loses_it_when_it_changes(db: Database) -> None:
    memory = SAIMemory(db)
    ids = _fill(memory, n=3) + _fill(memory, "sora")
    index = MemoryIndex(db, "local:test", embed)
    done = index.drain()
    assert done == {"mina": (21, 21), "sora": (7, 7)}
    rows = _rows(db)
    assert set(rows) == set(ids)
    assert sum(1 for d in rows.values() if d == 0) == 8  # empty and blank lines: nothing to embed, never asked again
    assert index.step() == 0
    edited, deleted = ids[0], ids[1]
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE saimemory SET CONTENT = 'My car stopped' WHERE ID = :i"), {"i": edited})
        conn.execute(text("DELETE FROM saimemory WHERE ID = :i"), {"i": deleted})
    assert edited not in _rows(db) and deleted not in _rows(db)  # the triggers of step 14
    fresh = MemoryIndex(db, "local:test", embed)  # a new start looks every message over
    assert fresh.drain("mina") == {"mina": (20, 20)}
    assert edited in _rows(db)


def test_two_indexers_at_once_store_each_vector_once(db: Database) -> None:
    memory = SAIMemory(db)
    ids = _fill(memory, n=6)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            MemoryIndex(db, "local:test", embed).drain()
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*), count(DISTINCT MESSAGE_ID) FROM saimemory_vec")).one() == (
            len(ids), len(ids))


KILLED_INDEXER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from database.engine import Database
from saiverse.memory import MemoryIndex
from tests.support.embedder import embed

def slow(texts):
    time.sleep(0.05)
    print("batch", flush=True)
    return embed(texts)

MemoryIndex(Database(sys.argv[1]), "local:test", slow).drain()
"""


def test_a_kill_9_of_the_indexing_process_loses_only_the_batch_in_flight(db: Database, tmp_path: Path) -> None:
    memory = SAIMemory(db)
    ids = _fill(memory, n=20)
    script = tmp_path / "indexer.py"
    script.write_text(KILLED_INDEXER, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), db.engine.url.render_as_string(hide_password=False),
                             str(ROOT)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    for _ in range(6):  # a few batches committed, then a kill in the middle of the next one
        assert proc.stdout.readline().startswith("batch")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    rows = _rows(db)
    assert 0 < len(rows) < len(ids)
    with db.engine.connect() as conn:  # every stored vector is whole and belongs to a message
        for mid, dim, blob in conn.execute(text("SELECT MESSAGE_ID, DIM, VEC FROM saimemory_vec")):
            assert mid in ids and len(bytes(blob)) == 4 * dim
    assert MemoryIndex(db, "local:test", embed).drain() == {"mina": (len(ids), len(ids))}


def test_recall_finds_what_no_word_of_the_question_holds(db: Database) -> None:
    memory = SAIMemory(db)
    _fill(memory, n=2)
    index = MemoryIndex(db, "local:test", embed)
    index.drain()
    args = (memory, ChronicleStore(db), MemopediaStore(db), "mina")
    question = "When did my vehicle stop working?"
    lexical = recall(*args, question, limit=5)
    assert not any("Volvo" in h["content"] for h in lexical)
    fused = recall(*args, question, limit=5, dense=index.dense)
    volvo = [h for h in fused[:3] if "Volvo" in h["content"]]  # the dense-only pass brought it
    assert volvo and volvo[0]["dense"] > 0.5 and not volvo[0]["terms"]
    # a word the lexical side finds keeps its place; the dense list adds, it does not replace
    assert recall(*args, "library", limit=3, dense=index.dense)[0]["content"] == LINES[3]
    assert recall(*args, "車", limit=3, dense=index.dense)[0]["content"] == LINES[0]  # no term matches at all


def test_a_failed_batch_is_tried_again_and_recall_stays_lexical(db: Database) -> None:
    memory = SAIMemory(db)
    _fill(memory)
    calls = {"n": 0}

    def flaky(texts: list[str]) -> list[list[float]]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise LLMError("埋め込みモデルの処理が止まりました", kind="local_crashed")
        return embed(texts)

    index = MemoryIndex(db, "local:test", flaky, ready=lambda: False)
    with pytest.raises(LLMError):
        index.step()
    assert not _rows(db)
    assert index.drain() == {"mina": (7, 7)}
    # the embedding process not running: a query never waits for it to load
    assert index.dense.prepare("mina", "vehicle") is None


def test_a_slow_model_never_holds_a_pulse_up(db: Database) -> None:
    from saiverse.memory._reflex import reflex_text

    memory = SAIMemory(db)
    _fill(memory)
    MemoryIndex(db, "local:test", embed).drain()
    answer = threading.Event()

    def slow(texts: list[str]) -> list[list[float]]:
        answer.wait(30)  # the model answers only when the test lets it
        return embed(texts)

    dense = MemoryIndex(db, "local:test", slow).dense
    args = (memory, ChronicleStore(db), MemopediaStore(db), "mina", "Did my car stop working?")
    first = reflex_text(*args, pulse_id=None, shown=(), max_chars=2000, dense=dense)
    assert "Volvo" not in first  # the reflex did not wait for the vector: it went on lexically
    answer.set()
    dense._asking.result(timeout=30)  # the vector arrives and is kept: the next recall of the message uses it
    hits = recall(*args, limit=5, dense=dense, dense_wait=0.0)
    assert any("Volvo" in h["content"] and h.get("dense") for h in hits)


def test_reflex_recall_brings_a_line_by_meaning_and_says_why(db: Database) -> None:
    from saiverse.memory._reflex import reflex_found

    memory = SAIMemory(db)
    _fill(memory)
    index = MemoryIndex(db, "local:test", embed)
    index.drain()
    dense = index.dense
    args = (memory, ChronicleStore(db), MemopediaStore(db), "mina")
    asked, greeting = "Did my car stop working?", "Good evening, how are you?"
    for text_ in (asked, greeting):  # the vectors asked for beforehand: the reflex's 20 ms wait then holds
        assert dense.query_vector(text_, wait=30) is not None
    lexical = reflex_found(*args, asked, pulse_id=None, shown=(), max_chars=2000)
    assert not any("Volvo" in r.line for r in lexical)
    found = reflex_found(*args, asked, pulse_id=None, shown=(), max_chars=2000, dense=dense)
    volvo = [r for r in found if "Volvo" in r.line]
    assert volvo and volvo[0].why.startswith("意味が近い (cos ") and volvo[0].kind == "message"
    assert not reflex_found(*args, greeting, pulse_id=None, shown=(), max_chars=2000, dense=dense)  # nothing stands out


def test_the_thread_starts_the_model_even_with_nothing_to_index(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setattr("saiverse.memory._indexer.START_DELAY", 0.0)
    memory = SAIMemory(db)
    _fill(memory)
    MemoryIndex(db, "local:test", embed).drain()  # everything indexed before this "start"
    asked: list[list[str]] = []

    def model(texts: list[str]) -> list[list[float]]:
        asked.append(texts)
        return embed(texts)

    index = MemoryIndex(db, "local:test", model, ready=lambda: bool(asked))
    index.start()
    deadline = time.monotonic() + 10
    while not asked and time.monotonic() < deadline:
        time.sleep(0.01)
    hits = recall(memory, ChronicleStore(db), MemopediaStore(db), "mina", "my vehicle", limit=3, dense=index.dense)
    index.stop()
    assert asked and any("Volvo" in h["content"] for h in hits)


def test_a_command_that_opens_the_world_starts_no_model(monkeypatch: pytest.MonkeyPatch, make_manager: object) -> None:
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "local")
    manager = make_manager()  # type: ignore[operator]
    index = manager.memory_index
    assert index is not None and manager.context.dense is index.dense and manager.memory_view.dense is index.dense
    manager.close()
    assert manager.memory_index.pid is None  # no model process was started for it
    worker = make_manager(index=False)  # type: ignore[operator]  # a pulse worker (`python main.py worker`)
    assert worker.memory_index is not None and worker.memory_index._thread is None  # reads vectors, embeds none


def test_the_setting_is_checked_and_memory_index_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.setting_values import SettingsError

    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "claude-embed")
    with pytest.raises(SettingsError, match="SAIVERSE_EMBEDDING_MODEL"):
        load_settings()
    monkeypatch.delenv("SAIVERSE_EMBEDDING_MODEL")
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "memory-index", "--wait"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "SAIVERSE_RAISE_ERRORS": "0"})
    assert done.returncode == 2 and "SAIVERSE_EMBEDDING_MODEL" in done.stderr


def test_the_catalogue_offers_embedding_models() -> None:
    from saiverse.llm.local import CATALOG
    from saiverse.llm.local._gguf_meta import is_embedding

    kinds = {e.name: e.kind for e in CATALOG}
    assert kinds["multilingual-e5-small"] == kinds["bge-m3"] == "embedding"
    assert kinds["qwen2.5-1.5b-instruct"] == "chat"
    assert is_embedding({"general.architecture": "bert"}) and is_embedding({"general.architecture": "x",
                                                                              "x.pooling_type": "1"})
    assert not is_embedding({"general.architecture": "gemma3"})


def _gguf(path: Path, arch: str) -> None:
    """A GGUF header naming `arch` (no tensors): what `model list` and `model pull --set-default` read."""
    import struct

    def string(v: str) -> bytes:
        return struct.pack("<Q", len(v.encode())) + v.encode()

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + string("general.architecture")
                     + struct.pack("<I", 8) + string(arch))


def test_an_embedding_model_made_default_becomes_recalls_not_the_chats(saiverse_home: Path) -> None:
    from saiverse.llm import installed_models
    from saiverse.llm.local import make_default

    settings = load_settings()
    _gguf(settings.home / "models" / "multilingual-e5-small-q8_0.gguf", "bert")
    _gguf(settings.home / "models" / "chatty.gguf", "qwen2")
    after = make_default(settings, "multilingual-e5-small-q8_0")
    assert after.embedding_model == "local:multilingual-e5-small-q8_0" and after.default_model == "offline"
    make_default(after, "chatty")
    saved = json.loads((settings.home / "settings.json").read_text(encoding="utf-8"))
    assert saved["default_model"] == "local:chatty" and saved["embedding_model"] == "local:multilingual-e5-small-q8_0"
    kinds = {m.name: (m.kind, m.embedding) for m in installed_models(load_settings())}
    assert kinds["multilingual-e5-small-q8_0"] == ("embedding", True) and kinds["chatty"] == ("chat", False)
    listed = subprocess.run([sys.executable, str(ROOT / "main.py"), "model", "list"], capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0 and "embedding" in listed.stdout


# -- the packaged model, in its own process ------------------------------------------------------

@pytest.fixture
def packaged(monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.llm.local import packaged_available, runtime_available

    problem = runtime_available() or (None if packaged_available() else "the packaged model is not installed")
    if problem:
        pytest.fail(f"{problem}: both are in requirements.txt")
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "local")


@pytest.mark.local_model
def test_a_kill_of_the_embedding_process_mid_batch_fails_that_batch_only(packaged: None, tmp_path: Path) -> None:
    from saiverse.memory import open_memory_index

    settings = load_settings()
    db = _open("sqlite", tmp_path, None)  # type: ignore[arg-type]
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', 'c')"))
        conn.execute(text("INSERT INTO ai (AIID, CITYID, AINAME) VALUES ('mina', 'c', 'mina')"))
    memory = SAIMemory(db)
    for i in range(12):
        memory.add("mina", "user", f"{i}: " + "図書館で猫の本を読んだ話。" * 2, tags=["conversation"])
    index = open_memory_index(settings, db, start=False)
    assert index is not None and index.key.startswith("local:gemma")
    assert index.dense.weight < 1.0  # a chat model's mean-pooled vectors weigh less in the fusion
    real = index._embed
    calls = {"n": 0}

    def killing(texts: list[str]) -> list:
        calls["n"] += 1
        if calls["n"] == 2:  # the second batch: the process is killed while it reads the texts
            threading.Timer(0.05, os.kill, (index.pid, signal.SIGKILL)).start()
        return real(texts)

    index._embed = killing
    assert index.step() == 8
    with pytest.raises(LLMError, match="SIGKILL"):
        index.step()
    assert len(_rows(db)) == 8  # the committed batch is kept, the killed one wrote nothing
    assert index.drain() == {"mina": (12, 12)}  # the next batch starts the process anew
    index.dense.wait = 120.0  # this test wants the query's vector however slow the machine is
    hits = recall(memory, ChronicleStore(db), MemopediaStore(db), "mina", "猫の本", limit=3, dense=index.dense)
    assert hits and all("dense" in h for h in hits)
    index.stop()
    db.dispose()


@pytest.mark.local_model
def test_memory_index_wait_through_the_cli(packaged: None, saiverse_home: Path,
                                          make_manager: object) -> None:
    from saiverse.settings import load_settings

    os.environ.pop("SAIVERSE_EMBEDDING_MODEL")  # the test's own manager only writes messages
    manager = make_manager()  # type: ignore[operator]
    for i in range(12):
        manager.memory.add("mina", "user", f"今日は{i}冊目の本を読みました", tags=["conversation"])
    total = manager.memory.count("mina") if hasattr(manager.memory, "count") else None
    manager.close()
    env = {**os.environ, "SAIVERSE_EMBEDDING_MODEL": "local", "SAIVERSE_RAISE_ERRORS": "1"}
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "memory-index", "--wait", "--persona", "mina",
                           "--json"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.strip().splitlines()[-1])
    mina = last["personas"]["mina"]
    assert mina["messages"] == mina["indexed"] >= 12 and (total is None or mina["messages"] == total)
    db = Database(load_settings().database_url)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM saimemory_vec WHERE PERSONA_ID = 'mina' AND DIM > 0")).scalar()
    db.dispose()


@pytest.mark.local_model
def test_a_send_never_waits_for_the_indexer(packaged: None, make_manager: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setattr("saiverse.memory._indexer.START_DELAY", 0.0)
    from tests.support.models import ScriptedModel

    os.environ.pop("SAIVERSE_EMBEDDING_MODEL")
    writer = make_manager()  # type: ignore[operator]
    for i in range(200):
        writer.memory.add("mina", "user", f"今日は雨だったね。夕ごはんはカレーにした（{i}）。", tags=["conversation"])
    writer.close()
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "local")
    model = ScriptedModel()
    m = make_manager(model)  # type: ignore[operator]
    deadline = time.monotonic() + 120
    while m.memory_index.status("mina")["mina"][1] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)  # the indexer is at work: its first batch is stored
    events = list(m.handle_user_input("library", "夕ごはんは何だった？", persona_id="mina"))
    total, done = m.memory_index.status("mina")["mina"]
    assert next(e for e in events if e["type"] == "pulse_end")["status"] == "ok"
    assert done < total  # still indexing: the send did not wait for it (its time: benchmarks/RESULTS-recall.md)
