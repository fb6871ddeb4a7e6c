"""The turn that completes a recalled message (issue 33: "a hit brings the neighbouring turn when that
completes it").

A conversation says a thing over turns: 「本屋のバイト、辞めることにした。」 then 「代わりに週一回、塾で…」; "I saw
a doctor about my cough." — "What did they say?" — "Bronchitis." Recall finds the turn holding the
question's words, while the answer is often the next one. So the best `FOLLOW_HITS` message hits each
look at the turns just after them in the same talk (within `SAME_TALK_MINUTES`) and bring (`next`):
- for a question or a word or two, the reply to it (every hit, not only the best);
- for a statement, the same speaker's next turn, when the other side only reacted or asked in between
  (「えっ、大丈夫？」) or nobody spoke in between.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text

from saiverse.memory._common import parse_time
from saiverse.memory._rank import completes
from saiverse.memory._store import _COLUMNS, MemoryRecord, SAIMemory, _record

FOLLOW_HITS = 6
"""How many of the best message hits look for the turn that completes them (one lookup each)."""
SAME_TALK_MINUTES = 20.0
FOLLOW_CHARS = 60


def _close(a: dict[str, Any], b: dict[str, Any]) -> bool:
    when_a, when_b = parse_time(a.get("created_at")), parse_time(b.get("created_at"))
    return bool(when_a and when_b and 0 <= (when_b - when_a).total_seconds() <= SAME_TALK_MINUTES * 60)


def follow(memory: SAIMemory, persona_id: str, hits: list[dict[str, Any]]) -> None:
    """Set `next` on the best message hits whose following turn completes them (see the module docstring)."""
    looked = 0
    with memory.db.engine.connect() as conn:
        for h in hits:
            asks = completes(str(h.get("content", "")))
            if h.get("kind") != "message" or looked >= FOLLOW_HITS and not asks:
                continue  # past the best few, only a question still brings its reply (as it always did)
            looked += 1
            after = [m for m in _after(conn, persona_id, int(h["id"])) if _close(h, m)]
            if not after:
                continue
            first = after[0]
            if asks:
                h["next"] = first["content"]
            elif first["role"] == h.get("role"):
                h["next"] = _opening(first["content"])
            elif completes(first["content"]) and len(after) > 1 and after[1]["role"] == h.get("role"):
                h["next"] = _opening(after[1]["content"])


def _after(conn: Connection, persona_id: str, message_id: int) -> list[MemoryRecord]:
    """The two messages after one, in its thread (one query: the message itself comes first, with its thread)."""
    rows = list(conn.execute(text(
        f"SELECT {_COLUMNS}, THREAD_ID FROM saimemory WHERE PERSONA_ID = :p AND ID >= :i ORDER BY ID LIMIT 8"),
        {"p": persona_id, "i": message_id}))
    if not rows or rows[0][0] != message_id:
        return []
    return [_record(r) for r in rows[1:] if r[7] == rows[0][7]][:2]


def _opening(content: str) -> str:
    """A statement's follow-up is brought by its opening (`FOLLOW_CHARS`): it may be another topic."""
    flat = " ".join(content.split())
    return flat if len(flat) <= FOLLOW_CHARS else flat[:FOLLOW_CHARS - 1] + "…"
