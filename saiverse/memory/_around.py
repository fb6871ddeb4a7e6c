"""Messages of a persona around a moment, optionally within one thread (upstream v0.3's
`messagelog_get_around`). Threads come from imported upstream homes (`saimemory.THREAD_ID`);
the app's own messages have none, so a thread filter finds only imported ones.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text

from database import Database
from saiverse.memory._store import _COLUMNS, MemoryRecord, _record, _utc_naive


def messages_around(db: Database, persona_id: str, when: datetime, count: int,
                    thread_id: str | None = None) -> list[MemoryRecord]:
    """The `count` messages closest to `when` (half before, half after, the rest from whichever side
    has more), oldest first; each record carries `thread_id`."""
    at = _utc_naive(when).isoformat(sep=" ", timespec="microseconds")
    where = "PERSONA_ID = :p" + (" AND THREAD_ID = :t" if thread_id else "")
    args = {"p": persona_id, "t": thread_id, "at": at, "n": max(int(count), 0)}
    with db.engine.connect() as conn:
        before = list(conn.execute(text(
            f"SELECT {_COLUMNS}, THREAD_ID FROM saimemory WHERE {where} AND CREATED_AT <= :at "
            "ORDER BY CREATED_AT DESC, ID DESC LIMIT :n"), args))
        after = list(conn.execute(text(
            f"SELECT {_COLUMNS}, THREAD_ID FROM saimemory WHERE {where} AND CREATED_AT > :at "
            "ORDER BY CREATED_AT, ID LIMIT :n"), args))
    half = count // 2
    take_after = min(len(after), max(count - min(len(before), count - half), 0))
    take_before = min(len(before), count - take_after)
    rows = list(reversed(before[:take_before])) + after[:take_after]
    out: list[MemoryRecord] = []
    for row in rows:
        rec = _record(row)
        rec["thread_id"] = row[7]  # type: ignore[typeddict-unknown-key]
        out.append(rec)
    return out


def thread_ids(db: Database, persona_id: str) -> list[str]:
    """The persona's message threads (imported from upstream), by name."""
    with db.engine.connect() as conn:
        return [r[0] for r in conn.execute(text(
            "SELECT DISTINCT THREAD_ID FROM saimemory WHERE PERSONA_ID = :p AND THREAD_ID IS NOT NULL "
            "ORDER BY THREAD_ID"), {"p": persona_id})]
