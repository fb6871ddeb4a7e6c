"""The migration script on real SQLite files: baseline upgrade, idempotence, refusals."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import inspect

from database.engine import make_engine
from database.migrate import LATEST_VERSION, MigrationError, migrate
from database.models import Base

ROOT = Path(__file__).resolve().parents[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _columns(db: Path, table: str) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _baseline_with_rows(db: Path) -> None:
    """A database at the pre-extension baseline, built by the chain itself, with user data."""
    report = migrate(db, target=1)
    assert report.version_after == 1
    assert "FILE_PATH" not in _columns(db, "item")
    assert "VISION_MODEL" not in _columns(db, "ai")
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', '街')")
        conn.execute("INSERT INTO building (BUILDINGID, CITYID, BUILDINGNAME) VALUES ('b', 'c', '図書館')")
        conn.execute(
            "INSERT INTO ai (AIID, CITYID, AINAME, SYSTEMPROMPT, LIGHTWEIGHT_MODEL, CURRENT_BUILDINGID) "
            "VALUES ('p', 'c', 'ミナ', '丁寧に話す', 'gemini-2.5-flash-lite', 'b')"
        )
        conn.execute(
            "INSERT INTO item (ITEM_ID, NAME, TYPE, DESCRIPTION) VALUES ('i1', '古い鍵', 'object', '錆びた鍵')"
        )
        conn.execute("INSERT INTO item_location (ITEM_ID, OWNER_KIND, OWNER_ID) VALUES ('i1', 'building', 'b')")
        conn.execute(
            "INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS) "
            "VALUES ('p', 'user', '図書館で猫の本を探した', '[]')"
        )


def test_fresh_database_reaches_latest_and_matches_the_models(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    report = migrate(db)
    assert report.version_before == 0 and report.version_after == LATEST_VERSION
    assert report.backup_path is None  # nothing to back up on a new file
    insp = inspect(make_engine(f"sqlite:///{db}"))
    for table in Base.metadata.sorted_tables:
        actual = {c["name"] for c in insp.get_columns(table.name)}
        expected = {c.name for c in table.columns}
        assert expected == actual, table.name
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_baseline_upgrade_keeps_every_row_and_backs_up(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    _baseline_with_rows(db)
    report = migrate(db)
    assert report.version_before == 1 and report.version_after == LATEST_VERSION
    assert report.applied and report.applied[0].startswith("2:")
    assert report.backup_path is not None and report.backup_path.exists()
    with sqlite3.connect(report.backup_path) as conn:  # the backup is the untouched baseline
        assert "FILE_PATH" not in {r[1] for r in conn.execute("PRAGMA table_info(item)")}
    assert {"FILE_PATH"} <= _columns(db, "item")
    assert {"LIGHTWEIGHT_VISION_MODEL", "VISION_MODEL"} <= _columns(db, "ai")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT NAME, TYPE, DESCRIPTION, FILE_PATH FROM item").fetchall() == [
            ("古い鍵", "object", "錆びた鍵", None)
        ]
        assert conn.execute("SELECT AINAME, LIGHTWEIGHT_MODEL, VISION_MODEL FROM ai").fetchall() == [
            ("ミナ", "gemini-2.5-flash-lite", None)
        ]
        assert conn.execute("SELECT OWNER_ID FROM item_location").fetchall() == [("b",)]
        # the FTS index still finds the old message
        assert conn.execute(
            "SELECT count(*) FROM saimemory_fts WHERE saimemory_fts MATCH '\"猫の本\"'"
        ).fetchone()[0] == 1
        versions = [r[0] for r in conn.execute("SELECT VERSION FROM schema_version ORDER BY VERSION")]
    assert versions == list(range(1, LATEST_VERSION + 1))


def test_rerun_is_a_noop(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db)
    before = _digest(db)
    report = migrate(db)
    assert report.applied == [] and report.backup_path is None
    assert _digest(db) == before
    assert not list(tmp_path.glob("saiverse.db.bak-*"))


def test_unversioned_legacy_database_is_recognised(tmp_path: Path) -> None:
    """A SAIVerse file from before versioning, with the extension's ALTERs already applied by hand."""
    db = tmp_path / "legacy.db"
    migrate(db, target=1)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE schema_version")
        conn.execute("ALTER TABLE item ADD COLUMN FILE_PATH TEXT")
        conn.execute("ALTER TABLE ai ADD COLUMN LIGHTWEIGHT_VISION_MODEL TEXT")
        conn.execute("ALTER TABLE ai ADD COLUMN VISION_MODEL TEXT")
    report = migrate(db)
    assert report.version_before == 2  # no duplicate-column failure


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all\n" * 10, b"PK\x03\x04 zip bytes" + bytes(range(256))],
    ids=["text", "binary"],
)
def test_not_a_database_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "saiverse.db"
    db.write_bytes(content)
    with pytest.raises(MigrationError, match="not a SQLite database"):
        migrate(db)
    assert db.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saiverse.db"]


def test_corrupt_database_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray(db.read_bytes())
    raw[8192:12288] = b"\xff" * 4096  # smash the third page: a table's b-tree
    db.write_bytes(bytes(raw))
    before = _digest(db)
    with pytest.raises(MigrationError, match="damaged"):
        migrate(db)
    assert _digest(db) == before
    assert not list(tmp_path.glob("saiverse.db.bak-*"))


def test_locked_database_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db, target=1)
    monkeypatch.setattr("database.migrate.BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(MigrationError, match="locked"):
            migrate(db)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert migrate(db).version_after == LATEST_VERSION


def test_script_cli_exit_codes(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    script = [sys.executable, str(ROOT / "database" / "migrate.py"), "--db", str(db)]
    first = subprocess.run(script, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(script, capture_output=True, text=True, check=False)
    assert second.returncode == 0 and "nothing to do" in second.stdout
    bad = tmp_path / "bad.db"
    bad.write_text("hello")
    third = subprocess.run(
        [sys.executable, str(ROOT / "database" / "migrate.py"), "--db", str(bad)],
        capture_output=True, text=True, check=False,
    )
    assert third.returncode == 2 and "not a SQLite database" in third.stderr
    assert bad.read_text() == "hello"
