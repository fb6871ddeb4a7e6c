"""The rows a deletion removes or moves (saiverse/care/_admin.py decides whether a deletion may happen).

A persona leaves with everything that is only its own: SAIMemory (messages, tags, threads),
Chronicle, Memopedia, its event log, schedules and production runs. What it carried goes to the
building it stood in. Lines it said in buildings stay: they are the buildings' history. A building
leaves with its history; its items move to another building first. Every function runs inside the
caller's transaction, so a deletion happens whole or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.orm import Session

from saiverse.memory import reflex_setting_key
from saiverse.voice import voice_setting_key
from saiverse.world import move_numbered

PERSONA_TABLES: tuple[tuple[str, str], ...] = (
    ("memory_pin", "PERSONA_ID"),  # its pinned lines (saiverse/memory/_pins.py), before the messages they name
    ("saimemory_tag", "PERSONA_ID"),
    ("saimemory", "PERSONA_ID"),
    ("saimemory_thread", "PERSONA_ID"),
    ("chronicle_entry", "PERSONA_ID"),
    ("chronicle_progress", "PERSONA_ID"),
    ("memopedia_page", "PERSONA_ID"),
    ("memopedia_edit", "PERSONA_ID"),
    ("memopedia_page_state", "PERSONA_ID"),
    ("persona_event_log", "PERSONA_ID"),
    ("schedule", "PERSONA_ID"),
    ("production_run", "PERSONA_ID"),
    # upstream v0.3: their logs, open notes, note pages and note messages go with them (ON DELETE CASCADE)
    ("action_track", "PERSONA_ID"),
    ("note", "PERSONA_ID"),
    ("meta_judgment_log", "PERSONA_ID"),
    ("memory_note", "PERSONA_ID"),
    ("autonomous_turn", "PERSONA_ID"),  # when it last took an autonomous turn (saiverse/world/_auto_turns.py)
    ("pulse_open", "PERSONA_ID"),  # its pulses begun and not ended (saiverse/pulse/_open.py); its pulses stop first
    ("saimemory_vec", "PERSONA_ID"),  # its messages' vectors (saiverse/memory/_vectors.py)
    ("usage_day", "PERSONA_ID"),  # what its model calls cost, and its daily budget (saiverse/costs.py)
    ("persona_budget", "PERSONA_ID"),
)
"""(table, persona column) of every row that belongs to one persona alone; the names are constants."""


@dataclass
class DeleteReport:
    """What one deletion did."""

    kind: str
    """`persona` or `building`."""
    id: str
    name: str
    backup: Path | None = None
    """The automatic backup taken just before (it keeps everything that was removed)."""
    items_moved: int = 0
    moved_to: str | None = None
    """The building the items went to."""
    removed: dict[str, int] = field(default_factory=dict)
    """Rows removed per table."""

    def to_dict(self) -> dict[str, Any]:
        return {"deleted": self.kind, "id": self.id, "name": self.name,
                "backup": str(self.backup) if self.backup else None, "items_moved": self.items_moved,
                "moved_to": self.moved_to, "removed": self.removed}


def _tables(s: Session) -> set[str]:
    return set(inspect(s.connection()).get_table_names())  # SQLite or PostgreSQL


def move_items(s: Session, owner_kind: str, owner_id: str, building_id: str) -> int:
    """Every item of an owner into a building; returns how many moved (a numbered one takes a free slot)."""
    numbered = move_numbered(s, owner_kind, owner_id, "building", building_id, datetime.now())
    result = s.execute(text(
        "UPDATE item_location SET OWNER_KIND = 'building', OWNER_ID = :b, UPDATED_AT = :now "
        "WHERE OWNER_KIND = :k AND OWNER_ID = :o"), {"b": building_id, "k": owner_kind, "o": owner_id,
                                                    "now": datetime.now()})
    return numbered + int(result.rowcount or 0)


def forget_persona(s: Session, persona_id: str) -> dict[str, int]:
    """Remove the persona's own rows (PERSONA_TABLES) and its `ai` row; rows removed per table."""
    present = _tables(s)
    removed: dict[str, int] = {}
    for table, column in PERSONA_TABLES:
        if table not in present:
            continue
        n = s.execute(text(f"DELETE FROM {table} WHERE {column} = :p"), {"p": persona_id}).rowcount or 0
        if n:
            removed[table] = int(n)
    # Her own world settings (reflex recall's switch, saiverse/memory/_reflex.py; her voice, saiverse/voice/):
    # a persona made later under the same id starts with the defaults.
    n = sum(s.execute(text("DELETE FROM world_setting WHERE KEY = :k"), {"k": key}).rowcount or 0
            for key in (reflex_setting_key(persona_id), voice_setting_key(persona_id)))
    if n:
        removed["world_setting"] = int(n)
    s.execute(text("DELETE FROM ai WHERE AIID = :p"), {"p": persona_id})
    return removed


def forget_building(s: Session, building_id: str) -> dict[str, int]:
    """Remove a building's history and its row; private rooms that named it name none now."""
    removed: dict[str, int] = {}
    n = s.execute(text("DELETE FROM building_history WHERE BUILDINGID = :b"), {"b": building_id}).rowcount or 0
    if n:
        removed["building_history"] = int(n)
    s.execute(text("UPDATE ai SET PRIVATE_ROOM_ID = NULL WHERE PRIVATE_ROOM_ID = :b"), {"b": building_id})
    s.execute(text("DELETE FROM building WHERE BUILDINGID = :b"), {"b": building_id})
    return removed


def item_count(s: Session, owner_kind: str, owner_id: str) -> int:
    """How many items an owner holds."""
    return int(s.execute(text("SELECT count(*) FROM item_location WHERE OWNER_KIND = :k AND OWNER_ID = :o"),
                         {"k": owner_kind, "o": owner_id}).scalar() or 0)
