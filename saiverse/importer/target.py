"""The target home's database during an import: one write transaction, and what it already holds.

The whole database part of an import is one `BEGIN IMMEDIATE … COMMIT` on one connection, so a
failure (or a kill) leaves nothing of it behind. Bulk rows go through the raw sqlite3 connection
(`executemany`); code written against `Database` — the playbook catalog's validation and `store` —
gets a `JoinedDatabase` whose sessions are savepoints inside that same transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from database.engine import session_scope

BUSY_TIMEOUT_MS = 30_000
CACHE_KIB = 16_384
"""Page cache of the import connection: fewer spills of a large transaction to the WAL."""


def import_engine(db_path: Path) -> Engine:
    """An engine whose transactions start with BEGIN IMMEDIATE (the write lock is taken up front)."""
    engine = create_engine(f"sqlite:///{db_path}", poolclass=NullPool,
                           connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        dbapi_conn.isolation_level = None  # our BEGIN below, not the driver's implicit one
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       f"busy_timeout={BUSY_TIMEOUT_MS}", f"cache_size=-{CACHE_KIB}"):
            dbapi_conn.execute(f"PRAGMA {pragma}")

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def raw(conn: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under `conn` (same transaction), for executemany."""
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


class JoinedDatabase:
    """A `Database` stand-in whose sessions are savepoints in an open connection's transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    @contextmanager
    def session(self) -> Iterator[Session]:
        with session_scope(Session(bind=self.conn, join_transaction_mode="create_savepoint",
                                   expire_on_commit=False)) as s:
            yield s


def _from_upstream(extra: str | None) -> bool:
    try:
        data = json.loads(extra or "{}")
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "upstream" in data


@dataclass
class TargetState:
    """The ids the target already has, read inside the import transaction."""

    cities: set[str] = field(default_factory=set)
    buildings: dict[str, bool] = field(default_factory=dict)
    """Building id → whether it came from an earlier SAIVerse import."""
    building_names: dict[str, str] = field(default_factory=dict)
    personas: dict[str, bool] = field(default_factory=dict)
    """Persona id → whether it came from an earlier SAIVerse import."""
    persona_names: dict[str, str] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    schedules: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    playbooks: dict[str, str] = field(default_factory=dict)
    user_exists: bool = False
    next_sort: int = 0

    @property
    def has_world(self) -> bool:
        return bool(self.cities or self.buildings or self.personas)

    def describe(self) -> str:
        return f"{len(self.cities)} city, {len(self.buildings)} buildings, {len(self.personas)} personas"



def read_state(db: sqlite3.Connection) -> TargetState:
    state = TargetState()
    state.cities = {r[0] for r in db.execute("SELECT CITYID FROM city")}
    for bid, name, extra in db.execute("SELECT BUILDINGID, BUILDINGNAME, EXTRA_JSON FROM building"):
        state.buildings[bid] = _from_upstream(extra)
        state.building_names[bid] = name
    for pid, name, extra in db.execute("SELECT AIID, AINAME, EXTRA_JSON FROM ai"):
        state.personas[pid] = _from_upstream(extra)
        state.persona_names[pid] = name
    state.items = {r[0] for r in db.execute("SELECT ITEM_ID FROM item")}
    state.schedules = {r[0] for r in db.execute("SELECT SCHEDULE_ID FROM schedule")}
    state.events = {r[0] for r in db.execute("SELECT EVENT_ID FROM persona_event_log")}
    state.playbooks = dict(db.execute("SELECT NAME, PLAYBOOK_JSON FROM playbooks").fetchall())
    state.user_exists = db.execute("SELECT 1 FROM user LIMIT 1").fetchone() is not None
    state.next_sort = int(db.execute("SELECT coalesce(max(SORT_ORDER) + 1, 0) FROM building").fetchone()[0])
    return state


def world_summary(db_path: Path) -> str | None:
    """"N cities, N buildings, N personas" when the database already holds a world (None otherwise).

    Read before any migration, so only tables every schema version has are queried.
    """
    if not db_path.exists() or db_path.stat().st_size == 0:
        return None
    conn = sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"city", "building", "ai"} <= tables:
            return None
        counts = [int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in ("city", "building", "ai")]
    finally:
        conn.close()
    if not any(counts):
        return None
    return f"{counts[0]} city, {counts[1]} buildings, {counts[2]} personas"
