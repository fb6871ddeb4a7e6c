"""item_pickup / item_place: carry an item from the building, or put one down here."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool

ItemId = Annotated[str, Field(description="Identifier of the item.")]


@tool("item_pickup")
def item_pickup(ctx: ToolContext, item_id: ItemId) -> str:
    """Pick up an item from your building and carry it."""
    item = ctx.move_item(item_id.strip(), "persona")
    return f"「{item['name']}」を手に取りました。"


@tool("item_place")
def item_place(ctx: ToolContext, item_id: ItemId) -> str:
    """Put an item you carry down in your current building."""
    item = ctx.move_item(item_id.strip(), "building")
    return f"「{item['name']}」をここに置きました。"
