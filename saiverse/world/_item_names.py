"""Renaming an item (upstream v0.3's `item_change_name`): the name checked like a new item's, one transaction."""

from __future__ import annotations

from datetime import datetime

from database import Database
from database.models import Item, ItemLocation
from saiverse.world._items import ItemInfo, ItemNotFoundError, _info, check_item_name
from words import say


def rename_item(db: Database, item_id: str, name: str) -> ItemInfo:
    """Give the item a new name (stripped, one line, bounded; InputError says why not); its file stays."""
    clean = check_item_name(name)
    with db.session() as s:
        item = s.get(Item, item_id)
        if item is None:
            raise ItemNotFoundError(say("no_item", id=item_id))
        item.name = clean
        item.updated_at = datetime.now()
        s.flush()
        return _info(item, s.get(ItemLocation, item_id))
