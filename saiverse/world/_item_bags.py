"""Bags (upstream v0.3's containers): an item of type `bag` holds items — their location is
(`bag`, the bag's item id), numbered in their own slots like any container.

An item may go into a bag, never into itself or into a bag it holds (`check_into_bag`); what is in a
bag is within a persona's reach when the bag is (in her building or her hands, however deep:
`container_of`). An item imported from an upstream home whose TYPE was `bag` is a bag here too (an
earlier import kept it as an object marked `upstream_type: bag`, `is_bag`).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import text

from saiverse.errors import UserError
from words import say

BAG = "bag"
MAX_DEPTH = 16
"""Bags inside bags deeper than this are refused (and not followed): a cycle written by hand stops here."""


class BagError(UserError, ValueError):
    """An item cannot go into that bag; the message says why."""


def is_bag(item_type: str, state: Any) -> bool:
    """Whether an item (its TYPE and its state) is a bag."""
    if item_type == BAG:
        return True
    if isinstance(state, str):
        try:
            state = json.loads(state or "{}")
        except ValueError:
            return False
    return isinstance(state, dict) and state.get("upstream_type") == BAG


def container_of(s: Any, item_id: str) -> tuple[str | None, str | None]:
    """The building or persona that holds the item, through any bags it is in ((None, None): nowhere)."""
    current = item_id
    for _ in range(MAX_DEPTH):
        row = s.execute(text("SELECT OWNER_KIND, OWNER_ID FROM item_location WHERE ITEM_ID = :i"),
                        {"i": current}).first()
        if row is None:
            return None, None
        if row[0] != BAG:
            return str(row[0]), str(row[1])
        current = str(row[1])
    return None, None


def check_into_bag(s: Any, item_id: str, bag_id: str) -> str:
    """Refuse (BagError) unless `bag_id` is a bag the item may go into; returns the bag's name."""
    row = s.execute(text("SELECT NAME, TYPE, STATE_JSON FROM item WHERE ITEM_ID = :b"), {"b": bag_id}).first()
    if row is None:
        raise BagError(say("bag_missing", id=bag_id))
    if not is_bag(str(row[1]), row[2]):
        raise BagError(say("bag_not_bag", name=row[0]))
    current = bag_id
    for _ in range(MAX_DEPTH):
        if current == item_id:
            raise BagError(say("bag_into_itself", name=row[0]))
        up = s.execute(text("SELECT OWNER_KIND, OWNER_ID FROM item_location WHERE ITEM_ID = :i"),
                       {"i": current}).first()
        if up is None or up[0] != BAG:
            return str(row[0])
        current = str(up[1])
    raise BagError(say("bag_too_deep", name=row[0], depth=MAX_DEPTH))
