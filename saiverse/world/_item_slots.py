"""Item slots (upstream v0.3): an item's numbered place in its container, unique per container.

A new item takes the smallest free slot of its container, an imported one keeps its own, and an item
that moves takes the smallest free slot of its new container (upstream's rules), so two items never
share one (the `uq_item_slot` index would refuse it). Items made before slots are numbered, oldest
first, the first time their container is listed (`number_unnumbered`). The slot is the item's short
id, `item:N`, shown in the room's list and modal and taken by the tools (`parse_short_id`).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session


def free_slot(s: Session, owner_kind: str, owner_id: str) -> int:
    """The smallest slot number from 1 not used in the container."""
    used = {r[0] for r in s.execute(text("SELECT SLOT_NUMBER FROM item_location WHERE OWNER_KIND = :k AND "
                                         "OWNER_ID = :o AND SLOT_NUMBER IS NOT NULL"),
                                    {"k": owner_kind, "o": owner_id})}
    slot = 1
    while slot in used:
        slot += 1
    return slot


def move_numbered(s: Session, from_kind: str, from_id: str, to_kind: str, to_id: str, now: object) -> int:
    """Move a container's numbered items one by one, each into the smallest free slot of the new
    container; returns how many moved (the caller moves the unnumbered rest in bulk)."""
    moving = [r[0] for r in s.execute(text("SELECT ITEM_ID FROM item_location WHERE OWNER_KIND = :k AND OWNER_ID = :o "
                                           "AND SLOT_NUMBER IS NOT NULL ORDER BY SLOT_NUMBER"),
                                      {"k": from_kind, "o": from_id})]
    for item_id in moving:
        s.execute(text("UPDATE item_location SET OWNER_KIND = :k, OWNER_ID = :o, SLOT_NUMBER = :n, UPDATED_AT = :now "
                       "WHERE ITEM_ID = :i"),
                  {"k": to_kind, "o": to_id, "n": free_slot(s, to_kind, to_id), "now": now, "i": item_id})
    return len(moving)


SHORT_PREFIX = "item:"
"""An item's short id is `item:<its slot number>` (upstream shows items so, and its tools take it)."""


def short_id(slot_number: int | None) -> str:
    """`item:N` for an item numbered N in its container; "" for one not numbered."""
    return f"{SHORT_PREFIX}{slot_number}" if slot_number else ""


def parse_short_id(ref: str) -> int | None:
    """N of a reference written `item:N` (spaces and a full-width colon allowed); None for anything else."""
    text = ref.strip().replace("：", ":").replace(" ", "")
    if not text.lower().startswith(SHORT_PREFIX):
        return None
    number = text[len(SHORT_PREFIX):]
    return int(number) if number.isdigit() and 0 < int(number) < 1_000_000 else None


def number_unnumbered(s: Session, owner_kind: str, owner_id: str) -> int:
    """Give every item of a container without a slot the next free ones, oldest first (as upstream's own
    migration numbers items that predate slots); returns how many were numbered."""
    waiting = [r[0] for r in s.execute(text(
        "SELECT l.ITEM_ID FROM item_location l JOIN item i ON i.ITEM_ID = l.ITEM_ID WHERE l.OWNER_KIND = :k "
        "AND l.OWNER_ID = :o AND l.SLOT_NUMBER IS NULL ORDER BY i.CREATED_AT, i.ITEM_ID"),
        {"k": owner_kind, "o": owner_id})]
    for item_id in waiting:
        s.execute(text("UPDATE item_location SET SLOT_NUMBER = :n WHERE ITEM_ID = :i"),
                  {"n": free_slot(s, owner_kind, owner_id), "i": item_id})
    return len(waiting)
