"""move_building / move_persona: the persona walks to another building of the city.

`move_building` (ours) takes an id or a name; `move_persona` is upstream's, by building id (a name
is accepted too), and may only move the persona calling it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


def find_building(ctx: ToolContext, wanted: str) -> dict[str, Any]:
    """The building with this id or name (or a name containing it); ToolError listing the choices."""
    wanted = wanted.strip()
    buildings = ctx.buildings()
    match = next((b for b in buildings if wanted in (b["building_id"], b["name"])), None)
    if match is None:
        match = next((b for b in buildings if wanted and (wanted in b["name"] or b["name"] in wanted)), None)
    if match is None:
        names = "、".join(f"{b['name']} ({b['building_id']})" for b in buildings)
        raise ToolError(f"建物「{wanted}」は見つかりません。行ける建物: {names}")
    return match


def _go(ctx: ToolContext, target: dict[str, Any]) -> str:
    if target["building_id"] == ctx.building_id:
        return f"すでに{target['name']}にいます。"
    source = next((b["name"] for b in ctx.buildings() if b["building_id"] == ctx.building_id), ctx.building_id)
    ctx.move_persona(target["building_id"])
    return f"{source}から{target['name']}に移動しました。"


@tool("move_building")
def move_building(
    ctx: ToolContext, building: Annotated[str, Field(description="Building id or name (e.g. library, 図書館).")],
) -> str:
    """Move yourself to another building of the city. Pass the building id or its name."""
    return _go(ctx, find_building(ctx, building))


@tool("move_persona")
def move_persona(
    ctx: ToolContext,
    building_id: Annotated[str, Field(description="Destination building id (list_city_buildings shows them).")],
    persona_id: Annotated[str, Field(description="Only yourself: omit it, or give your own id.")] = "",
) -> str:
    """Move yourself to another building (by its id)."""
    if persona_id.strip() and persona_id.strip() != ctx.persona_id:
        raise ToolError(f"ほかのペルソナ ({persona_id.strip()}) を移動させることはできません。自分だけが移動できます。")
    return _go(ctx, find_building(ctx, building_id))
