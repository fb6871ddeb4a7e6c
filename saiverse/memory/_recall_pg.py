"""SAIMemory recall candidates on PostgreSQL: pg_trgm where SQLite uses its FTS5 gram index.

saiverse/memory/_store.py pages through candidate message ids newest first and re-checks each candidate
against the terms itself, then scores them; only how candidates are found differs by database.
On PostgreSQL a candidate is a message of the persona whose CONTENT contains every term,
case-insensitively (`ILIKE`, served by the trigram GIN index of database/migrate_pg.py for terms of
three characters or more, and by the (PERSONA_ID, ID) index, newest first, for shorter ones). So the
two databases return the same messages in the same order for the same data.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text


def like_pattern(term: str) -> str:
    """`%term%` with LIKE's own characters escaped (the escape character is a backslash)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def candidate_ids(conn: Connection, persona_id: str, terms: Sequence[str], below: int, limit: int) -> list[int]:
    """Ids (< `below`, newest first, at most `limit`) of the persona's messages containing every term."""
    params: dict[str, object] = {"p": persona_id, "last": below, "n": limit}
    clauses = []
    for i, term in enumerate(terms):
        params[f"t{i}"] = like_pattern(term)
        clauses.append(f"CONTENT ILIKE :t{i} ESCAPE '\\'")
    where = " AND ".join(["PERSONA_ID = :p", "ID < :last", *clauses])
    return [int(r[0]) for r in conn.execute(text(f"SELECT ID FROM saimemory WHERE {where} ORDER BY ID DESC LIMIT :n"),
                                            params)]
