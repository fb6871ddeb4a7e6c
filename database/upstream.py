"""Telling an upstream SAIVerse database (maha0525/SAIVerse) from one of ours, and what to say then.

Its format is not ours: wherever one is met instead of this app's database (migration, start-up,
restore), nothing is written and the message names the `import-saiverse` command that brings the
city over (README, "Coming from upstream SAIVerse").
"""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path


def table_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The column names of `table` in an open SQLite database."""
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def is_upstream_database(conn: sqlite3.Connection) -> bool:
    """Whether an open database is upstream SAIVerse's main database (it has no `schema_version`)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "schema_version" in tables:
        return False
    if "building_occupancy_log" in tables:
        return True
    return "ai" in tables and "HOME_CITYID" in table_columns(conn, "ai")


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
