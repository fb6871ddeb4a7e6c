"""Recall's word neighbours (saiverse/memory/_neighbours.py): the table really built from the packaged model's
token embeddings in its own process, a question worded apart finding its memory through it, and a build
killed, a table broken or the setting off leaving recall as it was."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import stat
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory import WordNeighbours, recall
from saiverse.memory._lexical import SYNONYM_WEIGHT, query_terms
from saiverse.settings import load_settings
from tests.support.models import MakeManager

P = "mina"
pytestmark = pytest.mark.chronicle_by_hand


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One table for the module, built the app's way (the packaged model assembled into a home first)."""
    home = tmp_path_factory.mktemp("neighbours-home")
    built = WordNeighbours.packaged(home, lambda: load_settings(home))
    built.start()
    assert built.wait(timeout=900), "the table was not built"
    built.stop()
    return built.path


def _with_table(home: Path, table: Path) -> None:
    (home / "models").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(table, home / "models" / "word-neighbours.sqlite")


def _memories(m: SAIVerseManager) -> None:
    start = datetime(2025, 3, 1, 19, 0)
    talk = ["It rained all day again.", "Work was one long meeting.", "I tried the new bakery by the station."]
    lines = talk * 4 + ["We finally bought a couch for the living room, a green one."] + talk
    for i, text in enumerate(lines):
        m.memory.add(P, "user", text, tags=["conversation"], created_at=start + timedelta(minutes=i))


def _found(m: SAIVerseManager, question: str) -> list[str]:
    return [h["content"] for h in recall(m.memory, m.chronicle, m.memopedia, P, question, limit=3)]


def test_the_table_is_built_from_the_packaged_model_and_kept_private(table: Path) -> None:
    assert stat.S_IMODE(table.stat().st_mode) == 0o600
    reader = WordNeighbours(table.parent.parent, lambda: table)
    reader.start(build=False)
    try:
        near = dict(reader.near("sofa"))
        assert near.get("couch", 0) > 0.6  # the same thing
        assert "car" in dict(reader.near("vehicle")) and "attorney" in dict(reader.near("lawyer"))
        assert reader.near("qzxv") == ()  # a word the vocabulary lacks
        assert all(cos >= 0.4 for _w, cos in reader.near("holiday"))
    finally:
        reader.stop()
    assert not list(table.parent.glob(".*.tmp"))  # the build wrote beside it and renamed


def test_a_question_worded_apart_finds_its_memory_through_a_neighbour(
        make_manager: MakeManager, saiverse_home: Path, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    question = "Did they get a new sofa?"
    monkeypatch.setenv("SAIVERSE_WORD_NEIGHBOURS", "1")
    plain = make_manager()
    _memories(plain)
    assert not any("couch" in c for c in _found(plain, question))  # the words alone do not meet
    plain.close()
    _with_table(saiverse_home, table)
    m = make_manager()
    assert m.word_neighbours.ready
    terms = {t.key: t.weight for t in query_terms(question)}
    assert 0 < terms["couch"] < SYNONYM_WEIGHT  # lighter than a word of the question, by its cosine
    assert "couch" in _found(m, question)[0]
    m.close()
    assert "couch" not in {t.key for t in query_terms(question)}  # a closed table is asked no more


def test_the_setting_off_leaves_the_table_unread(make_manager: MakeManager, saiverse_home: Path,
                                                 table: Path) -> None:
    _with_table(saiverse_home, table)  # conftest sets SAIVERSE_WORD_NEIGHBOURS=0
    m = make_manager()
    assert not m.word_neighbours.ready
    assert "couch" not in {t.key for t in query_terms("Did they get a new sofa?")}


def test_a_broken_table_is_set_aside_and_recall_goes_on(make_manager: MakeManager, saiverse_home: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("SAIVERSE_WORD_NEIGHBOURS", "1")
    models = saiverse_home / "models"
    models.mkdir(parents=True)
    (models / "word-neighbours.sqlite").write_bytes(b"not a database at all" * 100)
    with caplog.at_level(logging.WARNING, logger="saiverse.memory._neighbours"):
        m = make_manager()
    assert not m.word_neighbours.ready
    assert "cannot be read" in caplog.text
    assert (models / "word-neighbours.sqlite.broken").is_file()  # kept for a look, out of the way
    assert not (models / "word-neighbours.sqlite").exists()  # so the app's next start builds it anew
    _memories(m)
    assert "couch" in _found(m, "the green couch")[0]  # lexical recall as before


def test_a_build_killed_leaves_no_table_and_the_next_start_cleans_up(tmp_path: Path) -> None:
    home = tmp_path / "home"
    built = WordNeighbours.packaged(home, lambda: load_settings(home))
    built.start()
    deadline = time.monotonic() + 120
    while built._proc is None and time.monotonic() < deadline:  # the model is assembled first
        time.sleep(0.05)
    proc = built._proc
    assert proc is not None
    time.sleep(3.0)  # into the matrix products
    os.kill(proc.pid, signal.SIGKILL)
    assert not built.wait(timeout=60)
    assert not built.path.exists()
    stale = built.path.with_name(f".{built.path.name}.{proc.pid}.tmp")
    stale.write_bytes(b"half a table")  # as a kill between the first write and the rename leaves it
    again = WordNeighbours(home, lambda: (_ for _ in ()).throw(FileNotFoundError("no model here")))
    again.start()
    again.wait(timeout=30)
    assert not again.ready and not built.path.exists()
