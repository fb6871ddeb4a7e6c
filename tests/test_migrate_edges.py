"""Migration edge cases (issue 13, hole 9): each gets an exact message, nothing half-done, no backup pile-up.

Partly applied manual ALTERs, a column or table removed by hand from a current database, a
read-only file or folder, a database locked by another process (before any step, and between two
steps), a damaged file (no -wal/-shm left beside it), and a step that fails on every run.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import database.migrate as migrate_module
from database.migrate import LATEST_VERSION, MigrationError, migrate


@contextmanager
def _open(db: Path) -> Iterator[sqlite3.Connection]:
    """A connection that commits and closes (sqlite3's own `with` only commits), so no -wal stays open."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _columns(db: Path, table: str) -> set[str]:
    with _open(db) as conn:
        return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_with_some_manual_alters_gets_the_missing_ones(tmp_path: Path) -> None:
    db = tmp_path / "legacy.db"
    migrate(db, target=1)
    with _open(db) as conn:
        conn.execute("DROP TABLE schema_version")  # a file from before versioning
        conn.execute("ALTER TABLE item ADD COLUMN FILE_PATH TEXT")  # one of the three by hand
        conn.execute("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', '街')")
    for _ in range(2):
        report = migrate(db)
    assert report.version_after == LATEST_VERSION
    assert {"LIGHTWEIGHT_VISION_MODEL", "VISION_MODEL"} <= _columns(db, "ai") and "FILE_PATH" in _columns(db, "item")
    assert len(list(tmp_path.glob("legacy.db.bak-*"))) == 1  # the first run's, before it changed anything
    with _open(db) as conn:
        assert conn.execute("SELECT CITYNAME FROM city").fetchall() == [("街",)]


def test_a_column_removed_by_hand_is_named_with_its_fix(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db)
    with _open(db) as conn:
        conn.execute("ALTER TABLE item DROP COLUMN CREATOR_ID")
    before = _digest(db)
    with pytest.raises(MigrationError) as refused:
        migrate(db)
    message = str(refused.value)
    assert "has no column 'CREATOR_ID'" in message and "'item'" in message
    assert "schema step 5 (upstream_world_and_long_term_memory)" in message and "Nothing was changed" in message
    assert "\n" not in message and _digest(db) == before and not list(tmp_path.glob("*.bak-*"))
    fix = message.split("sqlite3 ", 1)[1].rstrip(".")
    statement = shlex.split(fix)[1]
    assert statement == "ALTER TABLE item ADD COLUMN CREATOR_ID TEXT;"
    with _open(db) as conn:
        conn.execute(statement)
    assert migrate(db).applied == []


def test_a_table_or_trigger_removed_by_hand_is_named(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db)
    with _open(db) as conn:
        conn.execute("DROP TRIGGER saimemory_gram_ai")
    with pytest.raises(MigrationError, match="has no trigger 'saimemory_gram_ai'.*restore saiverse.db from a backup"):
        migrate(db)
    with _open(db) as conn:
        conn.execute("DROP TABLE chronicle_progress")
    with pytest.raises(MigrationError, match=r"has no table 'chronicle_progress' \(and 1 more\)"):
        migrate(db)


def test_the_cli_says_so_in_one_line_instead_of_raw_sql(saiverse_home: Path) -> None:
    import main as cli_main

    assert cli_main.main(["world"]) == 0
    with sqlite3.connect(saiverse_home / "saiverse.db") as conn:
        conn.execute("ALTER TABLE ai DROP COLUMN VISION_MODEL")
    proc = subprocess.run([os.sys.executable, str(Path(cli_main.__file__)), "world", "--json"], capture_output=True,
                          text=True, env={**os.environ, "SAIVERSE_RAISE_ERRORS": ""}, check=False, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("エラー: ") and len(proc.stderr.splitlines()) == 1
    assert "no column 'VISION_MODEL'" in proc.stderr and "Traceback" not in proc.stderr


@contextmanager
def _as_another_user() -> Iterator[None]:
    """Root writes anything; file modes only bind another user, so the check runs as `nobody`."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_database_is_called_read_only(what: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="saiverse-ro-"))  # not under root's private temp dir
    try:
        db = folder / "saiverse.db"
        migrate(db, target=1)
        os.chmod(folder, 0o777)
        os.chmod(db, 0o444 if what == "file" else 0o666)
        if what == "folder":
            os.chmod(folder, 0o555)
        before, listing = _digest(db), _listing(folder)
        with _as_another_user(), pytest.raises(MigrationError) as refused:
            migrate(db)
        message = str(refused.value)
        assert "read-only" in message and "cannot be read" not in message and "Nothing was changed" in message
        assert ("chmod u+w" in message) if what == "file" else ("Make the folder writable" in message)
        assert _digest(db) == before and _listing(folder) == listing
    finally:
        os.chmod(folder, 0o755)
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


def test_locked_before_any_step_changes_nothing_and_leaves_no_backup(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db, target=1)
    monkeypatch.setattr(migrate_module, "BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(MigrationError, match="locked by another process.*Nothing was changed"):
            migrate(db)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not list(tmp_path.glob("saiverse.db.bak-*"))
    assert "FILE_PATH" not in _columns(db, "item")


def test_locked_between_steps_says_what_was_applied_and_keeps_the_backup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db, target=1)
    monkeypatch.setattr(migrate_module, "BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(db, isolation_level=None)
    real_split = migrate_module.split_statements

    def split_and_lock(sql: str) -> list[str]:
        if sql is migrate_module.MEMORY_GRAM_INDEX_SQL and not holder.in_transaction:
            # Another process starts writing after step 2 committed (its connection waits for the lock).
            holder.execute("BEGIN IMMEDIATE")
        return real_split(sql)

    monkeypatch.setattr(migrate_module, "split_statements", split_and_lock)
    try:
        with pytest.raises(MigrationError) as refused:
            migrate(db)
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
    message = str(refused.value)
    assert "locked by another process" in message and "Nothing was changed" not in message
    assert "Steps 2: item_file_path_and_vision_models were applied (schema version 2)" in message
    backups = list(tmp_path.glob("saiverse.db.bak-*"))
    assert len(backups) == 1 and str(backups[0]) in message
    monkeypatch.setattr(migrate_module, "split_statements", real_split)
    assert migrate(db).version_after == LATEST_VERSION


def test_a_damaged_file_is_refused_without_wal_or_shm_left(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db)
    with _open(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray(db.read_bytes())
    raw[8192:12288] = b"\xff" * 4096
    db.write_bytes(bytes(raw))
    for _ in range(3):
        with pytest.raises(MigrationError, match="damaged") as refused:
            migrate(db)
        assert "\n" not in str(refused.value)
        assert _listing(tmp_path) == ["saiverse.db"]


def test_a_step_that_fails_every_time_piles_up_no_backups(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db, target=2)
    with _open(db) as conn:  # a table of the user's in the way of step 3
        conn.execute("CREATE TABLE saimemory_gram_pos (I INTEGER)")
    before = _digest(db)
    messages = set()
    for _ in range(3):
        with pytest.raises(MigrationError) as refused:
            migrate(db)
        messages.add(str(refused.value))
    (message,) = messages
    assert "step 3 (saimemory_gram_index) failed: table saimemory_gram_pos already exists" in message
    assert "Nothing was changed" in message
    assert _listing(tmp_path) == ["saiverse.db"] and _digest(db) == before
