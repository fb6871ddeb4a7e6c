"""Engine and session setup: SQLite in WAL mode with foreign keys and a busy timeout.

SQLite only: the migrations and SAIMemory's full-text recall use SQLite features (FTS5, triggers),
so another database would open and then fail. A server database is later work
(docs/ARCHITECTURE.md, "Storage").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

BUSY_TIMEOUT_MS = 5000


def make_engine(url: str) -> Engine:
    """An engine for a `sqlite:///` URL: WAL, foreign keys and a busy timeout on every connection."""
    if not url.startswith("sqlite:///"):
        raise ValueError(f"only SQLite databases are supported (sqlite:///PATH), got {url.split(':', 1)[0]}:…")
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.close()

    return engine


class Database:
    """The engine plus a session factory; `session()` commits on success, rolls back on error."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._factory = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        s = self._factory()
        try:
            yield s
            s.commit()
        except BaseException:
            s.rollback()
            raise
        finally:
            s.close()

    def dispose(self) -> None:
        self.engine.dispose()
