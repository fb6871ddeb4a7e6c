"""The migration script: brings any SAIVerse SQLite database to the current schema.

An ordered list of frozen steps (version, name, SQL; `database/steps.py`). Each step runs once inside one transaction
and records its version in `schema_version`; the file is backed up before the first change (and the
backup removed again when no step could be applied); a file that is not a SQLite database, or fails
SQLite's integrity check, is refused and left untouched. So is an upstream SAIVerse database
(maha0525/SAIVerse): its format is not ours, and the refusal names the `import-saiverse` command
that brings its city over.

Run as `python database/migrate.py [--db PATH]` (default: `$SAIVERSE_HOME/saiverse.db`).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

if __package__ in (None, ""):  # run as a script (`python database/migrate.py`): the repository root is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.clean_close import check_unless_closed_cleanly, integrity_checks_run  # noqa: E402
from database.debris import partial_name, remove_partial_backups  # noqa: E402
from database.foreign import foreign_database_problem  # noqa: E402
from database.locking import locked  # noqa: E402
from database.schema_check import schema_problem  # noqa: E402
from database.steps import (  # noqa: E402 - re-exported: importers and benchmarks read the SQL from here
    BASELINE_SQL,
    ITEM_EXTENSION_SQL,
    LATEST_VERSION,
    MEMORY_GRAM_INDEX_SQL,
    MEMORY_LINEAR_GRAMS_SQL,
    PRODUCTION_RUN_SQL,
    STEPS,
    UPSTREAM_AND_LONG_TERM_MEMORY_SQL,
    UPSTREAM_MESSAGE_METADATA_SQL,
    Step,
)
from database.upstream import (  # noqa: E402 - re-exported: the refusal is read from here too
    import_command,
    is_upstream_database,
    table_columns,
    upstream_home_of,
    upstream_refusal,
)

__all__ = [
    "BASELINE_SQL", "ITEM_EXTENSION_SQL", "LATEST_VERSION", "MEMORY_GRAM_INDEX_SQL", "MEMORY_LINEAR_GRAMS_SQL",
    "PRODUCTION_RUN_SQL", "STEPS", "UPSTREAM_AND_LONG_TERM_MEMORY_SQL", "UPSTREAM_MESSAGE_METADATA_SQL",
    "MigrationError", "MigrationReport", "Step", "integrity_checks_run",
    "UpstreamDatabaseError", "current_version", "import_command", "is_upstream_database", "migrate",
    "split_statements", "upstream_home_of", "upstream_refusal",
]

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000


class MigrationError(Exception):
    """A database that cannot be migrated; the message says why, for a person to read."""


class UpstreamDatabaseError(MigrationError):
    """An upstream SAIVerse (maha0525/SAIVerse) database: it is imported, never migrated in place."""


@dataclass
class MigrationReport:
    """What one run of the migration did."""

    db_path: Path
    version_before: int
    version_after: int
    applied: list[str] = field(default_factory=list)
    backup_path: Path | None = None

    def describe(self) -> str:
        if not self.applied:
            return f"{self.db_path}: already at schema version {self.version_after}; nothing to do."
        lines = [f"{self.db_path}: schema {self.version_before} → {self.version_after}"]
        lines += [f"  ✓ {name}" for name in self.applied]
        if self.backup_path:
            lines.append(f"  backup: {self.backup_path}")
        return "\n".join(lines)


def _check_header(path: Path) -> None:
    """Refuse a file that is not SQLite at all, reading only its first bytes."""
    if path.is_dir():
        raise MigrationError(f"{path} is a folder, not a database file. Nothing was changed. Point --db at "
                             "saiverse.db (or the home at its folder with --home).")
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_MAGIC))
    if header != SQLITE_MAGIC:
        raise MigrationError(
            f"{path} is not a SQLite database (its first bytes are not the SQLite header). "
            "Nothing was changed. Point --db at saiverse.db, or move this file away."
        )


def _check_writable(path: Path) -> None:
    """Refuse a database (or a folder for a new one) this process may not write: SAIVerse always writes."""
    if path.exists():
        if not os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            raise MigrationError(
                f"{path} is read-only for this user, and SAIVerse needs to write to it. Nothing was changed. "
                f"Give write permission back (chmod u+w {shlex.quote(str(path))}) or use a copy.")
        folder, what = path.parent, "the folder holding it"
    else:
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        what = "the folder it would be created in"
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise MigrationError(
            f"{folder} ({what}) is read-only for this user; SQLite writes its journal and SAIVerse its backups "
            f"beside {path.name}. Nothing was changed. Make the folder writable or move the database.")


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _check_is_sqlite(path: Path) -> None:
    """Refuse a damaged SQLite file, without writing to it (a -wal/-shm the check made goes again)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    sidecars = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    existed = {p for p in sidecars if p.exists()}
    try:
        try:
            conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
            try:
                result = conn.execute("PRAGMA quick_check").fetchone()
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise MigrationError(
                f"{path} cannot be read as a SQLite database ({_one_line(exc)}). Nothing was changed; restore it "
                f"from a backup ({path.name}.bak-*)."
            ) from exc
        if not result or result[0] != "ok":
            raise MigrationError(
                f"{path} is damaged (SQLite integrity check: {_one_line(result[0]) if result else 'no answer'}). "
                f"Nothing was changed; restore it from a backup ({path.name}.bak-*)."
            )
    except MigrationError:
        wal = path.with_name(path.name + "-wal")
        if wal not in existed and (not wal.exists() or wal.stat().st_size == 0):
            # The read-only check made them and they hold nothing: a refused file is left as it was.
            for made in (p for p in sidecars if p not in existed):
                made.unlink(missing_ok=True)
        raise


