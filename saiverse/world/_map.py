"""The city map: where each building stands, who is in it, where the user is (docs/ARCHITECTURE.md, "UI").

Upstream v0.3 gives a building a position on its city map (building.MAP_X / MAP_Y, world
coordinates, roughly pixels, may be negative or fractional; NULL = "the UI places it"). `map_layout`
keeps every stored position as it is and places the others on a grid below them, in the building
list's order, so the same city always gets the same picture and setting one building's position
moves no other placed building.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

GRID = 160.0
"""Distance between two automatically placed buildings (world units)."""
MAP_LIMIT = 100_000.0
"""A stored position lies within ±MAP_LIMIT: beyond it a typo, not a city (saiverse/care/_admin.py checks)."""


@dataclass(frozen=True)
class MapSpot:
    """One building on the city map."""

    building_id: str
    name: str
    x: float
    y: float
    auto: bool
    """True when the building has no stored position and was placed on the grid."""
    personas: list[dict[str, str]] = field(default_factory=list)
    """Who is inside: `persona_id`, `name`, `avatar`, in the order the world lists them."""
    user_here: bool = False
    """The user is in this building."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _free_cells(origin: tuple[float, float], columns: int,
                taken: list[tuple[float, float]]) -> Iterable[tuple[float, float]]:
    """Grid cells row by row from `origin`, skipping those a stored position already stands on."""
    index = 0
    while True:
        x = origin[0] + (index % columns) * GRID
        y = origin[1] + (index // columns) * GRID
        index += 1
        if all(abs(x - tx) >= GRID / 2 or abs(y - ty) >= GRID / 2 for tx, ty in taken):
            yield x, y


def map_layout(buildings: Iterable[Any], positions: Mapping[str, tuple[float, float] | None],
               personas: Iterable[Any], user_building: str | None) -> list[MapSpot]:
    """Every building with its place on the map, in the order of `buildings`.

    Args:
        buildings: BuildingInfo-like values (`building_id`, `name`), in the building list's order.
        positions: building id → its stored (x, y), or None / absent for "place it automatically".
        personas: PersonaInfo-like values (`persona_id`, `name`, `avatar`, `building_id`).
        user_building: the building the user is in.

    Returns:
        One `MapSpot` per building: stored positions unchanged, the others on a grid of `GRID` units
        starting one row below the lowest stored position (at the origin when none is stored).
    """
    buildings = list(buildings)
    placed = {bid: (float(p[0]), float(p[1])) for bid, p in positions.items() if p is not None}
    inside: dict[str, list[dict[str, str]]] = {}
    for p in personas:
        if p.building_id:
            inside.setdefault(p.building_id, []).append(
                {"persona_id": p.persona_id, "name": p.name, "avatar": p.avatar or "🙂"})
    auto_ids = [b.building_id for b in buildings if b.building_id not in placed]
    spots_taken = [placed[b.building_id] for b in buildings if b.building_id in placed]
    origin = (min(x for x, _ in spots_taken), max(y for _, y in spots_taken) + GRID) if spots_taken else (0.0, 0.0)
    columns = max(2, math.ceil(math.sqrt(len(auto_ids)))) if auto_ids else 1
    cells = _free_cells(origin, columns, spots_taken)
    where = {bid: next(cells) for bid in auto_ids}
    return [
        MapSpot(b.building_id, b.name, *(placed.get(b.building_id) or where[b.building_id]),
                auto=b.building_id not in placed, personas=inside.get(b.building_id, []),
                user_here=b.building_id == user_building)
        for b in buildings
    ]
