"""create_building: a persona adds a new building to the city (the admin tab's rules apply)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool("create_building")
def create_building(
    ctx: ToolContext,
    name: Annotated[str, Field(description="Name of the building (e.g. '静寂の図書館', 'カフェ・モーメント').")],
    description: Annotated[str, Field(description="Its purpose and atmosphere, shown to whoever finds it.")],
    system_instruction: Annotated[str, Field(
        description="How personas in this building should behave: atmosphere, rules, expected interactions.")],
    capacity: Annotated[int, Field(description="How many personas fit in it at once.", ge=1, le=1000)] = 10,
    interior_image_path: Annotated[str, Field(
        description="Upstream's interior picture; buildings here have no picture, so it is not used.")] = "",
) -> str:
    """Create a new building in the city, with a description and the system instruction personas follow there."""
    if not name.strip():
        raise ToolError("建物の名前が空です。")
    if not system_instruction.strip():
        raise ToolError("建物の system_instruction (そこでのふるまい) が空です。")
    if any(b["name"] == name.strip() for b in ctx.buildings()):
        raise ToolError(f"「{name.strip()}」という建物はもうあります。別の名前にしてください。")
    made = ctx.create_building({"name": name.strip(), "description": description.strip(),
                                "system_instruction": system_instruction.strip(), "capacity": capacity})
    note = "\n内装画像はこの街の建物にはないため設定していません。" if interior_image_path.strip() else ""
    return (f"新しい建物「{made['name']}」を作りました (building_id: {made['building_id']})。\n"
            f"説明: {made['description'] or '(なし)'}\n定員: {made['capacity']}名{note}")
