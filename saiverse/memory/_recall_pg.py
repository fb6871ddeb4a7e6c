"""SAIMemory recall candidates on PostgreSQL: pg_trgm and a gram index where SQLite uses its FTS5 gram index.

saiverse/memory/_store.py pages through candidate message ids newest first and re-checks each candidate
against the terms itself, then scores them; only how candidates are found differs by database.
On PostgreSQL a candidate is a message of the persona whose CONTENT contains every term,
case-insensitively (`ILIKE`). Terms of three characters or more are served by the trigram GIN index
of database/migrate_pg.py (step 3); terms of one or two characters — Japanese is full of them (猫,
図書), and a trigram index cannot find them — by the GIN index over `saimemory_grams(PERSONA_ID,
CONTENT)` (step 10: the persona token and every 1- and 2-character gram of the lower-cased text, as
SQLite's index holds them). The condition on that expression is the index's own, so the planner
can answer it from the index alone; `ILIKE` still decides, so the two databases return the same
messages in the same order for the same data.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

SHORT_TERM = 2
"""Terms up to this many characters are looked up in the gram index (step 10), longer ones through pg_trgm."""


def like_pattern(term: str) -> str:
    """`%term%` with LIKE's own characters escaped (the escape character is a backslash)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def candidate_ids(conn: Connection, persona_id: str, terms: Sequence[str], below: int, limit: int) -> list[int]:
    """Ids (< `below`, newest first, at most `limit`) of the persona's messages containing every term."""
    params: dict[str, object] = {"p": persona_id, "last": below, "n": limit}
    clauses = []
    grams = ["'p:' || :p"]
    for i, term in enumerate(terms):
        params[f"t{i}"] = like_pattern(term)
        clauses.append(f"CONTENT ILIKE :t{i} ESCAPE '\\'")
        if len(term) <= SHORT_TERM:
            params[f"g{i}"] = term
            grams.append(f"lower(:g{i})")  # lower-cased as the index's grams are, by the same function
    if len(grams) > 1:
        clauses.append(f"saimemory_grams(PERSONA_ID, CONTENT) @> ARRAY[{', '.join(grams)}]")
    where = " AND ".join(["PERSONA_ID = :p", "ID < :last", *clauses])
    # Plan with the terms in view, every time: psycopg prepares a statement run five times, and
    # PostgreSQL's generic plan for it cannot tell a term pg_trgm serves from one it cannot (it would
    # scan the whole trigram index for `%猫%`) or a rare gram from a common one.
    conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_custom_plan")
    return [int(r[0]) for r in conn.execute(text(f"SELECT ID FROM saimemory WHERE {where} ORDER BY ID DESC LIMIT :n"),
                                            params)]
