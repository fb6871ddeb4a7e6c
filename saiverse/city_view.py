"""The city as the entry points read it: buildings, personas, the map, the user's place, history.

A service the manager builds (saiverse/manager.py) with the parts it reads; the rules live in
saiverse/world/. Writes here are only the user's own place (`move_user`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from database import Database
from saiverse.llm.answering import Answering, answering_all
from saiverse.pulse import ProductionService
from saiverse.settings import SettingsStore
from saiverse.world import BuildingInfo, HistoryEntry, ItemStore, MapSpot, PersonaInfo, World, avatar_path, map_layout
from words import say


class CityView:
    """Buildings, personas, history and the map, as the UI and the CLI show them."""

    def __init__(self, *, db: Database, world: World, items: ItemStore, production: ProductionService,
                 settings: SettingsStore, autonomous: Callable[[], bool]) -> None:
        self.db = db
        self.world = world
        self.items = items
        self.production = production
        """Each building's current production plan (the side panel)."""
        self.settings_store = settings
        self.autonomous = autonomous
        """→ whether the city's 自律 switch is on (saiverse/clock.py)."""

    def buildings(self) -> list[BuildingInfo]:
        return self.world.buildings()

    def building_view(self, building_id: str) -> dict[str, Any]:
        """A building with the personas in it (and the model each answers with) and its items."""
        settings = self.settings_store.current
        b = self.world.building(building_id)
        personas = self.world.personas(building_id)
        return {
            "building": b,
            "personas": personas,
            "items": self.items.list_owned("building", building_id),
            "production": self.production.current_plan(building_id),
            "models": {a.persona_id: a.to_dict() for a in answering_all(settings, personas)},
            "avatars": {p.persona_id: str(path) for p in personas
                        if (path := avatar_path(settings.home, p.avatar_image)) is not None},
        }

    def persona_models(self) -> list[Answering]:
        """Every persona's chat model: what is configured, what really answers, and why."""
        return answering_all(self.settings_store.current, self.world.personas())

    def personas(self) -> list[PersonaInfo]:
        return self.world.personas()

    def world_snapshot(self) -> dict[str, Any]:
        """Buildings with their items and map position, personas with their building and activity
        state (CLI `world --json`)."""
        from saiverse.memory import activity_states, map_positions

        states, positions = activity_states(self.db), map_positions(self.db)
        return {
            "user_building": self.world.user_building(),
            "buildings": [
                {
                    **b.to_dict(),
                    "map_position": positions.get(b.building_id),
                    "items": [
                        {"item_id": i.item_id, "name": i.name, "type": i.type}
                        for i in self.items.list_owned("building", b.building_id)
                    ],
                }
                for b in self.world.buildings()
            ],
            "personas": [
                {"persona_id": p.persona_id, "name": p.name, "building_id": p.building_id,
                 "interaction_mode": p.interaction_mode, "default_model": p.default_model,
                 "lightweight_model": p.lightweight_model, "vision_model": p.vision_model,
                 "lightweight_vision_model": p.lightweight_vision_model, "private_room_id": p.private_room_id,
                 "avatar_image": p.avatar_image, "activity_state": states.get(p.persona_id)}
                for p in self.world.personas()
            ],
        }

    def city_map(self) -> list[MapSpot]:
        """The city map: each building's place (stored, or auto-placed on a grid), who is in it and
        whether the user is there (saiverse/world/_map.py)."""
        from saiverse.memory import map_positions

        return map_layout(self.world.buildings(), map_positions(self.db), self.world.personas(),
                          self.user_building())

    def user_building(self) -> str:
        bid = self.world.user_building()
        if bid is None:
            bid = self.world.buildings()[0].building_id
            self.world.move_user(bid)
        return bid

    def move_user(self, building_id: str) -> BuildingInfo:
        return self.world.move_user(building_id)

    def chat_target(self, building_id: str | None, persona_id: str | None) -> str:
        """The building a user's message goes to: the one named, else the persona's, else the user's.

        Raises UnknownIdError for an unknown building or persona, and UsageError when the persona
        named is not in the building named (a persona answers where it is)."""
        from saiverse.errors import UsageError

        persona = self.world.persona(persona_id) if persona_id else None
        building = building_id or (persona.building_id if persona else self.user_building())
        self.world.building(building)
        if persona is not None and persona.building_id != building:
            raise UsageError(say("persona_elsewhere", persona=persona_id, building=building, where=persona.building_id))
        return building

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[HistoryEntry]:
        return self.world.history(building_id, limit=limit, before_id=before_id)

    def startup_notice(self) -> str:
        """One console line at start: the model chats answer with, and why (a persona's own model wins for it)."""
        from saiverse.llm import describe_default

        model, why = describe_default(self.settings_store.current)
        # A persona whose own model cannot answer says so too (an imported `gemini-…` with no key).
        own = [f"\n  {a.line()}" for a in self.persona_models() if a.fallback and a.own]
        return say("startup", lang=self.settings_store.current.lang, model=model, why=why) + "".join(own)

    def autonomy_status(self) -> dict[str, Any]:
        """The 自律 switch as the chat view shows it: on/off, which personas act, and how often."""
        actors = [p for p in self.world.personas() if p.interaction_mode == "auto" and p.building_id]
        intervals = {p.building_id: self.world.building(p.building_id).auto_interval_sec for p in actors}
        return {"on": self.autonomous(), "personas": [p.name for p in actors],
                "minutes": max(1, round(min(intervals.values(), default=600) / 60))}

    def tracks_view(self, persona_id: str) -> dict[str, Any]:
        """A persona's upstream v0.3 activity: state (Idle when none was kept), tracks with their open
        notes and logs, notes, SAIMemory notes and meta judgments, as saiverse/memory/_tracks.py reads them."""
        from saiverse.memory import activity_states, judgments, memory_notes, notes, tracks

        return {"state": activity_states(self.db).get(persona_id, "Idle"), "tracks": tracks(self.db, persona_id),
                "notes": notes(self.db, persona_id), "memory_notes": memory_notes(self.db, persona_id),
                "judgments": judgments(self.db, persona_id)}
