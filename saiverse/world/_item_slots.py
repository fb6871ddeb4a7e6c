"""Item slots (upstream v0.3): an item's numbered place in its container, unique per container.

This app does not number new items; an imported item keeps its slot, and an item with a slot that
moves takes the smallest free slot of its new container (upstream's rule), so two items never share
one (the `uq_item_slot` index would refuse it).
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
