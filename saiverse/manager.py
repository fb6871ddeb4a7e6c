"""SAIVerseManager: the in-process facade the UI and the CLI call (docs/ARCHITECTURE.md, "Layers").

It owns the database and the stores (world, SAIMemory, items, the pulse controller) and is the only thing
`ui/` and `main.py` talk to. It wires the services: each is a class in its own module that gets only the
parts it uses (stores, a model resolver, the settings store), never the manager —

- `CityView` (saiverse/city_view.py): buildings, personas, the map, history, start-up lines;
- `Uploads` (saiverse/uploads.py): the item modal, uploads, a persona's drawing;
- `MemoryView` (saiverse/memory_view.py): a persona's messages, recall, building its Chronicle;
- `Conversation` (saiverse/conversation.py): a user's message and who answers it, a playbook run;
- `ChatRedo` (saiverse/chat_redo.py): deleting, regenerating, swiping and editing chat lines, avatars;
- `CityClock` (saiverse/clock.py): the ticker, due schedules, autonomous turns;
- `ToolCalls` (saiverse/tool_calls.py): a tool run as a persona, the tools a node offers.

The manager implements `saiverse.port.CityPort` by delegating each method to the service that owns it
(one line each, below `close`). Opening it migrates the database and seeds the first-run world.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import words
from chat import ChatModel, LLMError
from database.migrate import MigrationError
from saiverse.care import AdminError, AdminService, DeleteHooks, RepairReport
from saiverse.chat_redo import ChatRedo
from saiverse.city_view import CityView
from saiverse.clock import CityClock
from saiverse.conversation import Conversation
from saiverse.costs import Costs
from saiverse.llm.answering import Answering
from saiverse.llm.registry import model_for, resolve_model
from saiverse.mcp_tools import McpTools
from saiverse.memory import (
    ChronicleBuilder,
    ChronicleStore,
    ChronicleWorker,
    ContextSource,
    MemopediaStore,
    MemoryRecord,
    SAIMemory,
    WordNeighbours,
    enabled_personas,
    open_memory_index,
)
from saiverse.memory_view import MemoryView
from saiverse.metering import metered
from saiverse.opening import open_home, recover
from saiverse.pulse import (
    ModelResolver,
    PlaybookCatalog,
    ProductionService,
    PulseController,
    PulseHandle,
    PulseServices,
    Sight,
    ToolServices,
    persona_context,
    remote_pulses,
)
from saiverse.seed import seed_world
from saiverse.settings import Settings, SettingsStore
from saiverse.store import backup_hook, checkpoints_of
from saiverse.ticker import EventSink, Ticker
from saiverse.tool_calls import ToolCalls
from saiverse.uploads import Uploads
from saiverse.voice import VoiceService
from saiverse.world import (
    AutonomousTurns,
    BuildingInfo,
    HistoryEntry,
    ItemInfo,
    ItemStore,
    LineDeletion,
    MapSpot,
    PersonaInfo,
    ScheduleInfo,
    ScheduleStore,
    Summarizer,
    Swipes,
    World,
    WorldSettings,
)
from sea.events import Event
from sea.playbook import Playbook
from sea.ports import PersonaContext


class SAIVerseManager:
    """One SAIVerse world, opened from a data home: the stores, the services over them, and `CityPort`."""

    def __init__(self, settings: Settings, *, seed: bool = True, models: ModelResolver | None = None,
                 index: bool = True) -> None:
        words.use(settings.lang)  # the backend's messages are worded in the language of these settings
        self.settings_store = SettingsStore(settings)
        """The settings in force; the 設定 tab saves through it."""
        home = open_home(self.settings_store)  # saiverse/opening.py: checks, the database, its migration
        self.db, self.backups, self.home_lock = home.db, home.backups, home.home_lock
        """The database; the home's backups; the home's lock, held while open."""
        self.world = World(self.db)
        self.memory = SAIMemory(self.db)
        recover(home, self.settings_store, self.memory, self.world)  # what a killed process left
        self.notices: list[str] = home.notices
        """One line per thing start-up changed that the user should know (permissions made private)."""
        self.repair_report: RepairReport = home.repair_report
        """What start-up repair finished or set aside (saiverse/care/_repair.py); empty when all was well."""
        self.summarizer = Summarizer(lambda: self.settings, lambda p, spent: self.costs.record(p, spent))
        self.items = ItemStore(
            self.db, settings.home,
            summarize_document=self.summarizer.document, summarize_picture=self.summarizer.picture,
        )
        self.playbooks = PlaybookCatalog(self.db)
        self.schedules = ScheduleStore(self.db)
        self.costs = Costs(self.db, settings.home, lambda: self.settings.lang)
        """Tokens per persona and day, the home's price table, daily budgets (saiverse/costs.py)."""
        self.models: ModelResolver = self.costs.guarded(models or self._configured_model,
                                                        lambda _p, _kind: resolve_model("local", self.settings))
        """(persona, kind) → (model, fallback notice): every model call goes through it (a persona over her
        daily budget gets the local model); tests hand in a scripted model here."""
        self.admin = AdminService(self.db, self.world, self.settings_store, hooks=DeleteHooks(
            backup=backup_hook(settings, lambda label: self.backups.create("delete", label).path),
            stop_persona=self._stop_persona,
            live_runs=lambda: self.production.live_runs()), items=self.items)
        # Long-term memory: Memopedia, Chronicle (built in the background) and the prompt's context.
        self.memopedia = MemopediaStore(self.db)
        self.chronicle = ChronicleStore(self.db)
        # None unless SAIVERSE_EMBEDDING_MODEL is set; `index=False` (a pulse worker) reads vectors, embeds none
        self.memory_index = open_memory_index(settings, self.db, start=index)
        dense = self.memory_index.dense if self.memory_index else None  # recall's stored vectors, everywhere
        self.word_neighbours = WordNeighbours.packaged(settings.home, lambda: self.settings)
        """Recall's word-neighbour table (saiverse/memory/_neighbours.py): read by every process once it is
        built; the app's server builds it in the background (ui/serve.py)."""
        if settings.word_neighbours:
            self.word_neighbours.start(build=False)
        self.context = ContextSource(self.db, self.chronicle, self.memopedia, default_budget=settings.context_tokens,
                                     dense=dense)
        # Calls outside a pulse are counted as they are made (saiverse/metering.py): Chronicle, production, pictures.
        self.metered_models: ModelResolver = metered(lambda p, kind: self.models(p, kind), self.costs.record)
        self.chronicle_builder = ChronicleBuilder(self.db, self.chronicle, self._summary_model)
        self.chronicle_worker = ChronicleWorker(self.chronicle_builder, lambda: enabled_personas(self.db))
        self.chronicle_worker.start()
        self.memory_view = MemoryView(world=self.world, memory=self.memory, chronicle=self.chronicle,
                                      memopedia=self.memopedia, chronicle_builder=self.chronicle_builder, dense=dense)
        self.uploads = Uploads(world=self.world, items=self.items, models=self.metered_models,
                               settings=self.settings_store)
        self.pulses = PulseController(PulseServices(
            db=self.db, memory=self.memory, world=self.world, resolve_model=lambda p, kind: self.models(p, kind),
            call_tool=self._call_tool, tool_specs=self._tool_specs, playbook=self.playbooks.get,
            router_playbooks=self.playbooks.router_callable, context=self.context,
            target_names=lambda kind, b: [i.name for i in self.items.list_owned("building", b)] if kind == "item"
            else [x.name for x in self.world.buildings()],  # what a request acting on an item / building names
            record_usage=self.costs.record, persona_playbooks=lambda pid: self.mcp.playbooks(pid),
        ), workers=settings.pulse_workers)
        self.sight = Sight(self.pulses.services)
        """What a persona would be given for a message, and chat-line pins (saiverse/pulse/_sight.py)."""
        self.pulses = remote_pulses(settings, self.pulses)  # pulse workers take them (SAIVERSE_PULSE_WORKERS_REMOTE)
        self.auto_turns = AutonomousTurns(self.db)  # claimed across processes: saiverse/world/_auto_turns.py
        self.production = ProductionService(
            db=self.db, world=self.world, items=self.items, memory=self.memory,
            models=self.metered_models, draw_picture=self.uploads.draw_picture, home=settings.home,
            bundles_dir=settings.documents_dir / "bundles", checkpoints_path=checkpoints_of(settings),
        )
        self.world_settings = WorldSettings(self.db)
        """Settings kept in the world's database (the 自律 switch)."""
        self.voices = VoiceService(settings.home, lambda: self.settings, self.world_settings)
        """Each persona's voice, speech synthesis and the audio cache (saiverse/voice/)."""
        self.view = CityView(db=self.db, world=self.world, items=self.items, production=self.production,
                             settings=self.settings_store, autonomous=lambda: self.clock.autonomous)
        self.conversation = Conversation(
            world=self.world, pulses=self.pulses, playbooks=self.playbooks, production=self.production,
            upload_attachment=self.uploads.upload_attachment, settings=self.settings_store,
            user_building=self.view.user_building)
        self.clock = CityClock(
            world=self.world, world_settings=self.world_settings, schedules=self.schedules, auto_turns=self.auto_turns,
            playbooks=self.playbooks, pulses=self.pulses, production=self.production, backups=self.backups,
            settings=self.settings_store, meta_playbook=self.conversation.meta_playbook,
            user_building=self.view.user_building)
        self.chat_redo = ChatRedo(
            db=self.db, world=self.world, memory=self.memory, pulses=self.pulses,
            meta_playbook=self.conversation.meta_playbook, say=self.conversation.handle_user_input,
            check_message=self.conversation.check_message, check_image=self.uploads.check_image,
            settings=self.settings_store, playbook=self.playbooks.get)
        self.mcp = McpTools(settings.home, lambda: self.settings.mcp_timeout)
        """Each persona's MCP servers and their tools (saiverse/mcp_tools.py)."""
        self.tool_services = ToolServices(
            world=self.world, memory=self.memory, items=self.items, schedules=self.schedules,
            add_schedule=self.clock.add_schedule, draw_picture=self.uploads.draw_picture, production=self.production,
            create_building=lambda spec: self.admin.create_building(spec), summarize=self.summarizer.document,
            router_listing=self.playbooks.router_listing, router_listing_json=self.playbooks.router_listing_json,
            pulse_kind=self._pulse_kind, recall=self.memory_view.recall, memopedia=self.memopedia,
            chronicle=self.chronicle, persona_playbooks=self.mcp.playbooks,
        )
        """What tool calls reach (saiverse/pulse/_toolctx.py); built once."""
        self.tools = ToolCalls(services=self.tool_services, mcp=self.mcp, world=self.world,
                               user_building=self.view.user_building)
        from saiverse.llm.local import PullJobs
        from saiverse.llm.servers import start_scan

        self.pulls = PullJobs(self.settings_store)
        """Model downloads the 設定 tab started (saiverse/llm/local/_pull_jobs.py)."""
        self.server_scan = start_scan(settings)
        """The background look for Ollama / LM Studio / llama.cpp servers (saiverse/llm/servers.py); never waited on
        at start."""
        if seed:
            seed_world(self.db, self.items)

    @property
    def settings(self) -> Settings:
        """The settings in force now."""
        return self.settings_store.current

    def close(self) -> None:
        self.chronicle_worker.stop()
        if self.memory_index is not None:
            self.memory_index.stop()
        self.word_neighbours.stop()
        self.pulses.shutdown()
        self.production.close()
        self.voices.close()
        self.db.dispose()
        self.home_lock.close()

    # ---- wiring: what the services are handed -------------------------------------------------
    def _configured_model(self, persona: PersonaContext, kind: str) -> tuple[ChatModel, str | None]:
        return model_for(self.settings, persona, kind)

    def _summary_model(self, persona_id: str) -> ChatModel:
        """The model that writes a persona's Chronicle: its lightweight chain."""
        return self.metered_models(persona_context(self.world.persona(persona_id)), "lightweight")[0]

    def _call_tool(self, *args: Any, **kwargs: Any) -> Any:
        return self.tools.call(*args, **kwargs)

    def _tool_specs(self, names: list[str], persona_id: str | None = None,
                    notify: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        return self.tools.specs(names, persona_id, notify)

    def _pulse_kind(self, pulse_id: str) -> str | None:
        record = self.pulses.record(pulse_id)
        return record.kind if record else None

    def _stop_persona(self, persona_id: str) -> None:
        """Before a persona is deleted: its pulses are cancelled and have ended (AdminError if one will not)."""
        if not self.pulses.stop_persona(persona_id):
            raise AdminError(words.say("del_pulse_busy", name=self.world.persona(persona_id).name))

    # ---- CityPort and the CLI, by delegation (each documented where it is defined) ----------------
    def model_notice(self) -> str | None:
        """A line for the UI when chats run on an embedded model (local or offline), saying why."""
        model, notice = self._configured_model(PersonaContext(), "normal")
        if notice:
            return notice
        if model.provider in ("offline", "local"):
            from saiverse.llm import describe_default

            return describe_default(self.settings)[1] + ("." if self.settings.lang == "en" else "。")
        return None

    def cancel_pulses(self, building_id: str | None = None) -> int:
        """Stop running and queued pulses (the stop button)."""
        return self.pulses.cancel_all(building_id)

    # The city (saiverse/city_view.py).
    def buildings(self) -> list[BuildingInfo]:
        return self.view.buildings()

    def building_view(self, building_id: str) -> dict[str, Any]:
        return self.view.building_view(building_id)

    def persona_models(self) -> list[Answering]:
        return self.view.persona_models()

    def personas(self) -> list[PersonaInfo]:
        return self.view.personas()

    def world_snapshot(self) -> dict[str, Any]:
        return self.view.world_snapshot()

    def city_map(self) -> list[MapSpot]:
        return self.view.city_map()

    def user_building(self) -> str:
        return self.view.user_building()

    def move_user(self, building_id: str) -> BuildingInfo:
        return self.view.move_user(building_id)

    def chat_target(self, building_id: str | None, persona_id: str | None) -> str:
        return self.view.chat_target(building_id, persona_id)

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[HistoryEntry]:
        return self.view.history(building_id, limit=limit, before_id=before_id)

    def startup_notice(self) -> str:
        return self.view.startup_notice()

    def autonomy_status(self) -> dict[str, Any]:
        return self.view.autonomy_status()

    def tracks_view(self, persona_id: str) -> dict[str, Any]:
        return self.view.tracks_view(persona_id)

    # Items (saiverse/uploads.py).
    def item(self, item_id: str) -> ItemInfo:
        return self.uploads.item(item_id)

    def item_view(self, item_id: str) -> dict[str, Any]:
        return self.uploads.item_view(item_id)

    def save_document(self, item_id: str, text: str, *, expected_version: int | None = None) -> ItemInfo:
        return self.uploads.save_document(item_id, text, expected_version=expected_version)

    def upload_image(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        return self.uploads.upload_image(building_id, data, name)

    def upload_pdf(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        return self.uploads.upload_pdf(building_id, data, name)

    def upload_path(self, building_id: str, path: Path) -> ItemInfo:
        return self.uploads.upload_path(building_id, path)

    def upload_file(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        return self.uploads.upload_file(building_id, data, name)

    # Memory (saiverse/memory_view.py).
    def memory_messages(self, persona_id: str, *, search: str | None = None, limit: int = 200) -> list[MemoryRecord]:
        return self.memory_view.memory_messages(persona_id, search=search, limit=limit)

    def recall(self, persona_id: str, query: str, *, limit: int = 20,
               exclude_pulse: str | None = None) -> list[dict[str, Any]]:
        return self.memory_view.recall(persona_id, query, limit=limit, exclude_pulse=exclude_pulse)

    def build_chronicle(self, persona_id: str) -> dict[str, Any]:
        return self.memory_view.build_chronicle(persona_id)

    # A user's message (saiverse/conversation.py).
    def responders(self, building_id: str, text: str) -> list[PersonaInfo]:
        return self.conversation.responders(building_id, text)

    def meta_playbook(self, name: str | None) -> Playbook:
        return self.conversation.meta_playbook(name)

    def check_message(self, text: str) -> str:
        return self.conversation.check_message(text)

    def handle_user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]] = (), *,
        persona_id: str | None = None, meta_playbook: str | None = None, args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        return self.conversation.handle_user_input(building_id, text, attachments, persona_id=persona_id,
                                                   meta_playbook=meta_playbook, args=args)

    def run_playbook(self, playbook: Playbook, persona_id: str, building_id: str | None = None, *,
                     args: dict[str, Any] | None = None) -> Iterator[Event]:
        return self.conversation.run_playbook(playbook, persona_id, building_id, args=args)

    # Chat edits and avatars (saiverse/chat_redo.py).
    def line_deletion(self, building_id: str, history_id: int) -> LineDeletion:
        return self.chat_redo.line_deletion(building_id, history_id)

    def delete_line(self, building_id: str, history_id: int) -> LineDeletion:
        return self.chat_redo.delete_line(building_id, history_id)

    def set_avatar_image(self, persona_id: str, data: bytes) -> PersonaInfo:
        return self.chat_redo.set_avatar_image(persona_id, data)

    def clear_avatar_image(self, persona_id: str) -> PersonaInfo:
        return self.chat_redo.clear_avatar_image(persona_id)

    def avatar_files(self) -> dict[str, str]:
        return self.chat_redo.avatar_files()

    def search_chat(self, building_id: str, query: str, *, limit: int = 50) -> list[HistoryEntry]:
        return self.chat_redo.search_chat(building_id, query, limit=limit)

    def reply_swipes(self, building_id: str, history_id: int) -> Swipes | None:
        return self.chat_redo.reply_swipes(building_id, history_id)

    def choose_swipe(self, building_id: str, history_id: int, index: int) -> Swipes:
        return self.chat_redo.choose_swipe(building_id, history_id, index)

    def regenerate(self, building_id: str) -> Iterator[Event]:
        return self.chat_redo.regenerate(building_id)

    def continue_reply(self, building_id: str) -> Iterator[Event]:
        return self.chat_redo.continue_reply(building_id)

    def edit_last_message(self, building_id: str, text: str) -> Iterator[Event]:
        return self.chat_redo.edit_last_message(building_id, text)

    # The clock (saiverse/clock.py).
    @property
    def autonomous(self) -> bool:
        """The city's 自律 switch (kept in the world: saiverse/clock.py)."""
        return self.clock.autonomous

    @autonomous.setter
    def autonomous(self, on: bool) -> None:
        self.clock.autonomous = on

    def ticker(self, *, interval: float = 15.0, on_events: EventSink | None = None) -> Ticker:
        return self.clock.ticker(interval=interval, on_events=on_events)

    def add_schedule(self, persona_id: str, spec: dict[str, Any]) -> ScheduleInfo:
        return self.clock.add_schedule(persona_id, spec)

    def fire_due_schedules(self, now: datetime | None = None, *, pulses: Any = None) -> list[PulseHandle]:
        return self.clock.fire_due_schedules(now, pulses=pulses)

    def autonomous_tick(self, now: datetime | None = None, *, pulses: Any = None) -> list[PulseHandle]:
        return self.clock.autonomous_tick(now, pulses=pulses)

    # Tools (saiverse/tool_calls.py).
    def run_tool(self, name: str, persona_id: str, building_id: str | None, args: dict[str, Any],
                 notify: Callable[[dict[str, Any]], None] | None = None) -> Any:
        return self.tools.run_tool(name, persona_id, building_id, args, notify)

__all__ = ["SAIVerseManager", "LLMError", "MigrationError"]
