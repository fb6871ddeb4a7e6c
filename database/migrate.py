"""The migration script: brings any SAIVerse SQLite database to the current schema.

An ordered list of frozen steps (version, name, SQL). Each step runs once inside one transaction
and records its version in `schema_version`; the file is backed up before the first change (and the
backup removed again when no step could be applied); a file that is not a SQLite database, or fails
SQLite's integrity check, is refused and left untouched. So is an upstream SAIVerse database
(maha0525/SAIVerse): its format is not ours, and the refusal names the `import-saiverse` command
that brings its city over.

Run as `python database/migrate.py [--db PATH]` (default: `$SAIVERSE_HOME/saiverse.db`).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shlex
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000


class MigrationError(Exception):
    """A database that cannot be migrated; the message says why, for a person to read."""


class UpstreamDatabaseError(MigrationError):
    """An upstream SAIVerse (maha0525/SAIVerse) database: it is imported, never migrated in place."""


@dataclass(frozen=True)
class Step:
    """One frozen schema change."""

    version: int
    name: str
    sql: str


BASELINE_SQL = """
CREATE TABLE city (
    CITYID TEXT PRIMARY KEY,
    CITYNAME TEXT NOT NULL,
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE building (
    BUILDINGID TEXT PRIMARY KEY,
    CITYID TEXT NOT NULL REFERENCES city(CITYID),
    BUILDINGNAME TEXT NOT NULL,
    CAPACITY INTEGER NOT NULL DEFAULT 10,
    SYSTEM_INSTRUCTION TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    AUTO_INTERVAL_SEC INTEGER NOT NULL DEFAULT 600,
    SORT_ORDER INTEGER NOT NULL DEFAULT 0,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE ai (
    AIID TEXT PRIMARY KEY,
    CITYID TEXT NOT NULL REFERENCES city(CITYID),
    AINAME TEXT NOT NULL,
    SYSTEMPROMPT TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    INTERACTION_MODE TEXT NOT NULL DEFAULT 'user',
    DEFAULT_MODEL TEXT,
    LIGHTWEIGHT_MODEL TEXT,
    AVATAR TEXT NOT NULL DEFAULT '🙂',
    CURRENT_BUILDINGID TEXT REFERENCES building(BUILDINGID),
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE user (
    USERID TEXT PRIMARY KEY,
    USERNAME TEXT NOT NULL,
    CURRENT_BUILDINGID TEXT REFERENCES building(BUILDINGID)
);
CREATE TABLE item (
    ITEM_ID TEXT PRIMARY KEY,
    NAME TEXT NOT NULL,
    TYPE TEXT NOT NULL DEFAULT 'object',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    STATE_JSON TEXT NOT NULL DEFAULT '{}',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE item_location (
    ITEM_ID TEXT PRIMARY KEY REFERENCES item(ITEM_ID) ON DELETE CASCADE,
    OWNER_KIND TEXT NOT NULL,
    OWNER_ID TEXT NOT NULL,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_item_location_owner ON item_location (OWNER_KIND, OWNER_ID);
CREATE TABLE building_history (
    ID INTEGER PRIMARY KEY AUTOINCREMENT,
    BUILDINGID TEXT NOT NULL,
    SPEAKER_KIND TEXT NOT NULL,
    SPEAKER_ID TEXT,
    SPEAKER_NAME TEXT NOT NULL DEFAULT '',
    CONTENT TEXT NOT NULL,
    PULSE_ID TEXT,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_building_history_building ON building_history (BUILDINGID, ID);
CREATE TABLE saimemory (
    ID INTEGER PRIMARY KEY AUTOINCREMENT,
    PERSONA_ID TEXT NOT NULL,
    ROLE TEXT NOT NULL,
    CONTENT TEXT NOT NULL,
    TAGS TEXT NOT NULL DEFAULT '[]',
    PULSE_ID TEXT,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_saimemory_persona ON saimemory (PERSONA_ID, ID);
CREATE INDEX ix_saimemory_pulse ON saimemory (PULSE_ID);
CREATE TABLE saimemory_tag (
    MESSAGE_ID INTEGER NOT NULL REFERENCES saimemory(ID) ON DELETE CASCADE,
    TAG TEXT NOT NULL,
    PERSONA_ID TEXT NOT NULL,
    PRIMARY KEY (MESSAGE_ID, TAG)
);
CREATE INDEX ix_saimemory_tag_lookup ON saimemory_tag (PERSONA_ID, TAG, MESSAGE_ID);
CREATE VIRTUAL TABLE saimemory_fts USING fts5(
    CONTENT, content='saimemory', content_rowid='ID', tokenize='trigram'
);
CREATE TRIGGER saimemory_ai AFTER INSERT ON saimemory BEGIN
    INSERT INTO saimemory_fts(rowid, CONTENT) VALUES (new.ID, new.CONTENT);
END;
CREATE TRIGGER saimemory_ad AFTER DELETE ON saimemory BEGIN
    INSERT INTO saimemory_fts(saimemory_fts, rowid, CONTENT) VALUES ('delete', old.ID, old.CONTENT);
END;
CREATE TRIGGER saimemory_au AFTER UPDATE OF CONTENT ON saimemory BEGIN
    INSERT INTO saimemory_fts(saimemory_fts, rowid, CONTENT) VALUES ('delete', old.ID, old.CONTENT);
    INSERT INTO saimemory_fts(rowid, CONTENT) VALUES (new.ID, new.CONTENT);
END;
CREATE TABLE playbooks (
    NAME TEXT PRIMARY KEY,
    DISPLAY_NAME TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    SCOPE TEXT NOT NULL DEFAULT 'public',
    ROUTER_CALLABLE INTEGER NOT NULL DEFAULT 0,
    USER_SELECTABLE INTEGER NOT NULL DEFAULT 0,
    PLAYBOOK_JSON TEXT NOT NULL,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE schedule (
    SCHEDULE_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    KIND TEXT NOT NULL,
    DAYS_OF_WEEK TEXT,
    TIME_OF_DAY TEXT,
    RUN_AT DATETIME,
    INTERVAL_SEC INTEGER,
    META_PLAYBOOK TEXT NOT NULL DEFAULT 'meta_user',
    ARGS_JSON TEXT NOT NULL DEFAULT '{}',
    ENABLED INTEGER NOT NULL DEFAULT 1,
    LAST_RUN_AT DATETIME,
    NEXT_RUN_AT DATETIME,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# The picture/document extension (docs/ARCHITECTURE.md, "Storage").
ITEM_EXTENSION_SQL = """
ALTER TABLE item ADD COLUMN FILE_PATH TEXT;
ALTER TABLE ai ADD COLUMN LIGHTWEIGHT_VISION_MODEL TEXT;
ALTER TABLE ai ADD COLUMN VISION_MODEL TEXT;
"""

# SAIMemory recall index (saiverse/memory.py explains the design). The step-1 trigram index found
# nothing for 1-2 character terms, which Japanese queries are full of. It is replaced by one
# contentless FTS5 table of every 1-, 2- and 3-character gram of CONTENT plus a persona token,
# fed by triggers in plain SQL (so any writer keeps it current) with positions from a fixed
# number table: messages are indexed on their first 131,072 characters. detail=none keeps it
# smaller than the trigram index it replaces; search re-checks candidates against CONTENT.
_GRAMS = (
    "'p:' || hex({r}.PERSONA_ID) || ' ' || coalesce((SELECT group_concat("
    "substr({r}.CONTENT, I, 1) || ' ' || substr({r}.CONTENT, I, 2) || ' ' || substr({r}.CONTENT, I, 3), ' ')"
    " FROM saimemory_gram_pos WHERE I <= length({r}.CONTENT)), '')"
)
MEMORY_GRAM_INDEX_SQL = f"""
DROP TRIGGER IF EXISTS saimemory_ai;
DROP TRIGGER IF EXISTS saimemory_ad;
DROP TRIGGER IF EXISTS saimemory_au;
DROP TABLE IF EXISTS saimemory_fts;
CREATE TABLE saimemory_gram_pos (I INTEGER PRIMARY KEY);
INSERT INTO saimemory_gram_pos (I)
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 131072) SELECT i FROM n;
CREATE VIRTUAL TABLE saimemory_fts USING fts5(
    GRAMS, content='', detail=none, columnsize=0,
    tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co Cf Cn Cs M* P* S*'"
);
INSERT INTO saimemory_fts (rowid, GRAMS) SELECT m.ID, {_GRAMS.format(r="m")} FROM saimemory m;
CREATE TRIGGER saimemory_gram_ai AFTER INSERT ON saimemory BEGIN
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_GRAMS.format(r="new")});
END;
CREATE TRIGGER saimemory_gram_ad AFTER DELETE ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_GRAMS.format(r="old")});
END;
CREATE TRIGGER saimemory_gram_au AFTER UPDATE OF CONTENT, PERSONA_ID ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_GRAMS.format(r="old")});
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_GRAMS.format(r="new")});
END;
"""

# Production workflow runs (docs/ARCHITECTURE.md, "Production"); the graph state itself lives in checkpoints.db.
PRODUCTION_RUN_SQL = """
CREATE TABLE production_run (
    RUN_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    BUILDING_ID TEXT NOT NULL,
    REQUEST TEXT NOT NULL,
    STATUS TEXT NOT NULL DEFAULT 'running',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_production_run_status ON production_run (STATUS, BUILDING_ID);
"""

# Room for a whole upstream SAIVerse world (saiverse/importer/) and for long-term memory
# (Chronicle and Memopedia, saiverse/memory*): where a message came from (thread, building, the
# upstream id that makes a re-import a no-op), the persona and building columns upstream has, and
# upstream's Memopedia and Chronicle (arasuji) tables kept per persona in the main database.
UPSTREAM_AND_LONG_TERM_MEMORY_SQL = """
ALTER TABLE saimemory ADD COLUMN THREAD_ID TEXT;
ALTER TABLE saimemory ADD COLUMN BUILDING_ID TEXT;
ALTER TABLE saimemory ADD COLUMN EXTERNAL_ID TEXT;
CREATE UNIQUE INDEX ux_saimemory_external ON saimemory (PERSONA_ID, EXTERNAL_ID) WHERE EXTERNAL_ID IS NOT NULL;
ALTER TABLE building_history ADD COLUMN EXTERNAL_ID TEXT;
ALTER TABLE building_history ADD COLUMN METADATA TEXT;
CREATE UNIQUE INDEX ux_building_history_external ON building_history (BUILDINGID, EXTERNAL_ID)
    WHERE EXTERNAL_ID IS NOT NULL;
ALTER TABLE ai ADD COLUMN PRIVATE_ROOM_ID TEXT;
ALTER TABLE ai ADD COLUMN AVATAR_IMAGE TEXT;
ALTER TABLE ai ADD COLUMN PREVIOUS_INTERACTION_MODE TEXT;
ALTER TABLE ai ADD COLUMN CONTEXT_TOKENS INTEGER;
ALTER TABLE ai ADD COLUMN CHRONICLE_ENABLED INTEGER NOT NULL DEFAULT 1;
ALTER TABLE ai ADD COLUMN EXTRA_JSON TEXT NOT NULL DEFAULT '{}';
ALTER TABLE building ADD COLUMN ENTRY_PROMPT TEXT NOT NULL DEFAULT '';
ALTER TABLE building ADD COLUMN AUTO_PROMPT TEXT NOT NULL DEFAULT '';
ALTER TABLE building ADD COLUMN EXTRA_JSON TEXT NOT NULL DEFAULT '{}';
ALTER TABLE item ADD COLUMN CREATOR_ID TEXT;
ALTER TABLE item ADD COLUMN SOURCE_CONTEXT TEXT;
ALTER TABLE schedule ADD COLUMN DESCRIPTION TEXT NOT NULL DEFAULT '';
ALTER TABLE schedule ADD COLUMN PRIORITY INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedule ADD COLUMN COMPLETED INTEGER NOT NULL DEFAULT 0;
CREATE TABLE persona_event_log (
    EVENT_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    CONTENT TEXT NOT NULL DEFAULT '',
    STATUS TEXT NOT NULL DEFAULT 'pending',
    EVENT_TYPE TEXT,
    PAYLOAD TEXT
);
CREATE INDEX ix_persona_event_log_persona ON persona_event_log (PERSONA_ID, CREATED_AT);
CREATE TABLE memopedia_page (
    PERSONA_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    PARENT_ID TEXT,
    TITLE TEXT NOT NULL,
    SUMMARY TEXT NOT NULL DEFAULT '',
    CONTENT TEXT NOT NULL DEFAULT '',
    CATEGORY TEXT NOT NULL,
    KEYWORDS TEXT NOT NULL DEFAULT '[]',
    VIVIDNESS TEXT NOT NULL DEFAULT 'rough',
    IS_TRUNK INTEGER NOT NULL DEFAULT 0,
    IS_IMPORTANT INTEGER NOT NULL DEFAULT 0,
    IS_DELETED INTEGER NOT NULL DEFAULT 0,
    LAST_REFERENCED_AT DATETIME,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (PERSONA_ID, PAGE_ID)
);
CREATE INDEX ix_memopedia_page_parent ON memopedia_page (PERSONA_ID, PARENT_ID);
CREATE TABLE memopedia_edit (
    EDIT_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    EDITED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    DIFF_TEXT TEXT NOT NULL DEFAULT '',
    REF_START_MESSAGE_ID TEXT,
    REF_END_MESSAGE_ID TEXT,
    EDIT_TYPE TEXT NOT NULL,
    EDIT_SOURCE TEXT
);
CREATE INDEX ix_memopedia_edit_page ON memopedia_edit (PERSONA_ID, PAGE_ID, EDITED_AT);
CREATE TABLE memopedia_page_state (
    PERSONA_ID TEXT NOT NULL,
    THREAD_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    IS_OPEN INTEGER NOT NULL DEFAULT 0,
    OPENED_AT DATETIME,
    PRIMARY KEY (PERSONA_ID, THREAD_ID, PAGE_ID)
);
CREATE TABLE chronicle_entry (
    PERSONA_ID TEXT NOT NULL,
    ENTRY_ID TEXT NOT NULL,
    LEVEL INTEGER NOT NULL,
    CONTENT TEXT NOT NULL,
    SOURCE_IDS TEXT NOT NULL DEFAULT '[]',
    START_TIME DATETIME,
    END_TIME DATETIME,
    SOURCE_COUNT INTEGER NOT NULL DEFAULT 0,
    MESSAGE_COUNT INTEGER NOT NULL DEFAULT 0,
    PARENT_ID TEXT,
    IS_CONSOLIDATED INTEGER NOT NULL DEFAULT 0,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (PERSONA_ID, ENTRY_ID)
);
CREATE INDEX ix_chronicle_entry_level ON chronicle_entry (PERSONA_ID, LEVEL, END_TIME);
CREATE TABLE chronicle_progress (
    PERSONA_ID TEXT PRIMARY KEY,
    LAST_MESSAGE_ID TEXT,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# What an upstream SAIMemory message carries beyond role, content, tags and `with` (which become
# TAGS), kept as JSON so an import loses nothing; and upstream's thread records (overview, Stelis
# sub-thread settings and summary) per persona.
UPSTREAM_MESSAGE_METADATA_SQL = """
ALTER TABLE saimemory ADD COLUMN METADATA TEXT;
CREATE TABLE saimemory_thread (
    PERSONA_ID TEXT NOT NULL,
    THREAD_ID TEXT NOT NULL,
    RESOURCE_ID TEXT,
    OVERVIEW TEXT,
    OVERVIEW_UPDATED_AT DATETIME,
    EXTRA_JSON TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (PERSONA_ID, THREAD_ID)
);
"""

STEPS: list[Step] = [
    Step(1, "baseline", BASELINE_SQL),
    Step(2, "item_file_path_and_vision_models", ITEM_EXTENSION_SQL),
    Step(3, "saimemory_gram_index", MEMORY_GRAM_INDEX_SQL),
    Step(4, "production_run", PRODUCTION_RUN_SQL),
    Step(5, "upstream_world_and_long_term_memory", UPSTREAM_AND_LONG_TERM_MEMORY_SQL),
    Step(6, "upstream_message_metadata_and_threads", UPSTREAM_MESSAGE_METADATA_SQL),
]
LATEST_VERSION = STEPS[-1].version


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


def _check_is_sqlite(path: Path) -> None:
    """Refuse anything that is not a healthy SQLite file, without writing to it."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_MAGIC))
    if header != SQLITE_MAGIC:
        raise MigrationError(
            f"{path} is not a SQLite database (its first bytes are not the SQLite header). "
            "Nothing was changed. Point --db at saiverse.db, or move this file away."
        )
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            result = conn.execute("PRAGMA quick_check").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise MigrationError(
            f"{path} cannot be read as a SQLite database ({exc}). Nothing was changed."
        ) from exc
    if not result or result[0] != "ok":
        raise MigrationError(
            f"{path} is damaged (SQLite integrity check: {result[0] if result else 'no answer'}). "
            "Nothing was changed; restore it from a backup (saiverse.db.bak-*)."
        )


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def is_upstream_database(conn: sqlite3.Connection) -> bool:
    """Whether an open database is upstream SAIVerse's main database (it has no `schema_version`)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "schema_version" in tables:
        return False
    if "building_occupancy_log" in tables:
        return True
    return "ai" in tables and "HOME_CITYID" in _columns(conn, "ai")


def upstream_home_of(db_path: Path) -> Path:
    """The upstream data home holding `db_path` (`<home>/user_data/database/saiverse.db`)."""
    if db_path.parent.name == "database" and db_path.parent.parent.name == "user_data":
        return db_path.parents[2]
    return db_path.parent


def import_command(source_home: Path, target_home: Path | None = None) -> str:
    """The exact command that imports an upstream home (into `<source>-imported` unless told)."""
    target = target_home or source_home.with_name(source_home.name + "-imported")
    return f"python main.py import-saiverse {shlex.quote(str(source_home))} --home {shlex.quote(str(target))}"


def upstream_refusal(what: str, source_home: Path, target_home: Path | None = None) -> str:
    """The message shown wherever an upstream database or home is met instead of one of ours."""
    target = target_home or source_home.with_name(source_home.name + "-imported")
    return (
        f"{what} is an upstream SAIVerse database (maha0525/SAIVerse), not one of this app's. "
        "It was left untouched: nothing was changed and no backup was written. "
        f"To bring that city over into a home of this app, run:\n  {import_command(source_home, target)}\n"
        f"then start the app with --home {shlex.quote(str(target))}."
    )


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
    if "FILE_PATH" in _columns(conn, "item") and "VISION_MODEL" in _columns(conn, "ai"):
        return 2
    return 1


def _backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    target = path.with_name(f"{path.name}.bak-{stamp}-v{version}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.bak-{stamp}-v{version}-{n}")
        n += 1
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    return target


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

    The lock is a `flock` on the database's folder: it leaves no file behind, and it never touches
    the database file itself (closing a descriptor of that file would drop SQLite's own locks).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


BeforeChange = Callable[[Path, int], Path]
"""(database path, its version) → the backup written before a step changes the database. The app
passes one that archives the whole world (saiverse/backup_auto.py); this script knows nothing of it."""


def migrate(db_path: str | Path, *, target: int = LATEST_VERSION, backup: bool = True,
            before_change: BeforeChange | None = None) -> MigrationReport:
    """Bring the database at `db_path` to schema version `target` (default: the latest).

    Before the first change to an existing database it is backed up: by `before_change` when given
    (its failure stops the migration with nothing changed), else as `<name>.bak-<stamp>-v<N>`.
    """
    path = Path(db_path).expanduser().resolve()
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as fh:
            if fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                _refuse_upstream(path)
    _check_is_sqlite(path)
    with _migration_lock(path):
        return _migrate_locked(path, target, backup, before_change)


def _migrate_locked(path: Path, target: int, backup: bool, before_change: BeforeChange | None) -> MigrationReport:
    existed = path.exists() and path.stat().st_size > 0
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
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
        if not pending:
            return report
        if existed and backup:
            report.backup_path = _backup(conn, path, before) if before_change is None else \
                _backup_with(before_change, path, before)
        try:
            _apply(conn, path, pending, before, report)
        except BaseException:
            if report.backup_path is not None and not report.applied:
                # Nothing changed, so the copy is not needed; retries must not pile up backups.
                report.backup_path.unlink(missing_ok=True)
            raise
        return report
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            raise MigrationError(
                f"{path} is locked by another process (is SAIVerse already running?). Nothing was changed."
            ) from exc
        raise MigrationError(f"cannot migrate {path}: {exc}") from exc
    finally:
        conn.close()


def _apply(conn: sqlite3.Connection, path: Path, pending: list[Step], before: int, report: MigrationReport) -> None:
    """Run the pending steps, one transaction each, recording them in `report` as they commit."""
    for step in pending:
        try:
            conn.execute("BEGIN IMMEDIATE")
            for stmt in split_statements(step.sql):
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
            if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                raise MigrationError(
                    f"{path} is locked by another process (is SAIVerse already running?). "
                    "Nothing was changed; close it and try again."
                ) from exc
            raise MigrationError(f"migration step {step.version} ({step.name}) failed: {exc}") from exc
        report.applied.append(f"{step.version}: {step.name}")
        report.version_after = step.version


def main(argv: list[str] | None = None) -> int:
    """`python database/migrate.py --db PATH`: migrate one file (the data home is main.py's business)."""
    parser = argparse.ArgumentParser(description="Bring a SAIVerse database to the current schema.")
    parser.add_argument("--db", required=True, help="path of the SQLite file")
    args = parser.parse_args(argv)
    try:
        report = migrate(Path(args.db))
    except MigrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2  # the user's to fix, as in main.py (saiverse/errors.py)
    print(report.describe())
    return 0


if __name__ == "__main__":
    # Run as a script: without --db, the data home is found the way the app finds it (flags, env,
    # .env, settings), which is main.py's job; `python database/migrate.py` = `python main.py migrate`.
    if "--db" in sys.argv[1:] or any(a.startswith("--db=") for a in sys.argv[1:]):
        sys.exit(main())
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from main import main as cli

    sys.exit(cli(["migrate", *sys.argv[1:]]))
