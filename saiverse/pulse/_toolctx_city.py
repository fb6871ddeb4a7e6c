"""The city as one tool call reaches it: the persona, buildings, history, working memory, schedules,
a production, the router's playbooks.

A service of `saiverse.pulse._toolctx.ManagerToolContext`, handed the call it serves (saiverse/pulse/_toolcall.py).
"""

from __future__ import annotations

import json
from typing import Any

from saiverse.memory import TrackBook
from saiverse.pulse._intent import changes
from saiverse.pulse._journal import persona_context, system_prompt_for
from saiverse.pulse._toolcall import ToolCall
from saiverse.world import BuildingInfo, PersonaInfo, UnknownIdError
from sea.compat import playbook_listing
from tools import ToolError

WORKING_MEMORY = "working_memory"
"""EXTRA_JSON key of a persona's working memory (`update_working_memory`, situation snapshots)."""
BUILDING_CURSORS = "building_cursors"
"""EXTRA_JSON key: building id → last history line the persona took in (`get_building_messages`)."""


class CityTools:
    """The persona, the city and the persona's own bookkeeping, for one tool call."""

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        """The call served: its persona, building, pulse and listeners."""
        self.services = call.services

    def pulse_kind(self) -> str | None:
        return self.services.pulse_kind(self.call.pulse_id) if self.call.pulse_id else None

    def track_book(self) -> TrackBook:
        self._persona()  # an unknown persona is refused by name
        return TrackBook(self.services.world.db, self.call.persona_id)

    # ---- the persona and the city -----------------------------------------------------------
    def _persona(self) -> PersonaInfo:
        return self.services.world.persona(self.call.persona_id)

    def persona(self) -> dict[str, Any]:
        return self._persona().to_dict()

    def _building(self, building_id: str) -> BuildingInfo:
        try:
            return self.services.world.building(building_id)
        except UnknownIdError as exc:
            raise ToolError(
                f"建物 {building_id!r} は存在しません。list_city_buildings で id を確かめてください。") from exc

    def building(self, building_id: str) -> dict[str, Any]:
        return self._building(building_id).to_dict()

    def buildings(self) -> list[dict[str, Any]]:
        return [b.to_dict() for b in self.services.world.buildings()]

    def personas_in(self, building_id: str) -> list[dict[str, Any]]:
        self._building(building_id)
        return [{"persona_id": p.persona_id, "name": p.name, "description": p.description}
                for p in self.services.world.personas(building_id)]

    def user_building(self) -> str | None:
        return self.services.world.user_building()

    @changes
    def move_persona(self, building_id: str) -> dict[str, Any]:
        self._building(building_id)
        source = self.call.building_id
        try:
            persona = self.services.world.move_persona(self.call.persona_id, building_id)
        except ValueError as exc:  # full
            raise ToolError(str(exc)) from exc
        self.call.building_id = building_id
        self.call.on_effect(f"{self._building_name(source)}から{self._building_name(building_id)}へ移動しました。")
        return persona.to_dict()

    def _building_name(self, building_id: str) -> str:
        try:
            return self.services.world.building(building_id).name
        except UnknownIdError:
            return building_id

    def building_overview(self) -> dict[str, Any]:
        world = self.services.world
        b = world.building(self.call.building_id)
        return {
            "name": b.name, "description": b.description,
            "personas": [p.name for p in world.personas(self.call.building_id)], "self_name": self._persona().name,
            "user_present": world.user_building() == self.call.building_id,
            "items": [{"name": i.name, "type": i.type}
                      for i in self.services.items.list_owned("building", self.call.building_id)],
            "recent": [{"speaker": h.speaker_name, "content": h.content}
                       for h in world.history(self.call.building_id, limit=6)],
        }

    @changes
    def create_building(self, spec: dict[str, Any]) -> dict[str, Any]:
        try:
            building = self.services.create_building(spec)
        except ValueError as exc:
            raise ToolError(f"建物を作れませんでした: {exc}") from exc
        self.call.on_effect(f"建物「{building.name}」({building.building_id}) を建てました。")
        return building.to_dict()

    def system_prompt(self, building_id: str) -> str:
        return system_prompt_for(persona_context(self._persona()), self._building(building_id))

    # ---- building history -------------------------------------------------------------------
    def building_lines(self, building_id: str, after_id: int | None, limit: int) -> list[dict[str, Any]]:
        self._building(building_id)
        world = self.services.world
        lines = (world.history(building_id, limit=limit) if after_id is None
                 else world.history_after(building_id, after_id, limit=limit))
        return [h.to_dict() for h in lines]

    def last_own_line(self, building_id: str) -> int | None:
        return self.services.world.last_line_by(building_id, self.call.persona_id)

    def building_cursor(self, building_id: str) -> int | None:
        cursors = self.services.world.persona_extra(self.call.persona_id, BUILDING_CURSORS) or {}
        value = cursors.get(building_id) if isinstance(cursors, dict) else None
        return int(value) if isinstance(value, int) else None

    def set_building_cursor(self, building_id: str, line_id: int) -> None:
        world = self.services.world
        cursors = world.persona_extra(self.call.persona_id, BUILDING_CURSORS)
        cursors = dict(cursors) if isinstance(cursors, dict) else {}
        cursors[building_id] = int(line_id)
        world.set_persona_extra(self.call.persona_id, BUILDING_CURSORS, cursors)
        self.call.on_effect(None)

    # ---- working memory ---------------------------------------------------------------------
    def working_memory(self) -> dict[str, Any]:
        data = self.services.world.persona_extra(self.call.persona_id, WORKING_MEMORY)
        return dict(data) if isinstance(data, dict) else {}

    @changes
    def set_working_memory(self, key: str, value: Any) -> None:
        data = self.working_memory()
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
        self.services.world.set_persona_extra(self.call.persona_id, WORKING_MEMORY, data)
        self.call.on_effect(f"作業メモ「{key}」を{'消しました' if value is None else '書き換えました'}。")

    # ---- schedules --------------------------------------------------------------------------
    @changes
    def schedule_add(self, spec: dict[str, Any]) -> dict[str, Any]:
        try:
            entry = self.services.add_schedule(self.call.persona_id, spec).to_dict()
        except ValueError as exc:
            raise ToolError(f"予定を追加できませんでした: {exc}") from exc
        self.call.on_effect(f"予定 {entry.get('schedule_id')} を追加しました。")
        return entry

    def schedule_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.services.schedules.list(self.call.persona_id)]

    @changes
    def schedule_delete(self, schedule_id: str) -> bool:
        gone = self.services.schedules.delete(schedule_id, self.call.persona_id)
        if gone:
            self.call.on_effect(f"予定 {schedule_id} を消しました。")
        return gone

    # ---- production -------------------------------------------------------------------------
    @changes
    def run_production(self, request: str) -> str:
        # Noted before it starts: a run stopped half-way has still made what it made.
        self.call.on_effect(f"制作を始めました: {request[:200]}")
        summary = self.services.production.start(self.call.persona_id, self.call.building_id, request, self.call.notify,
                                                 pulse_id=self.call.pulse_id)
        done = [s for s in summary.plan if s.get("status") == "completed"]
        made = [a["name"] for a in summary.artifacts.values() if a.get("name")]
        state = "完了" if summary.finished else "中断"
        return (f"制作{state} (run {summary.run_id[:8]}): {len(done)}/{len(summary.plan)} 工程。"
                f"できたもの: {'、'.join(made) or 'なし'}")

    # ---- playbooks ----------------------------------------------------------------------------
    def router_playbooks(self) -> list[dict[str, Any]]:
        """The catalogue's router-callable playbooks and, for this persona, one per MCP tool of hers."""
        own = self.services.persona_playbooks(self.call.persona_id)
        listing = self.services.router_listing()
        return sorted(listing + playbook_listing(own), key=lambda e: e["name"]) if own else listing

    def router_playbooks_json(self) -> str:
        if not self.services.persona_playbooks(self.call.persona_id):
            return self.services.router_listing_json()  # the same text, made once per catalogue version
        return json.dumps(self.router_playbooks(), ensure_ascii=False)
