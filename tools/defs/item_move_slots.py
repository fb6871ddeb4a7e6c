"""item_move (upstream v0.3): move items (comma-separated ids, or short ids `item:N`) to this building, into
a persona's hands, or into a bag within reach (saiverse/world/_item_bags.py); an item in a bag is taken out
by moving it to the building or to a persona.

Each moved item takes the smallest free slot number of its new container, as upstream numbers them
(saiverse/world/_item_slots.py). All ids are checked before anything moves.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool

NEED_BAG = "袋に入れるときは destination_id に袋の id (または item:N) を指定してください。"


@tool("item_move")
def item_move(
    ctx: ToolContext,
    item_ids: Annotated[str, Field(description="Item ids, comma-separated.")],
    destination_type: Annotated[Literal["building", "persona", "bag"],
                                Field(description="building (put down here), persona (carry) or bag (put into).")],
    destination_id: Annotated[str | None, Field(
        description="The building (default: where you are), persona (default: you; or someone here) or bag "
                    "(its id or item:N; required).")] = None,
) -> str:
    """Move items: put them down in your building, carry them (or hand them to a persona here), or put them
    into a bag within reach; an item in a bag comes out when moved to the building or a persona."""
    ids = list(dict.fromkeys(i.strip() for i in item_ids.split(",") if i.strip()))
    if not ids:
        raise ToolArgumentError("item_ids に動かすアイテムの id を (カンマ区切りで) 指定してください。")
    target = (destination_id or "").strip()
    if destination_type == "bag":
        if not target:
            raise ToolArgumentError(NEED_BAG)
        bag = ctx.item(target)  # within reach; item:N taken too
        if bag["type"] != "bag" and (bag.get("state") or {}).get("upstream_type") != "bag":
            raise ToolError(f"「{bag['name']}」は袋ではないので、中に入れられません。")
        target = bag["item_id"]
    elif destination_type == "building":
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
