"""list_city_buildings: every building of the city with its id and who is in it (JSON, as upstream)."""

from __future__ import annotations

import json

from tools.context import ToolContext
from tools.registry import tool


@tool("list_city_buildings")
def list_city_buildings(ctx: ToolContext) -> str:
    """List all buildings of the city with their ids, descriptions and the personas in each.

    Returns a JSON list of {building_id, name, description, occupants: [{persona_id, persona_name}]},
    sorted by name; `building_id` is what move_persona takes.
    """
    result = [
        {"building_id": b["building_id"], "name": b["name"], "description": b["description"],
         "occupants": [{"persona_id": p["persona_id"], "persona_name": p["name"]}
                       for p in ctx.personas_in(b["building_id"])]}
        for b in ctx.buildings()
    ]
    result.sort(key=lambda b: b["name"])
    return json.dumps(result, ensure_ascii=False)
