"""get_history: the persona's conversation as a messages array (system prompt first), for a model call."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.defs.get_system_prompt import BuildingId, BuildingItems, Inventory, build_system_prompt
from tools.registry import tool

WINDOW = 500
"""Newest messages considered before the character budget is applied."""


@tool("get_history")
def get_history(
    ctx: ToolContext,
    building_id: BuildingId = "",
    max_chars: Annotated[int, Field(description="Most characters of history to include.", ge=100)] = 100_000,
    include_system_prompt: Annotated[bool, Field(description="Start with your system prompt.")] = True,
    include_inventory: Inventory = True,
    include_building_items: BuildingItems = True,
    balanced: Annotated[bool, Field(
        description="Upstream: balance between partners. Here every line already keeps its order; no effect.")]
    = False,
    include_internal: Annotated[bool, Field(description="Also include your inner thoughts and waits.")] = False,
    include_visual_context: Annotated[bool, Field(
        description="Upstream: building and avatar images. Buildings here have no images; no effect.")] = False,
) -> list[dict[str, Any]]:
    """Get your conversation history as a list of {role, content, created_at} messages (oldest first),
    starting with your system prompt; the newest messages are kept within max_chars.
    """
    bid = building_id.strip() or ctx.building_id
    ctx.building(bid)
    tags = ["conversation", "internal"] if include_internal else ["conversation"]
    kept: list[dict[str, Any]] = []
    used = 0
    for m in reversed(ctx.memory_recent(WINDOW, tags)):
        used += len(str(m["content"]))
        if used > max_chars and kept:
            break
        kept.append({"role": m["role"], "content": m["content"], "created_at": m["created_at"]})
    kept.reverse()
    if include_system_prompt:
        prompt = build_system_prompt(ctx, bid, inventory=include_inventory, building_items=include_building_items)
        kept.insert(0, {"role": "system", "content": prompt, "created_at": None})
    return kept
