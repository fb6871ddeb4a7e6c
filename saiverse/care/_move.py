"""`python main.py move --to postgresql+psycopg://…`: a SQLite home's world into an empty PostgreSQL database.

The home's SQLite file is migrated to the current schema (backed up first, as on every opening); then
in ONE PostgreSQL transaction the target gets the same schema from the same steps (database/migrate_pg.py)
and every table's rows, in foreign-key order, values as stored (timestamps as SQLite keeps them,
parsed by PostgreSQL) — all of it or, on any error or kill, none (saiverse/care/_pgcopy.py). SQLite's
recall index (FTS5) is not copied: PostgreSQL's pg_trgm index builds itself from the rows. Identity
counters continue after the copied ids. The counts of every table are compared, source against
target, before the commit. Production checkpoints (`checkpoints.db`) go into PostgresSaver's tables
(saiverse/care/_pgcheckpoints.py). `move --to sqlite` is the way back (saiverse/care/_move_back.py).

The target must be empty (no table in its schema), and no other process may have the home open.
Item files stay where they are, under the home: after the move, start the app with
`SAIVERSE_DATABASE_URL` set to the target (in the home's `.env`, for instance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from database.engine import is_postgres, make_engine
from database.migrate import migrate
from saiverse.care._pgcopy import fill_empty_pg, masked, pg_problem, reach
from saiverse.errors import UsageError
from saiverse.settings import Settings


@dataclass
class MoveReport:
    """What was copied: rows per table, equal on both sides."""

    target: str
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"moved": True, "target": self.target, "counts": self.counts, "total": sum(self.counts.values())}


def move_to(settings: Settings, url: str, before_migration: Any) -> MoveReport:
    """Copy the home's SQLite world into the empty PostgreSQL database at `url` (see the module doc)."""
    if not is_postgres(url):
        raise UsageError("move --to takes a postgresql+psycopg://USER@HOST:PORT/DB URL, or `sqlite` to bring a "
                         "PostgreSQL city back")
    if is_postgres(settings.database_url):
        raise UsageError("this home's world is already in PostgreSQL (SAIVERSE_DATABASE_URL); move copies from SQLite "
                         "(`move --to sqlite` brings it back)")
    if not settings.db_path.is_file():
        raise UsageError(f"there is no world to move: {settings.db_path} does not exist")
    target = make_engine(url, workers=1)
    try:
        with reach(target, url) as conn:
            problem = pg_problem(conn, url)
        if problem:
            raise UsageError(f"{problem}; move copies into an empty database only")
        migrate(settings.db_path, before_change=before_migration)
        return _copy(settings, target, url)
    finally:
        target.dispose()


def _copy(settings: Settings, target: Any, url: str) -> MoveReport:
    # The schema and the rows in ONE transaction (saiverse/care/_pgcopy.py): a kill before the commit
    # leaves the database empty, so the move can simply be run again.
    from saiverse.care._pgcheckpoints import setup_pg_checkpoints, sqlite_checkpoints_into_pg

    checkpoints = settings.checkpoints_path
    if checkpoints.is_file():
        setup_pg_checkpoints(url)  # PostgresSaver's empty tables (they cannot be made in a transaction)
    report = MoveReport(masked(url))
    with reach(target, url) as dst:
        report.counts = fill_empty_pg(dst, url, settings.db_path, checkpoints, sqlite_checkpoints_into_pg,
                                      lambda problem: UsageError(f"{problem} (written meanwhile); nothing was moved"))
        dst.commit()
    return report


def move_home(settings: Settings, url: str) -> MoveReport:
    """Copy the home's SQLite world into the empty PostgreSQL database at `url` (see `move_to`), while
    no other process has the home open. Raises UsageError when there is nothing to move or the home is
    open elsewhere."""
    from saiverse.care._backup_auto import BackupStore
    from saiverse.locks import HomeLock

    if not settings.db_path.is_file():
        raise UsageError(f"there is no world to move: {settings.db_path} does not exist")
    lock = HomeLock(settings.home)
    try:
        with lock.alone() as alone:
            if not alone:
                raise UsageError("another SAIVerse process has this home open (is the app running?); close it first")
            store = BackupStore(settings.home, settings.db_path, checkpoints_path=settings.checkpoints_path,
                                keep=lambda: settings.backup_keep)
            return move_to(settings, url, store.before_migration)
    finally:
        lock.close()
