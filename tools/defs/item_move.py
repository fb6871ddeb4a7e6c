"""item_pickup / item_place: carry an item from the building, or put one down here."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool

ItemId = Annotated[str, Field(description="Identifier of the item.")]


@tool("item_pickup")
def item_pickup(ctx: ToolContext, item_id: ItemId) -> str:
    """Pick up an item from your building and carry it."""
    item = ctx.move_item(item_id.strip(), "persona")
    return f"「{item['name']}」を手に取りました。"


@tool("item_place")
def item_place(
    ctx: ToolContext, item_id: ItemId,
    building_id: Annotated[str, Field(description="Where to put it; only where you are (the default).")] = "",
) -> str:
    """Put an item you carry down in your current building."""
    if building_id.strip() and building_id.strip() != ctx.building_id:
        target = ctx.building(building_id.strip())["name"]
        raise ToolError(f"いまは{target}にいないので、そこには置けません。先に移動してください。")
    item = ctx.move_item(item_id.strip(), "building")
    return f"「{item['name']}」をここに置きました。"