def _refuse_upstream(path: Path) -> None:
    """Refuse an upstream database before anything opens it for writing (immutable: no -wal/-shm made)."""
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            upstream = is_upstream_database(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return  # the integrity check that follows names the problem
    if upstream:
        raise UpstreamDatabaseError(upstream_refusal(str(path), upstream_home_of(path)))


def current_version(conn: sqlite3.Connection) -> int:
    """Schema version of an open database; recognises SAIVerse files made before versioning."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "schema_version" in tables:
        row = conn.execute("SELECT MAX(VERSION) FROM schema_version").fetchone()
        return int(row[0] or 0)
    if "item" not in tables:
        return 0
    # An unversioned SAIVerse database: the extension's ALTERs may or may not have been applied by hand.
    if "FILE_PATH" in table_columns(conn, "item") and "VISION_MODEL" in table_columns(conn, "ai"):
        return 2
    return 1


def _backup_name(path: Path, version: int) -> Path:
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    target = path.with_name(f"{path.name}.bak-{stamp}-v{version}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.bak-{stamp}-v{version}-{n}")
        n += 1
    return target


def _backup(conn: sqlite3.Connection, target: Path) -> None:
    """Copy the open database to `target` under a hidden name, renamed when complete (database/debris.py)."""
    partial = partial_name(target)
    try:
        dest = sqlite3.connect(partial)
        try:
            conn.backup(dest)
        finally:
            dest.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        partial.with_name(partial.name + "-journal").unlink(missing_ok=True)
        raise


def _probe_write_lock(conn: sqlite3.Connection) -> None:
    """Take and release the write lock: a database another process is writing is refused before any backup."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ROLLBACK")


_ADD_COLUMN = re.compile(r"^ALTER TABLE (\w+) ADD COLUMN (\w+)\s", re.IGNORECASE)


def _already_there(conn: sqlite3.Connection, statement: str) -> bool:
    """An `ALTER TABLE t ADD COLUMN c` whose column exists (a file where some were applied by hand)."""
    match = _ADD_COLUMN.match(statement)
    return bool(match) and match.group(2).upper() in {c.upper() for c in table_columns(conn, match.group(1))}


