"""Migrations on PostgreSQL: the same ordered steps as SQLite (database/steps.py), in PostgreSQL's SQL.

A step's SQL is written once, for SQLite; on PostgreSQL the runner applies `pg_sql(step)`:

- the portable DDL is translated mechanically (`DATETIME` → `TIMESTAMP`, `INTEGER PRIMARY KEY
  AUTOINCREMENT` → an identity column, the table `user` quoted, `INSERT OR IGNORE` → `ON CONFLICT DO
  NOTHING`); identifiers stay unquoted, so PostgreSQL folds them to lower case and the raw SQL of
  the stores (`SELECT AIID FROM ai …`) reads the same on both (the models render these names
  unquoted too: database/models.py);
- what is SQLite-only (FTS5 virtual tables and their triggers) is left out, and a step whose whole
  point is SQLite-only has a PostgreSQL replacement in `PG_REPLACEMENTS` (the recall index: `pg_trgm`
  there, where SQLite has FTS5 — docs/ARCHITECTURE.md, "Storage" — and step 10's index of 1-2
  character grams, which SQLite's FTS5 index already holds).

Each step is one transaction (PostgreSQL's DDL is transactional), recorded in `schema_version` as on
SQLite. A transaction-scoped advisory lock makes several processes opening one city at once migrate
it once, in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, text

from database.steps import GRAM_CAP, LATEST_VERSION, STEPS, Step

MIGRATION_LOCK = 0x5A1_7E25E
"""The advisory lock key every SAIVerse process takes while migrating a PostgreSQL database."""

PG_REPLACEMENTS: dict[int, str] = {
    # Step 3 builds SQLite's gram index for recall (FTS5 over 1-3 character grams). PostgreSQL's
    # equivalent is pg_trgm: a trigram GIN index on the content, for terms of three characters or more.
    3: """
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX ix_saimemory_content_trgm ON saimemory USING gin (CONTENT gin_trgm_ops);
""",
    # Step 9 rewrites SQLite's gram triggers to be linear in a message's length; pg_trgm (step 3 here)
    # indexes the content itself, so PostgreSQL has nothing to change.
    9: "",
    # Step 10 (nothing on SQLite, whose step-3 index already holds 1-2 character grams): the same grams
    # on PostgreSQL, for the terms pg_trgm cannot serve. saimemory_grams() gives a message's persona
    # token and every 1- and 2-character gram of its lower-cased first 131,072 characters (SQLite's
    # rules, database/steps.py step 9), each kind in one pass over the text: its characters, then its
    # character pairs from the first and from the second character on, cut apart at U+FFFF (a Unicode
    # noncharacter: a message holding one loses the pairs around it from the index) — never substr()
    # at a position or an array subscript, which walk the text from its start (quadratic). One
    # expression with no sub-query, so PostgreSQL inlines it where it checks a row. A GIN index over
    # it is the gram table, contentless like SQLite's FTS5 one: PostgreSQL fills it on every insert
    # and update of a message whoever writes it (the app, `move --to`, an import, plain SQL), drops a
    # deleted message's entry with its row, and CREATE INDEX fills it for the messages already there.
    10: f"""
