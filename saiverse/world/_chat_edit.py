"""Deleting a chat line: from the building history and, where it was remembered, from SAIMemory.

A line of the building history and the SAIMemory messages that remember it are linked by the pulse
and the text (docs/ARCHITECTURE.md, "Storage", chat edits):

- a persona's line was written by its pulse (`PULSE_ID`) as the persona's `assistant` message of
  that pulse with the same content;
- the user's line (written before any pulse, without a pulse id) is kept by each answering
  persona's pulse as a `user` message with the same content: the pulses of the persona lines that
  follow it up to the next user line, or — a pulse that failed before it spoke — a `user` message
  with that content stored between the line's time and the next user line.

History stores local time, SAIMemory naive UTC: the window is converted before it is compared.
The history row and the messages go in one transaction (a kill leaves both or neither).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from database import Database
from saiverse.world._world import HistoryEntry, UnknownIdError
from words import say

_SLACK = timedelta(seconds=5)
"""A user message may be stored a moment before its history line (clocks of two writes)."""
_OPEN_WINDOW = timedelta(minutes=30)
"""How long after an unanswered user line a pulse may still have remembered it."""


@dataclass
class LineDeletion:
    """What deleting one chat line removes (or removed)."""

    entry: HistoryEntry
    """The history line."""
    memory_ids: dict[str, list[int]] = field(default_factory=dict)
    """Persona id → ids of its SAIMemory messages that remember the line."""
    persona_names: dict[str, str] = field(default_factory=dict)
    """Persona id → its name now (or the id, for a persona since deleted)."""

    @property
    def remembered_by(self) -> list[str]:
        """Names of the personas whose memory holds the line."""
        return [self.persona_names.get(pid, pid) for pid in self.memory_ids]

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry.to_dict(), "memory_ids": self.memory_ids, "remembered_by": self.remembered_by}


def _stamp(local: datetime) -> str:
    """A history time (naive local) as SAIMemory stores its times (naive UTC text)."""
    return local.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _row(conn: Any, building_id: str, history_id: int) -> Any:
    row = conn.execute(text(
        "SELECT ID, BUILDINGID, SPEAKER_KIND, SPEAKER_ID, SPEAKER_NAME, CONTENT, PULSE_ID, CREATED_AT "
        "FROM building_history WHERE ID = :i AND BUILDINGID = :b"), {"i": int(history_id), "b": building_id}).first()
    if row is None:
        raise UnknownIdError(say("redo_line_gone", id=history_id))
    return row


def _when(raw: Any) -> datetime | None:
    if isinstance(raw, datetime):
        return raw
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError:
        return None


def _memory_of(conn: Any, row: Any) -> dict[str, list[int]]:
    hid, building_id, kind, speaker_id, _name, content, pulse_id, created = row
    found: dict[str, list[int]] = {}
    if kind == "persona":
        if pulse_id and speaker_id:
            ids = [r[0] for r in conn.execute(text(
                "SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse AND ROLE = 'assistant' "
                "AND CONTENT = :c ORDER BY ID"), {"p": speaker_id, "pulse": pulse_id, "c": content})]
            if ids:
                found[speaker_id] = ids[:1]  # the same text said twice in one pulse: this line is one of them
        return found
    if kind != "user":
        return found
    following = conn.execute(text(
        "SELECT ID, CREATED_AT FROM building_history WHERE BUILDINGID = :b AND ID > :i AND SPEAKER_KIND = 'user' "
        "ORDER BY ID LIMIT 1"), {"b": building_id, "i": hid}).first()
    upto = following[0] if following else 2**62
    pulses = [r[0] for r in conn.execute(text(
        "SELECT DISTINCT PULSE_ID FROM building_history WHERE BUILDINGID = :b AND ID > :i AND ID < :n "
        "AND SPEAKER_KIND = 'persona' AND PULSE_ID IS NOT NULL"), {"b": building_id, "i": hid, "n": upto})]
    for pulse in pulses:
        for mid, pid in conn.execute(text(
                "SELECT ID, PERSONA_ID FROM saimemory WHERE PULSE_ID = :pulse AND ROLE = 'user' AND CONTENT = :c "
                "ORDER BY ID LIMIT 1"), {"pulse": pulse, "c": content}):
            found.setdefault(pid, []).append(mid)
    start = _when(created)
    if start is not None:
        end = _when(following[1]) if following else None
        lo, hi = _stamp(start - _SLACK), _stamp(end if end is not None else start + _OPEN_WINDOW)
        for mid, pid in conn.execute(text(
                "SELECT ID, PERSONA_ID FROM saimemory WHERE ROLE = 'user' AND CONTENT = :c AND PULSE_ID IS NOT NULL "
                "AND CREATED_AT >= :lo AND CREATED_AT <= :hi ORDER BY ID"), {"c": content, "lo": lo, "hi": hi}):
            if pid not in found:  # a pulse that never spoke: the first such message of each persona
                found[pid] = [mid]
    return found


def _names(conn: Any, persona_ids: list[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for pid in persona_ids:
        name = conn.execute(text("SELECT AINAME FROM ai WHERE AIID = :p"), {"p": pid}).scalar()
        names[pid] = str(name) if name else pid
    return names


def _deletion(conn: Any, building_id: str, history_id: int) -> LineDeletion:
    row = _row(conn, building_id, history_id)
    created = _when(row[7])
    entry = HistoryEntry(row[0], row[1], row[2], row[3], row[4] or "", row[5], row[6],
                         created.isoformat(timespec="seconds") if created else "")
    memory = _memory_of(conn, row)
    return LineDeletion(entry, memory, _names(conn, list(memory)))


def plan_line_deletion(db: Database, building_id: str, history_id: int) -> LineDeletion:
    """What deleting line `history_id` of `building_id` would remove (nothing is changed).

    Raises:
        UnknownIdError: the building has no such line."""
    with db.engine.connect() as conn:
        return _deletion(conn, building_id, history_id)


def delete_line(db: Database, building_id: str, history_id: int) -> LineDeletion:
    """Delete line `history_id` of `building_id` and the SAIMemory messages that remember it, at once.

    Raises:
        UnknownIdError: the building has no such line."""
    with db.session() as s:
        conn = s.connection()
        plan = _deletion(conn, building_id, history_id)
        ids = [mid for mids in plan.memory_ids.values() for mid in mids]
        for mid in ids:
            conn.execute(text("DELETE FROM saimemory_tag WHERE MESSAGE_ID = :i"), {"i": mid})
            conn.execute(text("DELETE FROM saimemory WHERE ID = :i"), {"i": mid})
        conn.execute(text("DELETE FROM building_history WHERE ID = :i"), {"i": plan.entry.id})
        return plan
