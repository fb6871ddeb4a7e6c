"""Autonomous turns shared across processes (issue 24): each persona's last turn is kept in the world's
database and claimed with one conditional upsert, so several managers ticking one city at the same
moment — app windows or pulse workers on one PostgreSQL database, or two apps on one SQLite home —
start one turn per persona per interval between them, and a restart does not start every turn again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from database.engine import Database
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from saiverse.manager import SAIVerseManager
from saiverse.world import AutonomousTurns
from tests.support.threads import together

AUTO = ("kai", "rin", "tao")


@pytest.fixture(params=["sqlite", "postgresql"])
def city(request: pytest.FixtureRequest, saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The backend of the test's city (PostgreSQL: SAIVERSE_DATABASE_URL names an empty database)."""
    if request.param == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    return str(request.param)


def _auto_city(m: SAIVerseManager) -> None:
    b = m.admin.create_building({"name": "Harbor", "capacity": 5, "auto_interval_sec": 60})
    for pid in AUTO:
        m.admin.create_persona({"persona_id": pid, "name": pid, "building_id": b.building_id,
                                "interaction_mode": "auto"})
    m.autonomous = True


def _tick_together(managers: list[SAIVerseManager], now: datetime) -> list[str]:
    """Every manager ticks at once (a barrier releases them together); the personas whose turn started."""
    barrier = threading.Barrier(len(managers))

    def tick(m: SAIVerseManager) -> list[Any]:
        barrier.wait(30)
        return m.autonomous_tick(now)

    results, errors = together(tick, managers)
    assert errors == []
    started = [h for handles in results for h in handles]
    for h in started:
        assert h.done.wait(120), f"pulse {h.pulse_id} never ended"
        assert h.record.status == "ok"
    return sorted(h.record.persona_id for h in started)


def test_managers_ticking_at_once_start_one_turn_each_per_interval(
        city: str, make_manager: Callable[..., SAIVerseManager]) -> None:
    first = make_manager()
    _auto_city(first)
    windows = [first, make_manager(), make_manager()]  # three processes' views of one city
    t0 = datetime.now()
    assert _tick_together(windows, t0) == sorted(AUTO)  # the first turns: once each, not three times
    assert _tick_together(windows, t0 + timedelta(seconds=30)) == []  # within the interval: nobody
    assert _tick_together(windows, t0 + timedelta(seconds=60)) == sorted(AUTO)  # the next interval, once
    assert _tick_together(windows, t0 + timedelta(seconds=61)) == []
    for m in windows:
        m.close()
    reopened = make_manager()  # a restart keeps the times: no burst of turns on opening
    assert reopened.autonomous_tick(t0 + timedelta(seconds=90)) == []
    again = reopened.autonomous_tick(t0 + timedelta(seconds=120))
    assert sorted(h.record.persona_id for h in again) == sorted(AUTO)
    assert all(h.done.wait(120) for h in again)
    last = reopened.auto_turns.last("kai")
    assert last is not None and abs(last.timestamp() - (t0 + timedelta(seconds=120)).timestamp()) < 1e-3
    reopened.autonomous = False
    assert reopened.autonomous_tick(t0 + timedelta(seconds=600)) == []  # switched off: no claims either
    reopened.autonomous = True
    reopened.admin.update_persona("rin", {"interaction_mode": "user"})
    later = reopened.autonomous_tick(t0 + timedelta(seconds=600))
    assert sorted(h.record.persona_id for h in later) == ["kai", "tao"]
    assert all(h.done.wait(120) for h in later)


@pytest.fixture(params=["sqlite", "postgresql"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Database]]:
    """Eight engines (eight processes' pools) on one migrated database."""
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_url")
        dbs = [Database(url, workers=1) for _ in range(8)]
        migrate_pg(dbs[0].engine)
    else:
        migrate(tmp_path / "w.db", backup=False)
        dbs = [Database(f"sqlite:///{tmp_path / 'w.db'}", workers=1) for _ in range(8)]
    yield dbs
    for db in dbs:
        db.dispose()


def _race(databases: list[Database], personas: list[tuple[str, int]], now: datetime) -> list[str]:
    """Every engine claims `personas` at `now`, released together; the personas taken, one entry per win."""
    barrier = threading.Barrier(len(databases))

    def claim(db: Database) -> set[str]:
        barrier.wait(30)
        return AutonomousTurns(db).claim(personas, now)

    won, errors = together(claim, databases)
    assert errors == []
    return sorted(p for w in won for p in w)


def test_claims_race_and_exactly_one_wins(databases: list[Database]) -> None:
    """Eight claimers of the same 600 personas (more than one statement's chunk) at the same moment,
    for ten rounds one interval apart: every persona is taken exactly once a round."""
    personas = [(f"p{i:03d}", 60) for i in range(600)]
    t0 = datetime(2026, 1, 1, 12, 0, 0, 123456)
    for round_ in range(10):
        assert _race(databases, personas, t0 + timedelta(seconds=60 * round_)) == [p for p, _ in personas], round_
    turns = AutonomousTurns(databases[0])
    assert turns.claim(personas, t0 + timedelta(seconds=60 * 9 + 59, microseconds=999_999)) == set()
    assert turns.claim([("p000", 30)], t0 + timedelta(seconds=60 * 9 + 30)) == {"p000"}  # a shorter interval
    assert turns.claim([("new", 60)], t0) == {"new"}  # a persona's first turn is due at once


def test_a_round_with_nothing_due_writes_nothing(tmp_path: Path) -> None:
    """The stored times are read first: while another process holds SQLite's write lock, a round in
    which nobody is due still answers at once (it never asks for the lock)."""
    import sqlite3

    migrate(tmp_path / "w.db", backup=False)
    db = Database(f"sqlite:///{tmp_path / 'w.db'}", workers=1)
    try:
        turns = AutonomousTurns(db)
        t0 = datetime(2026, 1, 1, 12, 0, 0)
        assert turns.claim([("kai", 60), ("rin", 60)], t0) == {"kai", "rin"}
        writer = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
        try:
            writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
            assert turns.claim([("kai", 60), ("rin", 60)], t0 + timedelta(seconds=59)) == set()
            writer.execute("ROLLBACK")
        finally:
            writer.close()
        assert turns.claim([("kai", 60), ("rin", 120)], t0 + timedelta(seconds=60)) == {"kai"}
    finally:
        db.dispose()
