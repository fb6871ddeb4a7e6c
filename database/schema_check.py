"""Whether a database at the latest schema version really has the schema: every table and column.

A column dropped by hand (or a table) in a database whose `schema_version` says it is current would
otherwise pass migration with "nothing to do" and then fail every command with raw SQL. The expected
schema is what the steps themselves create, built once in memory (a few milliseconds); the refusal
names the missing table, column or trigger, the step that adds it, and the fix.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

Steps = Sequence[tuple[int, str, str]]
"""(version, name, SQL) of every migration step, in order."""


_NOT_ADDABLE = re.compile(r"PRIMARY KEY|UNIQUE|CURRENT_TIMESTAMP|CURRENT_TIME|CURRENT_DATE", re.IGNORECASE)


def _definition(sql: str, table: str, column: str) -> str | None:
    """The column's definition in a step's SQL (`ALTER TABLE t ADD COLUMN c ...` or a CREATE TABLE line)."""
    added = re.search(rf"ALTER TABLE {table} ADD COLUMN ({column}\s[^;\n]*);", sql, re.IGNORECASE)
    if added:
        return added.group(1).strip()
    created = re.search(rf"CREATE TABLE {table} \((.*?)\n\);", sql, re.IGNORECASE | re.DOTALL)
    if created:
        for line in created.group(1).splitlines():
            if re.match(rf"\s*{column}\s", line, re.IGNORECASE):
                return line.strip().rstrip(",")
    return None


def _origin(steps: Steps, table: str, column: str) -> tuple[str, str | None]:
    """(`schema step N (name)`, its definition) for the step that made the column."""
    for version, name, sql in steps:
        definition = _definition(sql, table, column)
        if definition:
            return f"schema step {version} ({name})", definition
    return "the schema", None


@lru_cache(maxsize=4)
def expected_schema(steps: tuple[tuple[int, str, str], ...], split: Callable[[str], list[str]]) -> \
        tuple[dict[str, list[str]], list[str]]:
    """({table: columns}, trigger names) that the steps create: kept in database/schema_frozen.json
    for these very steps (by their digest), else built from them in memory."""
    from database.schema_frozen import frozen, steps_digest

    return frozen(steps_digest(steps)) or build_expected_schema(steps, split)


def build_expected_schema(steps: Sequence[tuple[int, str, str]], split: Callable[[str], list[str]]) -> \
        tuple[dict[str, list[str]], list[str]]:
    """({table: columns}, trigger names) that the steps create, from an empty in-memory database."""
    conn = sqlite3.connect(":memory:")
    try:
        for _version, _name, sql in steps:
            for statement in split(sql):
                if not statement.upper().startswith("INSERT"):  # data, not schema (and slow)
                    conn.execute(statement)
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'trigger')").fetchall()
        virtual = [name for kind, name, sql in rows if kind == "table" and (sql or "").upper().startswith(
            "CREATE VIRTUAL")]
        tables = {name: [r[1] for r in conn.execute(f"PRAGMA table_info({name})")] for kind, name, _ in rows
                  if kind == "table" and name != "sqlite_sequence" and not any(name.startswith(v + "_")
                                                                               for v in virtual)}
        return tables, [name for kind, name, _ in rows if kind == "trigger"]
    finally:
        conn.close()


def missing_schema(conn: sqlite3.Connection, steps: Steps, split: Callable[[str], list[str]]) -> \
        list[tuple[str, str, str | None]]:
    """("table" | "trigger", name, column or None) of what the steps make and the database lacks."""
    tables, triggers = expected_schema(tuple(steps), split)
    rows = conn.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger')").fetchall()
    have_tables = {name for kind, name in rows if kind == "table"}
    # The expected tables' columns in one statement (the table-valued PRAGMA), not a PRAGMA per table;
    # only those tables: a virtual table of the user's whose module this SQLite lacks cannot be read.
    have_columns: dict[str, set[str]] = {}
    names = [t for t in tables if t in have_tables]
    for table, column in conn.execute(
            "SELECT m.name, p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p "
            f"WHERE m.type = 'table' AND m.name IN ({', '.join('?' * len(names))})", names):
        have_columns.setdefault(table, set()).add(column.upper())
    missing: list[tuple[str, str, str | None]] = []
    for table, columns in tables.items():
        if table not in have_tables:
            missing.append(("table", table, None))
            continue
        have = have_columns.get(table, set())
        missing += [("table", table, c) for c in columns if c.upper() not in have]
    have_triggers = {name for kind, name in rows if kind == "trigger"}
    missing += [("trigger", t, None) for t in triggers if t not in have_triggers]
    return missing


def schema_problem(conn: sqlite3.Connection, path: Path, version: int, steps: Steps,
                   split: Callable[[str], list[str]]) -> str | None:
    """A one-line message naming what is missing and how to fix it, or None when all is there."""
    missing = missing_schema(conn, steps, split)
    if not missing:
        return None
    kind, name, column = missing[0]
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    restore = f"restore {path.name} from a backup ({path.name}.bak-*)"
    head = f"{path} says schema version {version} but"
    if column is None:
        what = f"has no {kind} {name!r}{more}"
        return f"{head} {what}; it was removed by hand. Nothing was changed. To use it, {restore}."
    where, definition = _origin(steps, name, column)
    fix = restore
    needs_default = "NOT NULL" in (definition or "").upper() and "DEFAULT" not in (definition or "").upper()
    if definition and not _NOT_ADDABLE.search(definition) and not needs_default:
        statement = f"ALTER TABLE {name} ADD COLUMN {definition};"
        fix = (f"{restore}, or add the column back (its values are gone): "
               f"sqlite3 {shlex.quote(str(path))} {shlex.quote(statement)}")
    return (f"{head} its table {name!r} has no column {column!r}{more}, which {where} adds; it was removed by "
            f"hand. Nothing was changed. To use it, {fix}.")
