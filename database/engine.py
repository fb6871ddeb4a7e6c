"""Engine and session setup: SQLite in WAL mode with foreign keys and a busy timeout, or PostgreSQL.

SQLite in the home is the default. A `postgresql+psycopg://` URL opens PostgreSQL (psycopg 3) with
its schema from database/migrate_pg.py — the same ordered steps in PostgreSQL's SQL. Both engines
size their connection pool to the pulse workers (docs/ARCHITECTURE.md, "Storage").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Row, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool

BUSY_TIMEOUT_MS = 5000
SPARE_CONNECTIONS = 8
"""Connections beyond the pulse workers: the ticker, the Chronicle worker, production runs, the UI."""
POOL_TIMEOUT_S = 120


def pool_options(workers: int) -> dict[str, int]:
    """QueuePool sizing for `workers` pulse workers: each worker holds at most one session at a time.

    The pool keeps one connection per worker plus spares; the overflow covers bursts of UI threads.
    With a bounded pulse executor (saiverse/pulse/_pool.py) the threads that touch the database are
    bounded, so the pool never runs dry the way a thread per persona made it (docs/ARCHITECTURE.md,
    "Storage")."""
    size = max(1, workers) + SPARE_CONNECTIONS
    return {"pool_size": size, "max_overflow": size * 2, "pool_timeout": POOL_TIMEOUT_S}


POSTGRES_PREFIX = "postgresql+psycopg://"


def is_postgres(url: str) -> bool:
    """Whether `url` names a PostgreSQL database (psycopg 3)."""
    return url.startswith(POSTGRES_PREFIX)


def libpq_url(url: str) -> str:
    """SQLAlchemy's `postgresql+psycopg://` URL as psycopg (and procrastinate) take it."""
    return url.replace(POSTGRES_PREFIX, "postgresql://", 1)


def named(row: Row[Any]) -> dict[str, Any]:
    """A raw (`text()`) row as a dict keyed by its column names in upper case, as the schema spells them.

    The schema's names are unquoted (database/models.py `_unquoted_names`), so PostgreSQL folds them to
    lower case and hands rows back keyed `aiid` where SQLite says `AIID`: code that reads a raw row by
    name reads it through here, on either backend. A time comes back as the text SQLite stores
    (`YYYY-MM-DD HH:MM:SS[.ffffff]`), not as PostgreSQL's `datetime`, so what reads it (JSON for the CLI
    and the tools) sees the same value on both."""
    return {key.upper(): value.isoformat(sep=" ") if isinstance(value, datetime) else value
            for key, value in row._mapping.items()}


def make_engine(url: str, *, workers: int = 8) -> Engine:
    """An engine for a `sqlite:///` URL (WAL, foreign keys, a busy timeout on every connection) or a
    `postgresql+psycopg://` URL (sessions in UTC, like SQLite's CURRENT_TIMESTAMP)."""
    if is_postgres(url):
        return create_engine(url, poolclass=QueuePool, pool_pre_ping=True,
                             connect_args={"options": "-c timezone=UTC"}, **pool_options(workers))
    if not url.startswith("sqlite:///"):
        raise ValueError("the database URL must be sqlite:///PATH or postgresql+psycopg://…, "
                         f"got {url.split(':', 1)[0]}:…")
    # LIFO: a checkout takes the connection returned last, so a user's turn (its reads, its two writes)
    # mostly runs on one connection, whose page cache its own commits leave valid — SQLite drops a
    # connection's cache when another connection wrote since (FIFO went round all of the pool's).
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
                           poolclass=QueuePool, pool_use_lifo=True, **pool_options(workers))

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.close()

    return engine


@contextmanager
def session_scope(s: Session) -> Iterator[Session]:
    """`s` committed when the block ends, rolled back when it raises, closed either way."""
    try:
        yield s
        s.commit()
    except BaseException:
        s.rollback()
        raise
    finally:
        s.close()


WRITE_LOCK_KEY = 0x5A1_0001
"""The PostgreSQL advisory lock of `Database.session(write=True)` (one number for the whole city)."""


class Database:
    """The engine plus a session factory; `session()` commits on success, rolls back on error."""

    def __init__(self, url: str, *, workers: int = 8) -> None:
        self.url = url
        self.engine = make_engine(url, workers=workers)
        self._factory = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self, *, write: bool = False) -> Iterator[Session]:
        """A unit of work. `write=True` for one that reads what it then writes (the smallest free item slot,
        a next number): it holds the store's write lock from its first statement, so a concurrent writer
        waits for it instead of reading the same state. SQLite's default transaction begins only at the
        first write, after the reads; two such units would both read slot 3 and the second be refused by
        the unique index. SQLite: `BEGIN IMMEDIATE` (waits up to the busy timeout); PostgreSQL: a
        transaction-scoped advisory lock that every write unit takes."""
        with session_scope(self._factory()) as s:
            if write:
                if is_postgres(self.url):
                    s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": WRITE_LOCK_KEY})
                else:
                    s.connection().exec_driver_sql("BEGIN IMMEDIATE")
            yield s

    def dispose(self) -> None:
        self.engine.dispose()
