"""Opening the world's database: SQLite in the home (the default) or PostgreSQL (docs/ARCHITECTURE.md,
"Storage").

SQLite: the file is checked (not upstream's), backed up before a migration changes it, and migrated
(database/migrate.py). PostgreSQL (`SAIVERSE_DATABASE_URL=postgresql+psycopg://…`): the same steps
in PostgreSQL's SQL (database/migrate_pg.py), under an advisory lock so several processes opening
one city migrate it once; production runs checkpoint there too (PostgresSaver). A PostgreSQL city
is backed up like a SQLite home — daily, before a delete, by hand — into the same archive, read from
one snapshot of its database (saiverse/care/_pgcopy.py). A home a killed restore into PostgreSQL
left unfinished is refused before anything is migrated (saiverse/care/_restore_pg.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from database.engine import Database, is_postgres
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from saiverse.importer.source import refuse_upstream_home
from saiverse.settings import Settings

log = logging.getLogger(__name__)

def open_database(settings: Settings, before_migration: Callable[[Path, int], Path], *, workers: int) -> Database:
    """The migrated database of `settings`, its pool sized to `workers` pulse workers."""
    if is_postgres(settings.database_url):
        from saiverse.care import settle_pending_restore

        db = Database(settings.database_url, workers=workers)
        try:
            note = settle_pending_restore(settings.home, db.engine, settings.database_url, remove_unfinished=False)
            if note:
                log.warning("%s", note)
            report = migrate_pg(db.engine)
        except Exception:
            db.dispose()
            raise
        if report.applied:
            log.info("PostgreSQL schema migrated: %s", ", ".join(report.applied))
        return db
    from saiverse.care import refuse_marked_sqlite_home

    refuse_marked_sqlite_home(settings.home)
    refuse_upstream_home(settings.home, settings.db_path)
    migrate(settings.db_path, before_change=before_migration)
    from database.clean_engine import CleanCloseDatabase

    # Stamped when it closes cleanly, so the next open skips the full integrity check (database/clean_close.py).
    return CleanCloseDatabase(settings.database_url, workers=workers)


def backup_hook(settings: Settings, take: Callable[[str], Path]) -> Callable[[str], Path]:
    """The delete hook's backup: the home's archive, on either backend (the archive reads a
    PostgreSQL city from a snapshot of its database)."""
    return take


def daily_backup(settings: Settings, daily: Callable[[], object]) -> list[Callable[[], object]]:
    """The ticker's chores: the daily archive, on either backend."""
    return [daily]


def checkpoints_of(settings: Settings) -> Path | str:
    """Where production runs checkpoint: the home's `checkpoints.db`, or the city's PostgreSQL database."""
    return settings.database_url if is_postgres(settings.database_url) else settings.checkpoints_path
