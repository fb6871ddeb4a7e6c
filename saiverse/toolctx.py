"""The manager's implementation of `tools.ToolContext`: the world as one tool call sees it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager


@dataclass
class ManagerToolContext:
    """Binds a tool call to a persona, a building and (optionally) a pulse."""

    manager: SAIVerseManager
    persona_id: str
    building_id: str
    pulse_id: str | None = None

    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        # The current pulse's messages are already in the persona's context: recall looks further back.
        hits = self.manager.memory.search(self.persona_id, query, limit=limit + 10)
        return [dict(r) for r in hits if not self.pulse_id or r.get("pulse_id") != self.pulse_id][:limit]

    def move_persona(self, building_id: str) -> dict[str, Any]:
        persona = self.manager.world.move_persona(self.persona_id, building_id)
        self.building_id = building_id
        return persona.to_dict()

    def buildings(self) -> list[dict[str, Any]]:
        return [b.to_dict() for b in self.manager.world.buildings()]

    def building_overview(self) -> dict[str, Any]:
        m = self.manager
        b = m.world.building(self.building_id)
        me = m.world.persona(self.persona_id)
        return {
            "name": b.name, "description": b.description,
            "personas": [p.name for p in m.world.personas(self.building_id)], "self_name": me.name,
            "user_present": m.world.user_building() == self.building_id,
            "items": [{"name": i.name, "type": i.type} for i in m.items.list_owned("building", self.building_id)],
            "recent": [{"speaker": h.speaker_name, "content": h.content}
                       for h in m.world.history(self.building_id, limit=6)],
        }

    def schedule_add(self, spec: dict[str, Any]) -> dict[str, Any]:
        return self.manager.add_schedule(self.persona_id, spec).to_dict()

    def schedule_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.manager.schedules.list(self.persona_id)]

    def schedule_delete(self, schedule_id: str) -> bool:
        return self.manager.schedules.delete(schedule_id, self.persona_id)
