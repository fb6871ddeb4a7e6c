"""get_system_prompt: the persona's system prompt (who it is, where), with what it carries, the
building's items and the playbooks it may choose — the same prompt its model calls start from."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool

_KIND = {"object": "オブジェクト", "picture": "絵", "document": "文書"}

BuildingId = Annotated[str, Field(description="Building id; default: where you are.")]
Inventory = Annotated[bool, Field(description="List the items you carry.")]
BuildingItems = Annotated[bool, Field(description="List the items in the building.")]


def _item_lines(items: list[dict[str, Any]]) -> list[str]:
    return [f"- [{i['item_id']}] {i['name']} ({_KIND.get(i['type'], i['type'])}): "
            f"{' '.join(str(i['description']).split()) or '(説明なし)'}" for i in items]


def build_system_prompt(ctx: ToolContext, building_id: str, *, inventory: bool, building_items: bool,
                        playbooks: bool = False) -> str:
    """The system prompt with the optional sections (items are listed with their ids for the item tools)."""
    sections = [ctx.system_prompt(building_id).strip()]
    if inventory:
        carried = _item_lines(ctx.carried_items())
        sections.append("### 持ち物\n" + ("\n".join(carried) if carried else "(何も持っていません)"))
    if building_items:
        name = ctx.building(building_id)["name"]
        lying = _item_lines(ctx.building_items(building_id))
        sections.append(f"### {name}にあるアイテム\n" + ("\n".join(lying) if lying else "(ありません)"))
    if playbooks:
        lines = [f"- {p['name']} ({p['display_name'] or p['name']}): {p['description']}"
                 for p in ctx.router_playbooks()]
        sections.append("## 使えるプレイブック\n" + "\n".join(lines))
    return "\n\n---\n\n".join(s for s in sections if s)


@tool("get_system_prompt")
def get_system_prompt(
    ctx: ToolContext,
    building_id: BuildingId = "",
    include_inventory: Inventory = True,
    include_building_items: BuildingItems = True,
    include_available_playbooks: Annotated[bool, Field(description="List the playbooks you may choose.")] = False,
) -> str:
    """Get your system prompt: who you are and where, with your items, the building's items and
    (optionally) the playbooks you may choose.
    """
    bid = building_id.strip() or ctx.building_id
    ctx.building(bid)
    return build_system_prompt(ctx, bid, inventory=include_inventory, building_items=include_building_items,
                               playbooks=include_available_playbooks)
