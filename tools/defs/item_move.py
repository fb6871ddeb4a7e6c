"""item_pickup / item_place: carry an item from the building, or put one down here."""

from __future__ import annotations

from tools.context import ToolContext
from tools.registry import tool

_SCHEMA = {"type": "object", "properties": {"item_id": {"type": "string"}}, "required": ["item_id"]}


@tool("item_pickup", "Pick up an item from your building and carry it.", _SCHEMA)
def item_pickup(ctx: ToolContext, item_id: str) -> str:
    item = ctx.move_item(item_id.strip(), "persona")
    return f"「{item['name']}」を手に取りました。"


@tool("item_place", "Put an item you carry down in your current building.", _SCHEMA)
def item_place(ctx: ToolContext, item_id: str) -> str:
    item = ctx.move_item(item_id.strip(), "building")
    return f"「{item['name']}」をここに置きました。"
