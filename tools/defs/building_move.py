"""move_building: the persona walks to another building of the city."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool("move_building")
def move_building(
    ctx: ToolContext, building: Annotated[str, Field(description="Building id or name (e.g. library, 図書館).")],
) -> str:
    """Move yourself to another building of the city. Pass the building id or its name."""
    wanted = building.strip()
    buildings = ctx.buildings()
    match = next((b for b in buildings if wanted in (b["building_id"], b["name"])), None)
    if match is None:
        match = next((b for b in buildings if wanted and (wanted in b["name"] or b["name"] in wanted)), None)
    if match is None:
        names = "、".join(b["name"] for b in buildings)
        raise ToolError(f"建物「{wanted}」は見つかりません。行ける建物: {names}")
    if match["building_id"] == ctx.building_id:
        return f"すでに{match['name']}にいます。"
    ctx.move_persona(match["building_id"])
    return f"{match['name']}に移動しました。"