CREATE FUNCTION saimemory_grams(persona text, content text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT array_remove(ARRAY['p:' || persona] || string_to_array(lower(left(content, {GRAM_CAP})), NULL)
        || string_to_array(regexp_replace(lower(left(content, {GRAM_CAP})), '(..)', '\\1' || chr(65535), 'g'),
                           chr(65535))
        || string_to_array(regexp_replace(substr(lower(left(content, {GRAM_CAP})), 2), '(..)', '\\1' || chr(65535),
                                          'g'), chr(65535)), '') $$;
CREATE INDEX ix_saimemory_grams ON saimemory USING gin (saimemory_grams(PERSONA_ID, CONTENT));
""",
    # Step 14: message vectors (database/steps_vec.py), VEC as bytea (float32, as on SQLite); the triggers that
    # drop a message's vectors with its row or when its text or persona changes call one PL/pgSQL function.
    # No pgvector column: its search measured slower than the numpy scan recall uses on both stores
    # (benchmarks/RESULTS-recall.md, "pgvector"), and a server without the extension needs the blobs anyway.
    14: """
CREATE TABLE saimemory_vec (
    MESSAGE_ID BIGINT NOT NULL,
    PERSONA_ID TEXT NOT NULL,
    MODEL TEXT NOT NULL,
    DIM INTEGER NOT NULL,
    VEC BYTEA NOT NULL,
    PRIMARY KEY (MODEL, MESSAGE_ID)
);
CREATE INDEX ix_saimemory_vec_persona ON saimemory_vec (MODEL, PERSONA_ID, MESSAGE_ID);
CREATE FUNCTION saimemory_vec_forget() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN DELETE FROM saimemory_vec WHERE MESSAGE_ID = OLD.ID; RETURN NULL; END $$;
CREATE TRIGGER saimemory_vec_ad AFTER DELETE ON saimemory FOR EACH ROW EXECUTE FUNCTION saimemory_vec_forget();
CREATE TRIGGER saimemory_vec_au AFTER UPDATE OF CONTENT, PERSONA_ID ON saimemory FOR EACH ROW
    EXECUTE FUNCTION saimemory_vec_forget();
""",
}
"""PostgreSQL SQL for steps whose SQLite SQL is SQLite-only through and through."""

PG_ADDITIONS: dict[int, str] = {
    # SQLite's instr(), which the stores' searches use (saiverse/memory/_memopedia.py, saiverse/memory/_chronicle.py),
    # as PostgreSQL's strpos().
    1: "CREATE OR REPLACE FUNCTION instr(text, text) RETURNS integer LANGUAGE sql IMMUTABLE "
       "AS 'SELECT strpos($1, $2)';",
}
"""PostgreSQL SQL run after a step's own: what SQLite has built in and PostgreSQL lacks."""

SQLITE_ONLY_TABLES = frozenset({"saimemory_fts", "saimemory_gram_pos"})
"""Tables the SQLite steps make that PostgreSQL does without (their job is done by pg_trgm)."""

_VIRTUAL = re.compile(r"CREATE VIRTUAL TABLE .*?\);\n", re.DOTALL)
_TRIGGER = re.compile(r"CREATE TRIGGER .*?\nEND;\n", re.DOTALL)
_DROP_SQLITE = re.compile(r"DROP (TRIGGER|TABLE) IF EXISTS saimemory_(ai|ad|au|fts);\n")


def translate(sql: str) -> str:
    """The PostgreSQL form of a portable SQLite step."""
    sql = _VIRTUAL.sub("", sql)
    sql = _TRIGGER.sub("", sql)
    sql = _DROP_SQLITE.sub("", sql)
    sql = re.sub(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", "INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", sql)
    sql = re.sub(r"\bDATETIME\b", "TIMESTAMP", sql)
    sql = re.sub(r"\bTABLE user\b", 'TABLE "user"', sql)
    sql = re.sub(r"\bINSERT OR IGNORE INTO (.*?);", r"INSERT INTO \1 ON CONFLICT DO NOTHING;", sql, flags=re.DOTALL)
    return sql


def pg_sql(step: Step) -> str:
    """What runs on PostgreSQL for `step`."""
    return PG_REPLACEMENTS.get(step.version, translate(step.sql)) + "\n" + PG_ADDITIONS.get(step.version, "")


def statements(sql: str) -> list[str]:
    """The statements of a translated step, split on `;` outside `$$ … $$` bodies (no step has a `;`
    inside a literal)."""
    out, buf = [], ""
    for n, part in enumerate(sql.split("$$")):
        if n % 2:  # inside a dollar-quoted body
            buf += "$$" + part + "$$"
            continue
        pieces = part.split(";")
        buf += pieces[0]
        for piece in pieces[1:]:
            out.append(buf)
            buf = piece
    out.append(buf)
    return [s.strip() for s in out if s.strip()]


@dataclass
class PgMigrationReport:
    """What `migrate_pg` did."""

    version_before: int
    version_after: int
    applied: list[str] = field(default_factory=list)


def current_version_pg(conn: Connection) -> int:
    """The schema version of a PostgreSQL database (0: empty)."""
    # A plain query of the catalog (a fresh snapshot), not to_regclass (the backend's catalog cache,
    # which may not yet know a table another process made while this one waited for the lock).
    exists = conn.execute(text("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                               "AND tablename = 'schema_version'")).scalar()
    if not exists:
        return 0
    return int(conn.execute(text("SELECT coalesce(max(VERSION), 0) FROM schema_version")).scalar() or 0)


def migrate_pg(engine: Engine, *, target: int = LATEST_VERSION) -> PgMigrationReport:
    """Bring a PostgreSQL database to `target`, one transaction per step, under the migration lock."""
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        before = current_version_pg(conn)
    report = PgMigrationReport(before, before)
    for step in [s for s in STEPS if before < s.version <= target]:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
            if current_version_pg(conn) >= step.version:
                continue  # another process applied it while this one waited for the lock
            for stmt in statements(pg_sql(step)):
                conn.exec_driver_sql(stmt)
            conn.exec_driver_sql(
                "CREATE TABLE IF NOT EXISTS schema_version (VERSION INTEGER PRIMARY KEY, NAME TEXT NOT NULL, "
                "APPLIED_AT TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
            conn.execute(text("INSERT INTO schema_version (VERSION, NAME) VALUES (:v, :n)"),
                         {"v": step.version, "n": step.name})
        report.applied.append(f"{step.version}: {step.name}")
        report.version_after = step.version
    return report
