"""A world's rows between SQLite and PostgreSQL: the copies behind backup, restore and `move` of a PostgreSQL city.

- `snapshot_pg`: a PostgreSQL city as a SQLite file of the same schema, read in ONE `REPEATABLE READ
  READ ONLY` transaction. PostgreSQL's repeatable read is snapshot isolation: every statement of the
  transaction sees the database as of its first query, and a concurrent writer's transaction is seen
  whole or not at all — the same snapshot `pg_dump` takes. The city's writers run at READ COMMITTED
  (never SERIALIZABLE), so the read-only anomaly SERIALIZABLE READ ONLY DEFERRABLE guards against
  cannot arise, and the backup never waits for writers nor makes them wait (docs/ARCHITECTURE.md,
  "Storage"). The SQLite file is built by the SQLite migration steps (database/migrate.py) up to the
  city's schema version, so its recall index (FTS5 over grams) is the one SQLite's triggers fill as
  each SAIMemory row goes in: recall works on the copy as on a world that was always in SQLite.
  Production checkpoints (PostgresSaver's tables) are read in the same transaction and written into
  a SqliteSaver file (saiverse/care/_pgcheckpoints.py).
- `copy_sqlite_into_pg`: a SQLite world into an open PostgreSQL transaction, after `create_schema_pg`
  made the schema in that same transaction — so a kill anywhere before the commit leaves the
  database as empty as it was.

Values: PostgreSQL's `TIMESTAMP` comes back as `datetime` and is written as SQLite's own text
(`YYYY-MM-DD HH:MM:SS[.ffffff]`, what CURRENT_TIMESTAMP and SQLAlchemy write); SQLite's text goes to
PostgreSQL as stored and is parsed there. PostgreSQL's text cannot hold NUL: it becomes U+FFFD, as
SAIMemory does on PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, MetaData, create_engine, inspect, text

from database.migrate_pg import MIGRATION_LOCK, SQLITE_ONLY_TABLES, current_version_pg, pg_sql, statements
from database.steps import STEPS
from saiverse.errors import UserError

BATCH = 2000
CHECKPOINT_TABLES = frozenset({"checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"})
"""PostgresSaver's tables (langgraph-checkpoint-postgres): made by its own `setup()`, outside the world's steps."""


class CopyError(UserError):
    """A copy between the backends that cannot be made or did not come out equal; nothing was kept."""


def masked(url: str) -> str:
    """`url` with its password replaced by `****` (a password is a key: never shown)."""
    import re

    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1****@", url)


def world_table(name: str) -> bool:
    """Whether a SQLite table holds world rows to copy (not the schema record, not SQLite's recall index)."""
    low = name.lower()
    return not (low in SQLITE_ONLY_TABLES or low == "schema_version" or low.startswith("saimemory_fts")
                or low.startswith("sqlite_"))


def sqlite_tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The world tables of a SQLite database and their columns, in the file's order."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
    return {n: [r[1] for r in conn.execute(f'PRAGMA table_info("{n}")')] for n in names if world_table(n)}


def pg_problem(conn: Connection, url: str) -> str | None:
    """Why the PostgreSQL database is not an empty target (None when it is).

    PostgresSaver's tables, empty, do not count: a copy killed after making them (they cannot be
    made inside a transaction) left nothing of a world."""
    names = inspect(conn).get_table_names()
    world = sorted(n for n in names if n not in CHECKPOINT_TABLES)
    if world:
        return f"{masked(url)} is not empty ({len(world)} tables, e.g. {world[0]})"
    for name in sorted(set(names) & (CHECKPOINT_TABLES - {"checkpoint_migrations"})):
        if conn.execute(text(f"SELECT EXISTS (SELECT 1 FROM {name})")).scalar():
            return f"{masked(url)} is not empty (its {name} table holds rows)"
    return None


def reach(engine: Any, url: str) -> Connection:
    """A connection to `url`, or one line saying why there is none."""
    try:
        return engine.connect()
    except Exception as exc:  # noqa: BLE001 - any connection failure is the user's URL or server
        raise CopyError(f"cannot reach {masked(url)}: {str(exc).strip().splitlines()[0]}") from exc


def fill_empty_pg(conn: Connection, url: str, db_path: Path, checkpoints: Path | None,
                  put_checkpoints: Callable[[Path, Connection], object],
                  refuse: Callable[[str], Exception]) -> dict[str, int]:
    """A SQLite world (and its checkpoints file, if there is one) into an empty PostgreSQL database,
    inside `conn`'s open transaction: the schema and the rows commit together or not at all (a move or
    a restore killed before the commit leaves the database empty). Emptiness is checked again under
    the migration lock: another writer may have come meanwhile; `refuse(problem)` is raised then.
    Rows per table."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
    problem = pg_problem(conn, url)
    if problem:
        raise refuse(problem)
    create_schema_pg(conn)
    counts = copy_sqlite_into_pg(db_path, conn)
    if checkpoints is not None and checkpoints.is_file():
        put_checkpoints(checkpoints, conn)
    return counts


def create_schema_pg(conn: Connection) -> int:
    """Apply every migration step to an empty PostgreSQL database inside `conn`'s open transaction.

    The same steps and SQL as database/migrate_pg.py, but not committed step by step: the schema
    commits with the rows the caller copies, or not at all. Returns the version reached."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
    conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS schema_version (VERSION INTEGER PRIMARY KEY, NAME TEXT NOT NULL, "
                         "APPLIED_AT TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
    for step in STEPS:
        for stmt in statements(pg_sql(step)):
            conn.exec_driver_sql(stmt)
        conn.execute(text("INSERT INTO schema_version (VERSION, NAME) VALUES (:v, :n)"),
                     {"v": step.version, "n": step.name})
    return STEPS[-1].version


def _to_pg(value: Any) -> Any:
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


def copy_sqlite_into_pg(sqlite_path: Path, dst: Connection) -> dict[str, int]:
    """Every world row of the SQLite file into `dst` (schema made, transaction open); rows per table.

    Tables go in foreign-key order; identity counters continue after the copied ids; each table's
    count is compared, source against target, before the caller commits."""
    source = create_engine(f"sqlite:///{sqlite_path}")
    counts: dict[str, int] = {}
    try:
        meta = MetaData()
        meta.reflect(source)
        dest_meta = MetaData()
        dest_meta.reflect(dst)
        with source.connect() as src:
            for table in meta.sorted_tables:
                name = table.name
                if not world_table(name):
                    continue
                dest = dest_meta.tables[name.lower()]
                columns = [c.name for c in table.columns]
                by_lower = {c.name.lower(): c.name for c in dest.columns}
                names = [by_lower[c.lower()] for c in columns]
                rows = src.exec_driver_sql(f'SELECT {", ".join(columns)} FROM "{name}"')
                while chunk := rows.fetchmany(BATCH):
                    dst.execute(dest.insert(), [dict(zip(names, map(_to_pg, r), strict=True)) for r in chunk])
                counts[name] = int(src.exec_driver_sql(f'SELECT count(*) FROM "{name}"').scalar() or 0)
        for name in counts:
            for col in inspect(dst).get_columns(name.lower()):
                if col.get("identity"):
                    dst.execute(text(f"SELECT setval(pg_get_serial_sequence('{name.lower()}', '{col['name']}'), "
                                     f'coalesce((SELECT max({col["name"]}) FROM "{name.lower()}"), 0) + 1, false)'))
        for name, count in counts.items():
            copied = int(dst.execute(text(f'SELECT count(*) FROM "{name.lower()}"')).scalar() or 0)
            if copied != count:
                raise CopyError(f"table {name}: {count} rows in SQLite, {copied} copied; nothing was kept")
    finally:
        source.dispose()
    return counts


def _to_sqlite(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")  # naive UTC, as SQLite's CURRENT_TIMESTAMP writes it
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def open_snapshot(conn: Connection) -> int:
    """Start `conn`'s transaction as the consistent read-only snapshot (module doc); the city's schema version.

    Called before `conn` ran any statement: the isolation level is set as its transaction begins."""
    conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    return current_version_pg(conn)


def copy_pg_into_sqlite(src: Connection, dest: Path) -> dict[str, int]:
    """Every world row `src`'s snapshot sees into the SQLite file `dest` (migrated to the same schema,
    holding no world yet), in one SQLite transaction; rows per table, compared on both sides."""
    conn = sqlite3.connect(dest, isolation_level=None)
    counts: dict[str, int] = {}
    try:
        # A rollback journal, not WAL: the file is self-contained (an archive's entry, like a SQLite
        # snapshot's), and a kill mid-copy leaves only names a backup's debris sweep knows.
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA foreign_keys=OFF")  # rows go in table by table; the whole is checked below
        conn.execute("BEGIN IMMEDIATE")
        for name, columns in sqlite_tables(conn).items():
            conn.execute(f'DELETE FROM "{name}"')  # whatever a migration step seeded: the city's rows win
            result = src.execution_options(stream_results=True, yield_per=BATCH).exec_driver_sql(
                f'SELECT {", ".join(c.lower() for c in columns)} FROM "{name.lower()}"')
            insert = f'INSERT INTO "{name}" ({", ".join(columns)}) VALUES ({", ".join("?" * len(columns))})'
            for chunk in result.partitions(BATCH):
                conn.executemany(insert, [tuple(map(_to_sqlite, r)) for r in chunk])
            want = int(src.exec_driver_sql(f'SELECT count(*) FROM "{name.lower()}"').scalar() or 0)
            got = int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
            if want != got:
                raise CopyError(f"table {name}: {want} rows in PostgreSQL, {got} copied; nothing was kept")
            counts[name] = got
        broken = conn.execute("PRAGMA foreign_key_check").fetchone()
        if broken:
            raise CopyError(f"the copy of table {broken[0]} names a missing {broken[2]} row; nothing was kept")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
    return counts


def snapshot_pg(url: str, dest: Path, checkpoints: Path | None = None) -> tuple[int, dict[str, int]]:
    """The PostgreSQL city at `url` as the new SQLite file `dest` (and its production checkpoints as
    `checkpoints`, when it has any), from one snapshot; (schema version, rows per table)."""
    from database import make_engine
    from database.migrate import migrate
    from saiverse.care._pgcheckpoints import pg_checkpoints_into_sqlite

    engine = make_engine(url, workers=1)
    try:
        with reach(engine, url) as conn:
            version = open_snapshot(conn)
            if version == 0:
                raise CopyError(f"{masked(url)} holds no SAIVerse world (no schema_version table)")
            if version > STEPS[-1].version:
                raise CopyError(f"{masked(url)} holds schema version {version}, newer than this SAIVerse knows "
                                f"({STEPS[-1].version}); upgrade SAIVerse to copy it")
            migrate(dest, target=version, backup=False)
            counts = copy_pg_into_sqlite(conn, dest)
            if checkpoints is not None:
                pg_checkpoints_into_sqlite(conn, checkpoints)
            conn.rollback()  # read only: nothing to keep
    finally:
        engine.dispose()
    return version, counts
