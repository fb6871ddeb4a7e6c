"""item_move (upstream v0.3): move items (comma-separated ids) to this building or into a persona's hands.

Each moved item takes the smallest free slot number of its new container, as upstream numbers them
(saiverse/world/_item_slots.py). All ids are checked before anything moves. Upstream's bags (items that hold
items) do not exist in this app, so `destination_type: bag` is refused by name.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool

NO_BAGS = ("鞄 (bag) はこのアプリにはありません。手に持つなら destination_type に persona、"
           "置くなら building を指定してください。")


@tool("item_move")
def item_move(
    ctx: ToolContext,
    item_ids: Annotated[str, Field(description="Item ids, comma-separated.")],
    destination_type: Annotated[Literal["building", "persona", "bag"],
                                Field(description="building (put down here) or persona (carry).")],
    destination_id: Annotated[str | None, Field(
        description="The building (default: where you are) or persona (default: you; or someone here).")] = None,
) -> str:
    """Move items: put them down in your building, or carry them (or hand them to a persona here)."""
    ids = list(dict.fromkeys(i.strip() for i in item_ids.split(",") if i.strip()))
    if not ids:
        raise ToolArgumentError("item_ids に動かすアイテムの id を (カンマ区切りで) 指定してください。")
    target = (destination_id or "").strip()
    if destination_type == "bag":
        raise ToolError(NO_BAGS)
    if destination_type == "building":
        target = target or ctx.building_id
        if target != ctx.building_id:
            name = ctx.building(target)["name"]
            raise ToolError(f"いまは{name}にいないので、そこには置けません。先に移動してください。")
    else:
        target = target or ctx.persona_id
        if target != ctx.persona_id and target not in {p["persona_id"] for p in ctx.personas_in(ctx.building_id)}:
            raise ToolError(f"ペルソナ {target!r} はこの建物にいないので渡せません。")
    items = [ctx.item(i) for i in ids]  # every id must be in reach before anything moves
    already = [i["name"] for i in items if (i["owner_kind"], i["owner_id"]) == (destination_type, target)]
    if already:
        raise ToolError(f"「{'」「'.join(already)}」はもうそこにあります。")
    moved = [ctx.move_item_to(i["item_id"], destination_type, target) for i in items]
    return json.dumps({"moved": [{"item_id": m["item_id"], "name": m["name"], "owner_kind": m["owner_kind"],
                                  "owner_id": m["owner_id"], "slot_number": m.get("slot_number")} for m in moved]},
                      ensure_ascii=False)
