"""A SQLite file of another program, told apart from ours before anything writes to it.

The migration creates our tables in a file that has none yet; a file that already holds tables, none
of which is ours and with no `schema_version`, belongs to some other program and is refused: writing
our schema (and a first-run world) into it would change someone else's data. Upstream SAIVerse
databases are recognised separately (database/migrate.py `is_upstream_database`).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from database.steps import BASELINE_SQL

OUR_TABLES = frozenset(re.findall(r"CREATE TABLE (\w+)", BASELINE_SQL)) | {"schema_version"}
"""Tables the first schema creates: a file holding any of them is (an old form of) ours."""


def user_tables(conn: sqlite3.Connection) -> set[str]:
    """Names of the tables in an open database, SQLite's own left out."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            if not r[0].startswith("sqlite_")}


def foreign_database_problem(path: Path) -> str | None:
    """The refusal for a SQLite file of another program at `path` (None: ours, new, empty or unreadable).

    Opened immutable: no lock is taken and no side file is made beside a file that is not ours.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            tables = user_tables(conn)
            if not tables or tables & OUR_TABLES:
                return None
            from database.upstream import is_upstream_database

            if is_upstream_database(conn):
                return None  # named by the upstream refusal, which points to import-saiverse
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None  # not SQLite, or damaged: the integrity checks name it
    shown = ", ".join(sorted(tables)[:4]) + (" …" if len(tables) > 4 else "")
    return (f"{path} is a SQLite database of another program (tables: {shown}), not one of SAIVerse's; it was "
            "left untouched. Point --home (or --db) at a SAIVerse home, or at a new folder.")
