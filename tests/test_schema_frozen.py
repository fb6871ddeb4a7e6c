"""The kept expected schema (database/schema_frozen.py): it is what the steps build, a stale or damaged
file is never believed, and a database missing a column is still refused with the kept one in use."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from database import schema_check, schema_frozen
from database.migrate import LATEST_VERSION, STEPS, MigrationError, migrate, split_statements

STEPS_T = tuple((s.version, s.name, s.sql) for s in STEPS)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    schema_check.expected_schema.cache_clear()
    yield
    schema_check.expected_schema.cache_clear()


def test_kept_schema_is_what_the_steps_build() -> None:
    built = schema_check.build_expected_schema(STEPS_T, split_statements)
    kept = schema_frozen.frozen(schema_frozen.steps_digest(STEPS_T))
    assert kept is not None, "database/schema_frozen.json is stale: run `python -m database.schema_frozen`"
    assert kept == built
    assert list(kept[0]) == list(built[0])  # in the steps' order: the refusal names the same first table
    assert schema_check.expected_schema(STEPS_T, split_statements) == built


@pytest.mark.parametrize("content", ["stale", "not json", "wrong shape"])
def test_a_stale_or_damaged_file_is_not_believed(content: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    kept = tmp_path / "schema_frozen.json"
    if content == "stale":  # steps changed since it was written: it names a table that is not made
        kept.write_text(json.dumps({"steps_sha256": "0" * 64, "tables": {"ghost": ["X"]}, "triggers": []}))
    elif content == "not json":
        kept.write_text("{")
    else:
        kept.write_text(json.dumps({"steps_sha256": schema_frozen.steps_digest(STEPS_T), "tables": [],
                                    "triggers": {}}))
    monkeypatch.setattr(schema_frozen, "FROZEN_PATH", kept)
    assert schema_frozen.frozen(schema_frozen.steps_digest(STEPS_T)) is None
    assert schema_check.expected_schema(STEPS_T, split_statements) == \
        schema_check.build_expected_schema(STEPS_T, split_statements)


def test_a_dropped_column_is_refused_with_the_kept_schema(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    assert migrate(db).version_after == LATEST_VERSION
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE building DROP COLUMN DESCRIPTION")
    with pytest.raises(MigrationError, match="its table 'building' has no column 'DESCRIPTION'"):
        migrate(db)


def test_a_users_table_of_an_unknown_module_is_not_read(tmp_path: Path) -> None:
    """The columns are read only for the steps' tables: a user's virtual table this SQLite cannot open
    (its module missing) does not stop the check."""
    db = tmp_path / "saiverse.db"
    migrate(db)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (BODY TEXT)")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES "
                     "('table', 'elsewhere', 'elsewhere', 0, 'CREATE VIRTUAL TABLE elsewhere USING nosuchmodule(a)')")
    assert migrate(db).version_after == LATEST_VERSION
