"""Upstream v0.3's item_change_name and item_write_description, with upstream's argument names."""

from __future__ import annotations

import json

from tools.context import ToolContext
from tools.registry import tool


@tool("item_change_name")
def item_change_name(ctx: ToolContext, item_id: str, name: str) -> str:
    """Rename an item in this building or in your hands."""
    info = ctx.rename_item(item_id.strip(), name)
    return json.dumps({"item_id": info["item_id"], "name": info["name"]}, ensure_ascii=False)


@tool("item_write_description")
def item_write_description(ctx: ToolContext, item_id: str, description: str) -> str:
    """Rewrite an item's description (for a picture or document, its summary too)."""
    info = ctx.update_description(item_id.strip(), description)
    return json.dumps({"item_id": info["item_id"], "name": info["name"], "description": info["description"]},
                      ensure_ascii=False)
