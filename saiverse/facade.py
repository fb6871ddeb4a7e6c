"""The manager's world, item and memory methods: what the UI and the CLI read and upload.

A mixin of `SAIVerseManager` (saiverse/manager.py), kept apart so each module stays one idea: the
manager wires the services, this reads and changes the world through them. It declares the parts it
uses; the manager provides them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chat import ChatModel
from database.engine import Database
from saiverse.chat_redo import ChatRedo
from saiverse.llm.answering import Answering, answering_all
from saiverse.memory import ChronicleBuilder, ChronicleStore, MemopediaStore, MemoryRecord, SAIMemory, recall
from saiverse.pulse import ModelResolver, ProductionService, persona_context
from saiverse.settings import Settings
from saiverse.world import (
    BuildingInfo,
    CheckedImage,
    HistoryEntry,
    ItemInfo,
    ItemStore,
    MapSpot,
    PersonaInfo,
    World,
    avatar_path,
    check_image,
    check_pdf,
    crop_to_ratio,
    is_pdf,
    map_layout,
)


class WorldFacade(ChatRedo):
    """Buildings, personas, history, items and memory, as the entry points see them."""

    db: Database
    autonomous: bool
    world: World
    items: ItemStore
    memory: SAIMemory
    memopedia: MemopediaStore
    chronicle: ChronicleStore
    chronicle_builder: ChronicleBuilder
    production: ProductionService
    models: ModelResolver
    settings: Settings

    # ---- world ----------------------------------------------------------------------------
    def buildings(self) -> list[BuildingInfo]:
        return self.world.buildings()

    def building_view(self, building_id: str) -> dict[str, Any]:
        """A building with the personas in it (and the model each answers with) and its items."""
        b = self.world.building(building_id)
        personas = self.world.personas(building_id)
        return {
            "building": b,
            "personas": personas,
            "items": self.items.list_owned("building", building_id),
            "production": self.production.current_plan(building_id),
            "models": {a.persona_id: a.to_dict() for a in answering_all(self.settings, personas)},
            "avatars": {p.persona_id: str(path) for p in personas
                        if (path := avatar_path(self.settings.home, p.avatar_image)) is not None},
        }

    def persona_models(self) -> list[Answering]:
        """Every persona's chat model: what is configured, what really answers, and why."""
        return answering_all(self.settings, self.world.personas())

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
            raise UsageError(f"persona {persona_id!r} is not in {building!r} (it is in {persona.building_id!r})")
        return building

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[HistoryEntry]:
        return self.world.history(building_id, limit=limit, before_id=before_id)

    # ---- items ----------------------------------------------------------------------------
    def item(self, item_id: str) -> ItemInfo:
        return self.items.get(item_id)

    def item_view(self, item_id: str) -> dict[str, Any]:
        """What the item modal shows: picture → image path, document → text, object → 閲覧不可."""
        info = self.items.get(item_id)
        view: dict[str, Any] = {"item": info, "viewable": info.type in ("picture", "document")}
        if info.type == "picture":
            view["image_path"] = str(self.items.file_of(info))
        elif info.type == "document":
            view["text"] = self.items.read_document(item_id)
        return view

    def save_document(self, item_id: str, text: str, *, expected_version: int | None = None) -> ItemInfo:
        """Save a document's text; with `expected_version`, a newer stored version is never overwritten."""
        return self.items.save_document(item_id, text, expected_version=expected_version)

    def check_image(self, data: bytes) -> CheckedImage:
        """Image bytes against the configured limits (format judged from the content)."""
        return check_image(data, max_bytes=self.settings.max_upload_bytes, max_pixels=self.settings.max_upload_pixels)

    def upload_image(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """An uploaded image becomes a picture item in the building (checked before storing)."""
        self.world.building(building_id)
        return self.items.create_picture(
            self.check_image(data), (name or "アップロード画像").strip() or "アップロード画像",
            owner_kind="building", owner_id=building_id, state={"created_by": "user_upload"},
        )

    def upload_pdf(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """An uploaded PDF becomes a document item in the building (checked, then summarised from its text)."""
        self.world.building(building_id)
        pages = check_pdf(data, max_bytes=self.settings.max_upload_bytes)
        return self.items.create_pdf(data, (name or "PDF").strip() or "PDF", pages=pages, owner_kind="building",
                                     owner_id=building_id, state={"created_by": "user_upload"})

    def upload_path(self, building_id: str, path: Path) -> ItemInfo:
        """A file on disk as an item of `building_id` (read in chunks up to the upload limit).

        Raises UnknownIdError before a long read, InputError for an unreadable, non-regular or too
        large file, UsageError naming the file when it is neither an image nor a PDF."""
        from saiverse.errors import UsageError
        from saiverse.inputs import read_limited

        self.world.building(building_id)
        data = read_limited(path, self.settings.max_upload_bytes, what="upload", limit_name="SAIVERSE_MAX_UPLOAD_BYTES")
        # A file name that is not UTF-8 is still a file; its item name shows the bad bytes as �.
        name = os.fsencode(path.stem).decode("utf-8", "replace")
        try:
            return self.upload_file(building_id, data, name)
        except ValueError as exc:  # not an image or a PDF, too many pixels, a bad name: say which file
            raise UsageError(f"upload {path}: {exc}") from exc

    def upload_file(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """A PDF becomes a document item, anything else must be an image (a picture item); judged by content."""
        if is_pdf(data):
            return self.upload_pdf(building_id, data, name)
        return self.upload_image(building_id, data, name)

    def draw_picture(self, persona_id: str, building_id: str, prompt: str, name: str,
                     state: dict[str, Any], *, aspect_ratio: str | None = None) -> ItemInfo:
        """A persona draws `prompt` (its model's image generation; offline: procedural) and the picture
        hangs in `building_id`, summarised by the persona's LIGHTWEIGHT_VISION_MODEL chain.
        `aspect_ratio` ("16:9") centre-crops what the model drew."""
        persona = self.world.persona(persona_id)
        model, _notice = self.models(persona_context(persona), "image")
        data, _mime = model.generate_image(prompt)
        image = self.check_image(data)  # what the model returned is checked before anything reads it
        if aspect_ratio:
            image = self.check_image(crop_to_ratio(image.data, aspect_ratio))
            state = {**state, "aspect_ratio": aspect_ratio}
        return self.items.create_picture(
            image, name, owner_kind="building", owner_id=building_id,
            state={**state, "prompt": prompt, "model": model.name}, summary_model=persona.lightweight_vision_model)

    # ---- memory ---------------------------------------------------------------------------
    def memory_messages(self, persona_id: str, *, search: str | None = None, limit: int = 200) -> list[MemoryRecord]:
        """Messages oldest first; with `search`, recall hits of every kind (each with its `kind`)."""
        self.world.persona(persona_id)
        if search:
            return self.recall(persona_id, search, limit=limit)  # type: ignore[return-value]
        return list(reversed(self.memory.list_messages(persona_id, limit=limit)))

    def recall(self, persona_id: str, query: str, *, limit: int = 20,
               exclude_pulse: str | None = None) -> list[dict[str, Any]]:
        """Messages, Chronicle entries and Memopedia pages matching `query`, ranked with recency."""
        index = getattr(self, "memory_index", None)  # SAIVERSE_EMBEDDING_MODEL: stored vectors fused in
        return recall(self.memory, self.chronicle, self.memopedia, persona_id, query, limit=limit,
                      exclude_pulse=exclude_pulse, dense=index.dense if index is not None else None)

    def _summary_model(self, persona_id: str) -> ChatModel:
        """The model that writes a persona's Chronicle: its lightweight chain."""
        return self.models(persona_context(self.world.persona(persona_id)), "lightweight")[0]

    def startup_notice(self) -> str:
        """One console line at start: the model chats answer with, and why (a persona's own model wins for it)."""
        from saiverse.llm.registry import describe_default

        model, why = describe_default(self.settings)
        # A persona whose own model cannot answer says so too (an imported `gemini-…` with no key).
        own = [f"\n  {a.line()}" for a in self.persona_models() if a.fallback and a.own]
        return f"model: {model} — {why}" + "".join(own)

    def autonomy_status(self) -> dict[str, Any]:
        """The 自律 switch as the chat view shows it: on/off, which personas act, and how often."""
        actors = [p for p in self.world.personas() if p.interaction_mode == "auto" and p.building_id]
        intervals = {p.building_id: self.world.building(p.building_id).auto_interval_sec for p in actors}
        return {"on": self.autonomous, "personas": [p.name for p in actors],
                "minutes": max(1, round(min(intervals.values(), default=600) / 60))}

    def tracks_view(self, persona_id: str) -> dict[str, Any]:
        """A persona's upstream v0.3 activity: state (Idle when none was kept), tracks with their open
        notes and logs, notes, SAIMemory notes and meta judgments, as saiverse/memory/_tracks.py reads them."""
        from saiverse.memory import activity_states, judgments, memory_notes, notes, tracks

        return {"state": activity_states(self.db).get(persona_id, "Idle"), "tracks": tracks(self.db, persona_id),
                "notes": notes(self.db, persona_id), "memory_notes": memory_notes(self.db, persona_id),
                "judgments": judgments(self.db, persona_id)}

    def build_chronicle(self, persona_id: str) -> dict[str, Any]:
        """Write the persona's due Chronicle entries now (CLI `chronicle --build`)."""
        self.world.persona(persona_id)
        return self.chronicle_builder.build_due(persona_id).to_dict()
