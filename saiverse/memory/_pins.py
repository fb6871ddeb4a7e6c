"""Pinned lines: SAIMemory messages a persona always has in her prompt (issue 33, item 4).

A pin is a row of `memory_pin` (step 13, database/steps_pins.py): persona, message id, when it was
pinned. The message's text stays where it is, so a pin costs nothing until a prompt reads it, and
deleting the message (its chat line deleted, `forget`) takes the pin with it. Each write is one short
transaction, committed before the call returns: a pin survives `kill -9` once the call has answered.

The context builder (saiverse/memory/_context.py `fit`) puts the pinned lines right after the system
prompt, in the order they were pinned, within `PIN_SHARE` of the budget: a line longer than a third
of that share is shortened in the middle, and pins beyond the share are left out with a note saying
how many: the pins made last are the ones left out, so what was pinned first stays put
(`python main.py context` and the UI panel name what was left out; pinning one that does not fit says so).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import text

from database import Database
from saiverse.memory._common import LongTermMemoryError, iso, parse_time, stamp

_PINS_SQL = text(
    "SELECT m.ID, m.ROLE, m.CONTENT, m.CREATED_AT, p.PINNED_AT FROM memory_pin p "
    "JOIN saimemory m ON m.ID = p.MESSAGE_ID AND m.PERSONA_ID = p.PERSONA_ID "
    "WHERE p.PERSONA_ID = :p ORDER BY p.PINNED_AT, p.MESSAGE_ID")


@dataclass(frozen=True)
class Pin:
    """One pinned message, as prompts and the CLI show it."""

    message_id: int
    role: str
    content: str
    created_at: str | None
    """When the message was said (ISO, UTC)."""
    pinned_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PinStore:
    """Pins of every persona. `writes` counts this process's changes (a kept prompt snapshot is read
    again when it moves, as for Chronicle and Memopedia)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.writes = 0

    def pins(self, persona_id: str) -> list[Pin]:
        """The persona's pinned messages, in the order they were pinned."""
        with self.db.engine.connect() as conn:
            rows = list(conn.execute(_PINS_SQL, {"p": persona_id}))
        return [Pin(int(r[0]), str(r[1]), str(r[2]), iso(parse_time(r[3])), iso(parse_time(r[4]))) for r in rows]

    def pinned_ids(self, persona_id: str) -> set[int]:
        return {p.message_id for p in self.pins(persona_id)}

    def pin(self, persona_id: str, message_id: int) -> bool:
        """Pin message `message_id` of the persona (True when it was not pinned yet).

        Raises:
            LongTermMemoryError: the persona has no such message."""
        with self.db.engine.begin() as conn:
            owner = conn.execute(text("SELECT PERSONA_ID FROM saimemory WHERE ID = :i"),
                                 {"i": int(message_id)}).scalar()
            if owner != persona_id:
                raise LongTermMemoryError(f"{persona_id} の記憶にメッセージ {message_id} はありません。")
            done = conn.execute(text(
                "INSERT INTO memory_pin (PERSONA_ID, MESSAGE_ID, PINNED_AT) VALUES (:p, :i, :t) "
                "ON CONFLICT DO NOTHING RETURNING MESSAGE_ID"),
                {"p": persona_id, "i": int(message_id), "t": stamp()}).first()
        self.writes += 1
        return done is not None

    def unpin(self, persona_id: str, message_id: int) -> bool:
        """Unpin it (True when it was pinned)."""
        with self.db.engine.begin() as conn:
            gone = conn.execute(text("DELETE FROM memory_pin WHERE PERSONA_ID = :p AND MESSAGE_ID = :i "
                                     "RETURNING MESSAGE_ID"), {"p": persona_id, "i": int(message_id)}).first()
        self.writes += 1
        return gone is not None