def _backup_with(before_change: BeforeChange, path: Path, version: int) -> Path:
    try:
        return before_change(path, version)
    except MigrationError:
        raise
    except Exception as exc:  # the hook's failure is reported as what it means here
        raise MigrationError(
            f"{path} was not migrated: the backup before migrating failed ({exc}). Nothing was changed."
        ) from exc


def split_statements(sql: str) -> list[str]:
    """Split a step's SQL on complete statements (trigger bodies contain semicolons)."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise MigrationError(f"incomplete SQL in migration: {buf.strip()[:80]}")
    return out


@contextmanager
def _migration_lock(path: Path) -> Iterator[None]:
    """One migrating process per database: version check, backup and steps happen under this lock,
    so processes started at the same moment never apply a step twice or each write a backup.

    The lock is a file lock on the database's folder (portable.py `open_lock`): it leaves no file
    behind, and it never touches the database file itself (closing a descriptor of that file would
    drop SQLite's own locks).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.parent):
        yield


BeforeChange = Callable[[Path, int], Path]
"""(database path, its version) → the backup written before a step changes the database. The app
passes one that archives the whole world (saiverse/care/_backup_auto.py); this script knows nothing of it."""


def migrate(db_path: str | Path, *, target: int = LATEST_VERSION, backup: bool = True,
            before_change: BeforeChange | None = None) -> MigrationReport:
    """Bring the database at `db_path` to schema version `target` (default: the latest).

    Before the first change to an existing database it is backed up: by `before_change` when given
    (its failure stops the migration with nothing changed), else as `<name>.bak-<stamp>-v<N>`.
    """
    path = Path(db_path).expanduser().resolve()
    _check_header(path)
    if path.exists() and path.stat().st_size > 0:
        _refuse_upstream(path)
        problem = foreign_database_problem(path)
        if problem:
            raise MigrationError(problem)
    _check_writable(path)
    check_unless_closed_cleanly(path, _check_is_sqlite, _migration_lock)  # database/clean_close.py
    with _migration_lock(path):
        return _migrate_locked(path, target, backup, before_change)


def _locked(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc).lower() or "busy" in str(exc).lower()


def _migrate_locked(path: Path, target: int, backup: bool, before_change: BeforeChange | None) -> MigrationReport:
    existed = path.exists() and path.stat().st_size > 0
    remove_partial_backups(path)  # a copy a killed run left half-written is no backup
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    report = MigrationReport(path, 0, 0)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        before = current_version(conn)
        if before > LATEST_VERSION:
            raise MigrationError(
                f"{path} has schema version {before}, newer than this SAIVerse knows "
                f"({LATEST_VERSION}). Upgrade SAIVerse instead; nothing was changed."
            )
        report = MigrationReport(path, before, before)
        pending = [s for s in STEPS if before < s.version <= target]
        if pending:
            _probe_write_lock(conn)
            try:
                if existed and backup and before_change is not None:
                    report.backup_path = _backup_with(before_change, path, before)
                elif existed and backup:
                    report.backup_path = _backup_name(path, before)
                    _backup(conn, report.backup_path)
                _apply(conn, path, pending, before, report)
            except BaseException:
                if report.backup_path is not None and not report.applied:
                    # Nothing changed, so the copy is not needed; retries must not pile up backups.
                    report.backup_path.unlink(missing_ok=True)
                    report.backup_path = None
                raise
        if report.version_after == LATEST_VERSION:
            problem = schema_problem(conn, path, LATEST_VERSION, [(s.version, s.name, s.sql) for s in STEPS],
                                     split_statements)
            if problem:
                raise MigrationError(problem)
        return report
    except sqlite3.OperationalError as exc:
        raise MigrationError(_failure(path, exc, report)) from exc
    finally:
        conn.close()


def _failure(path: Path, exc: sqlite3.OperationalError, report: MigrationReport, step: Step | None = None) -> str:
    """What a failed migration did and did not change, truthfully (a kept backup is named)."""
    if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
        cause = f"{path} is read-only ({_one_line(exc)}); SAIVerse needs to write to it"
    elif _locked(exc):
        cause = f"{path} is locked by another process (is SAIVerse already running?)"
    else:
        cause = f"migration step {step.version} ({step.name}) failed: {_one_line(exc)}" if step else \
            f"cannot migrate {path}: {_one_line(exc)}"
    if not report.applied:
        return f"{cause}. Nothing was changed; close what holds it or fix the cause, then try again."
    kept = f" The backup taken before is {report.backup_path}." if report.backup_path else ""
    return (f"{cause}. Steps {', '.join(report.applied)} were applied (schema version {report.version_after});"
            f"{kept} Run it again to finish.")


def _apply(conn: sqlite3.Connection, path: Path, pending: list[Step], before: int, report: MigrationReport) -> None:
    """Run the pending steps, one transaction each, recording them in `report` as they commit."""
    for step in pending:
        try:
            conn.execute("BEGIN IMMEDIATE")
            for stmt in split_statements(step.sql):
                if not _already_there(conn, stmt):
                    conn.execute(stmt)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                "VERSION INTEGER PRIMARY KEY, NAME TEXT NOT NULL, "
                "APPLIED_AT DATETIME DEFAULT CURRENT_TIMESTAMP)"
            )
            if before and not report.applied and step.version > 1:
                # Unversioned legacy file: record the versions it already had.
                conn.executemany(
                    "INSERT OR IGNORE INTO schema_version (VERSION, NAME) VALUES (?, ?)",
                    [(s.version, s.name) for s in STEPS if s.version <= before],
                )
            conn.execute(
                "INSERT INTO schema_version (VERSION, NAME) VALUES (?, ?)", (step.version, step.name)
            )
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK") if conn.in_transaction else None
            raise MigrationError(_failure(path, exc, report, step)) from exc
        report.applied.append(f"{step.version}: {step.name}")
        report.version_after = step.version


