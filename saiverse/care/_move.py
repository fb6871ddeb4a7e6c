"""`python main.py move --to postgresql+psycopg://…`: a SQLite home's world into an empty PostgreSQL database.

The home's SQLite file is migrated to the current schema (backed up first, as on every opening), the
target gets the same schema from the same steps (database/migrate_pg.py), and every table's rows are
copied in one PostgreSQL transaction — all of them or, on any error, none — in foreign-key order,
values as stored (timestamps as SQLite keeps them, parsed by PostgreSQL). SQLite's recall index
(FTS5) is not copied: PostgreSQL's pg_trgm index builds itself from the rows. Identity counters
continue after the copied ids. The counts of every table are then compared, source against target.

The target must be empty (no table in its schema), and no other process may have the home open.
Item files stay where they are, under the home: after the move, start the app with
`SAIVERSE_DATABASE_URL` set to the target (in the home's `.env`, for instance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import MetaData, create_engine, inspect, text

from database.engine import is_postgres, make_engine
from database.migrate import migrate
from database.migrate_pg import SQLITE_ONLY_TABLES, migrate_pg
from saiverse.errors import UsageError
from saiverse.settings import Settings

BATCH = 2000
SKIPPED = SQLITE_ONLY_TABLES | {"schema_version"}


@dataclass
class MoveReport:
    """What was copied: rows per table, equal on both sides."""

    target: str
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"moved": True, "target": self.target, "counts": self.counts, "total": sum(self.counts.values())}


def _masked(url: str) -> str:
    import re

    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1****@", url)


def _clean(value: Any) -> Any:
    # PostgreSQL's text cannot hold NUL (SAIMemory replaces it the same way on PostgreSQL).
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


def move_to(settings: Settings, url: str, before_migration: Any) -> MoveReport:
    """Copy the home's SQLite world into the empty PostgreSQL database at `url` (see the module doc)."""
    if not is_postgres(url):
        raise UsageError("move --to takes a postgresql+psycopg://USER@HOST:PORT/DB URL")
    if is_postgres(settings.database_url):
        raise UsageError("this home's world is already in PostgreSQL (SAIVERSE_DATABASE_URL); move copies from SQLite")
    if not settings.db_path.is_file():
        raise UsageError(f"there is no world to move: {settings.db_path} does not exist")
    target = make_engine(url, workers=1)
    try:
        try:
            existing = inspect(target).get_table_names()
        except Exception as exc:  # noqa: BLE001 - any connection failure is the user's URL or server
            raise UsageError(f"cannot reach {_masked(url)}: {str(exc).splitlines()[0]}") from exc
        if existing:
            raise UsageError(f"{_masked(url)} is not empty ({len(existing)} tables, e.g. {sorted(existing)[0]}); "
                             "move copies into an empty database only")
        migrate(settings.db_path, before_change=before_migration)
        migrate_pg(target)
        return _copy(settings, target, url)
    finally:
        target.dispose()


def _copy(settings: Settings, target: Any, url: str) -> MoveReport:
    source = create_engine(settings.database_url)
    report = MoveReport(_masked(url))
    try:
        meta = MetaData()
        meta.reflect(source)
        dest_meta = MetaData()
        dest_meta.reflect(target)
        with source.connect() as src, target.begin() as dst:
            for table in meta.sorted_tables:
                name = table.name
                if name in SKIPPED or name.startswith("saimemory_fts") or name.startswith("sqlite_"):
                    continue
                dest = dest_meta.tables[name.lower()]
                columns = [c.name for c in table.columns]
                by_lower = {c.name.lower(): c.name for c in dest.columns}
                names = [by_lower[c.lower()] for c in columns]
                rows = src.exec_driver_sql(f'SELECT {", ".join(columns)} FROM "{name}"')
                while chunk := rows.fetchmany(BATCH):
                    dst.execute(dest.insert(), [dict(zip(names, map(_clean, r), strict=True)) for r in chunk])
                report.counts[name] = int(src.exec_driver_sql(f'SELECT count(*) FROM "{name}"').scalar() or 0)
            for name in report.counts:
                for col in inspect(dst).get_columns(name.lower()):
                    if col.get("identity"):
                        dst.execute(text(f"SELECT setval(pg_get_serial_sequence('{name.lower()}', '{col['name']}'), "
                                         f'coalesce((SELECT max({col["name"]}) FROM "{name.lower()}"), 0) + 1, false)'))
            for name, count in report.counts.items():
                copied = int(dst.execute(text(f'SELECT count(*) FROM "{name.lower()}"')).scalar() or 0)
                if copied != count:
                    raise RuntimeError(f"table {name}: {count} rows in SQLite, {copied} copied; nothing was kept")
    finally:
        source.dispose()
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
