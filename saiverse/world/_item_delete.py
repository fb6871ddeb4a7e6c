"""Deleting an item from the room's modal (the caller takes the automatic backup first, as every delete).

The row and its location go in one transaction; a bag's contents are put where the bag was, each in a
free slot there, in that same transaction. Its file and `.summary.txt` sidecar are removed after the
commit, under the item's lock: a kill in between leaves a file no item names, which start-up repair
moves to `orphans/` (saiverse/care/_repair.py), so nothing is lost.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import text

from database.engine import Database
from database.models import Item, ItemLocation
from saiverse.locks import item_lock
from saiverse.world._item_slots import free_slot
from saiverse.world._items import ItemInfo, ItemNotFoundError, _info
from saiverse.world._media import remove_quietly, resolve_in_home, summary_path
from words import say


def delete_item(db: Database, home: Path, item_id: str) -> tuple[ItemInfo, int]:
    """Delete item `item_id`; returns (the item as it was, how many items it held that were put out)."""
    with db.session() as s:
        item = s.get(Item, item_id)
        if item is None:
            raise ItemNotFoundError(say("no_item", id=item_id))
        loc = s.get(ItemLocation, item_id)
        info = _info(item, loc)
        held = [r[0] for r in s.execute(text(
            "SELECT ITEM_ID FROM item_location WHERE OWNER_KIND = 'bag' AND OWNER_ID = :b ORDER BY SLOT_NUMBER"),
            {"b": item_id})]
        if held and loc is not None:
            now = datetime.now()
            for inner in held:  # out of the bag, where the bag was
                s.execute(text("UPDATE item_location SET OWNER_KIND = :k, OWNER_ID = :o, SLOT_NUMBER = :n, "
                               "UPDATED_AT = :now WHERE ITEM_ID = :i"),
                          {"k": loc.owner_kind, "o": loc.owner_id, "n": free_slot(s, loc.owner_kind, loc.owner_id),
                           "now": now, "i": inner})
        if loc is not None:
            s.delete(loc)
            s.flush()
        s.delete(item)
    if info.file_path:
        try:
            path = resolve_in_home(home, info.file_path)
        except ValueError:  # a path that leads out of the home is never touched
            return info, len(held)
        with item_lock(home, item_id):
            remove_quietly(path, summary_path(path))
    return info, len(held)