def build_parser() -> argparse.ArgumentParser:
    """`python database/migrate.py`'s own arguments (the same as `python main.py migrate`'s), so its
    help and its errors name this script, not main.py."""
    parser = argparse.ArgumentParser(
        prog="database/migrate.py",
        description="Bring a SAIVerse database to the current schema (the same as `python main.py migrate`). "
                    "Without --db the data home's database is migrated, after a backup of the world.")
    parser.add_argument("--home", help="data home (default: $SAIVERSE_HOME or ~/.saiverse)")
    parser.add_argument("--db", help="path of one SQLite file to migrate instead of the home's")
    parser.add_argument("--json", action="store_true", help="print what was done as one JSON object")
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python database/migrate.py --db PATH`: migrate one file (the data home is main.py's business)."""
    args = build_parser().parse_args(argv)
    if not args.db:
        build_parser().error("--db is required here (without it the data home is migrated by main.py)")
    try:
        report = migrate(Path(args.db))
    except MigrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2  # the user's to fix, as in main.py (saiverse/errors.py)
    if args.json:
        import json
        from dataclasses import asdict

        print(json.dumps(asdict(report), ensure_ascii=False, default=str))  # paths as text, as main.py prints them
    else:
        print(report.describe())
    return 0


if __name__ == "__main__":
    # Arguments are read here first (help and errors name this script); with --db the file is migrated
    # here, without it the data home is found the way the app finds it (flags, env, .env, settings),
    # which is the CLI's job: `python database/migrate.py` runs `python main.py migrate` as a program
    # (never an import of main from below).
    given = build_parser().parse_args()
    if given.db:
        sys.exit(main())
    entry = Path(__file__).resolve().parents[1] / "main.py"
    os.execv(sys.executable, [sys.executable, str(entry), "migrate", *sys.argv[1:]])
