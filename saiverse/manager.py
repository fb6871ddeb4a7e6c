"""SAIVerseManager: the in-process facade the UI and the CLI call (docs/ARCHITECTURE.md, "Layers").

It owns the database, the world, SAIMemory, items and the pulse controller, and is the only thing `ui/` and
`main.py` talk to. It wires the services: each gets only the parts it uses (stores, a model resolver, the
settings store), never the manager. Opening it migrates the database and seeds the first-run world.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from chat import ChatModel, LLMError
from database.engine import is_postgres
from database.migrate import MigrationError
from saiverse.care import (
    AdminError,
    AdminService,
    BackupStore,
    DeleteHooks,
    RepairReport,
    check_home,
    create_private,
    make_home,
    remove_home_debris,
    repair_home,
    tighten,
)
from saiverse.clock import CityClock
from saiverse.errors import busy_database_message
from saiverse.facade import WorldFacade
from saiverse.importer.files import recover_staged_files
from saiverse.importer.source import refuse_upstream_home
from saiverse.inputs import InputError, check_message
from saiverse.llm.registry import model_for
from saiverse.locks import HomeLock
from saiverse.mcp_tools import McpTools
from saiverse.memory import (
    ChronicleBuilder,
    ChronicleStore,
    ChronicleWorker,
    ContextSource,
    MemopediaStore,
    SAIMemory,
    enabled_personas,
    open_memory_index,
)
from saiverse.pulse import (
    ManagerToolContext,
    ModelResolver,
    PlaybookCatalog,
    ProductionService,
    PulseController,
    PulseServices,
    QueueFullError,
    ToolServices,
    recover_open,
    user_turn,
)
from saiverse.seed import seed_world
from saiverse.settings import Settings, SettingsStore
from saiverse.store import backup_hook, checkpoints_of, open_database
from saiverse.world import (
    ANSWERING_MODES,
    AutonomousTurns,
    InvalidImageError,
    ItemStore,
    PersonaInfo,
    ScheduleStore,
    Summarizer,
    UnknownIdError,
    World,
    WorldSettings,
    nobody_answers,
)
from sea.events import Event, event
from sea.playbook import Playbook, PlaybookError
from sea.ports import PersonaContext
from tools import TOOL_REGISTRY, ToolOutput, call_tool

DEFAULT_META = "meta_user"
USER_MESSAGE_HOLD = 10.0
"""Seconds a user's message holds autonomous pulses at most before its pulse starts (saiverse/pulse/_pool.py)."""
log = logging.getLogger(__name__)
_MENTION = re.compile(r"@(\S+)")


class SAIVerseManager(CityClock, WorldFacade):
    """One SAIVerse world, opened from a data home (its read and item methods: saiverse/facade.py)."""

    def __init__(self, settings: Settings, *, seed: bool = True, models: ModelResolver | None = None) -> None:
        check_home(settings.home, settings.db_path)  # nothing is created in a home that cannot be ours
        from saiverse.pulse import remote_enabled, remote_pulses

        remote_enabled(settings.database_url)  # a bad SAIVERSE_PULSE_WORKERS_REMOTE is refused before any write
        self.settings_store = SettingsStore(settings)
        """The settings in force; the 設定 tab saves through it."""
        make_home(settings.home)
        self.notices: list[str] = tighten(settings.home, settings.db_path)
        """One line per thing start-up changed that the user should know (permissions made private)."""
        self.backups = BackupStore(settings.home, settings.db_path, checkpoints_path=settings.checkpoints_path,
                                   keep=lambda: self.settings.backup_keep, lock_home=False,
                                   database_url=settings.database_url)
        """Backups under `<home>/backups/`: before a migration, a delete, and daily (the ticker)."""
        if not is_postgres(settings.database_url):
            refuse_upstream_home(settings.home, settings.db_path)
            create_private(settings.db_path)  # a new database is 0600 from its first byte (its -wal/-shm follow)
        workers = settings.pulse_workers  # the database's connections are sized to the pulse workers
        self.db = open_database(settings, self.backups.before_migration, workers=workers)
        self.home_lock = HomeLock(settings.home)
        self.repair_report = RepairReport()
        """What start-up repair finished or set aside (saiverse/care/_repair.py); empty when all was well."""
        self.world = World(self.db)
        self.memory = SAIMemory(self.db)
        with self.home_lock.alone() as alone:
            if alone:
                recover_staged_files(settings.home, self.db)  # an import-saiverse killed between commit and renames
                self.repair_report = repair_home(settings.home, self.db)
                self.notices += remove_home_debris(settings.home)  # killed backups and restores of this home
                try:
                    self.notices += recover_open(self.db, self.memory, self.world)  # pulses a kill cut short
                except SQLAlchemyError as exc:  # never keeps the app from starting; the next start tries again
                    log.warning("open pulses could not be accounted for: %s", type(exc).__name__)
                    self.notices.append("途中で止まったパルスの記録を書けませんでした。次の起動でもう一度試します。")
        self.summarizer = Summarizer(lambda: self.settings)
        self.items = ItemStore(
            self.db, settings.home,
            summarize_document=self.summarizer.document, summarize_picture=self.summarizer.picture,
        )
        self.playbooks = PlaybookCatalog(self.db)
        self.schedules = ScheduleStore(self.db)
        self.models: ModelResolver = models or self._configured_model
        """(persona, kind) → (model, fallback notice): every model call goes through it; tests hand in
        a scripted model here."""
        self.admin = AdminService(self.db, self.world, self.settings_store, hooks=DeleteHooks(
            backup=backup_hook(settings, lambda label: self.backups.create("delete", label).path),
            stop_persona=self._stop_persona,
            live_runs=lambda: self.production.live_runs()))
        # Long-term memory: Memopedia, Chronicle (built in the background) and the prompt's context.
        self.memopedia = MemopediaStore(self.db)
        self.chronicle = ChronicleStore(self.db)
        self.context = ContextSource(self.db, self.chronicle, self.memopedia, default_budget=settings.context_tokens)
        self.chronicle_builder = ChronicleBuilder(self.db, self.chronicle, self._summary_model)
        self.chronicle_worker = ChronicleWorker(self.chronicle_builder, lambda: enabled_personas(self.db))
        self.chronicle_worker.start()
        self.memory_index = open_memory_index(settings, self.db)  # None unless SAIVERSE_EMBEDDING_MODEL is set
        self.context.dense = self.memory_index.dense if self.memory_index else None
        self.pulses = PulseController(PulseServices(
            db=self.db, memory=self.memory, world=self.world, resolve_model=lambda p, kind: self.models(p, kind),
            call_tool=self._call_tool, tool_specs=self._tool_specs, playbook=self.playbooks.get,
            router_playbooks=self.playbooks.router_callable, context=self.context,
            target_names=lambda kind, b: [i.name for i in self.items.list_owned("building", b)] if kind == "item"
            else [x.name for x in self.world.buildings()],  # what a request acting on an item / building names
        ), workers=workers)
        self.pulses = remote_pulses(settings, self.pulses)  # pulse workers take them (SAIVERSE_PULSE_WORKERS_REMOTE)
        self.auto_turns = AutonomousTurns(self.db)  # claimed across processes: saiverse/world/_auto_turns.py
        self.production = ProductionService(
            db=self.db, world=self.world, items=self.items, memory=self.memory,
            models=lambda p, kind: self.models(p, kind), draw_picture=self.draw_picture, home=settings.home,
            bundles_dir=settings.documents_dir / "bundles", checkpoints_path=checkpoints_of(settings),
        )
        self.mcp = McpTools(settings.home, lambda: self.settings.mcp_timeout)
        """Each persona's MCP servers and their tools (saiverse/mcp_tools.py)."""
        self.tool_services = ToolServices(
            world=self.world, memory=self.memory, items=self.items, schedules=self.schedules,
            add_schedule=self.add_schedule, draw_picture=self.draw_picture, production=self.production,
            create_building=lambda spec: self.admin.create_building(spec), summarize=self.summarizer.document,
            router_listing=self.playbooks.router_listing, router_listing_json=self.playbooks.router_listing_json,
            pulse_kind=self._pulse_kind, recall=self.recall, memopedia=self.memopedia, chronicle=self.chronicle,
        )
        """What tool calls reach (saiverse/pulse/_toolctx.py); built once."""
        self.world_settings = WorldSettings(self.db)
        """Settings kept in the world's database (the 自律 switch)."""
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
        self.pulses.shutdown()
        self.production.close()
        self.db.dispose()
        self.home_lock.close()

    # ---- models ---------------------------------------------------------------------------
    def _configured_model(self, persona: PersonaContext, kind: str) -> tuple[ChatModel, str | None]:
        return model_for(self.settings, persona, kind)

    def model_notice(self) -> str | None:
        """A line for the UI when chats run on an embedded model (local or offline), saying why."""
        model, notice = self._configured_model(PersonaContext(), "normal")
        if notice:
            return notice
        if model.provider in ("offline", "local"):
            from saiverse.llm.registry import describe_default

            return describe_default(self.settings)[1] + "。"
        return None

    def _call_tool(
        self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str, pulse_id: str,
        notify: Callable[[dict[str, Any]], None], *, on_effect: Callable[[str | None], None] | None = None,
        before_change: Callable[[], None] | None = None, after_change: Callable[[], None] | None = None,
    ) -> Any:
        ctx = ManagerToolContext(self.tool_services, persona["persona_id"], building_id, pulse_id, notify)
        if on_effect is not None:
            ctx.on_effect = on_effect  # the pulse journal keeps every change (saiverse/pulse/_journal.py)
        if before_change is not None and after_change is not None:
            ctx.before_change, ctx.after_change = before_change, after_change  # and each one's intent
        if name not in TOOL_REGISTRY and self.mcp.owns(persona["persona_id"], name):
            return self.mcp.call(persona["persona_id"], name, args, notify)
        return call_tool(name, args, ctx)

    def _pulse_kind(self, pulse_id: str) -> str | None:
        record = self.pulses.record(pulse_id)
        return record.kind if record else None

    def _tool_specs(self, names: list[str], persona_id: str | None = None,
                    notify: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        # A tool registered as unavailable (it needs a service this install lacks) is not offered.
        specs = [TOOL_REGISTRY[n].spec() for n in names if n in TOOL_REGISTRY and not TOOL_REGISTRY[n].unavailable]
        others = [n for n in names if n not in TOOL_REGISTRY]
        if persona_id is not None and others:  # the persona's MCP tools (saiverse/mcp_tools.py)
            specs += self.mcp.specs(persona_id, others, notify)
        return specs

    def run_tool(self, name: str, persona_id: str, building_id: str | None, args: dict[str, Any],
                 notify: Callable[[dict[str, Any]], None] | None = None) -> Any:
        """Run one tool as a persona (CLI `tool`); `notify` hears notices (an MCP server that failed)."""
        persona = self.world.persona(persona_id)
        if building_id is not None:
            self.world.building(building_id)
        ctx = ManagerToolContext(self.tool_services, persona_id,
                                 building_id or persona.building_id or self.user_building())
        if name not in TOOL_REGISTRY and self.mcp.owns(persona_id, name):
            return self.mcp.call(persona_id, name, args, notify)
        result = call_tool(name, args, ctx)
        return result.value if isinstance(result, ToolOutput) else result

    # ---- pulses ---------------------------------------------------------------------------
    def _stop_persona(self, persona_id: str) -> None:
        """Before a persona is deleted: its pulses are cancelled and have ended (AdminError if one will not)."""
        if not self.pulses.stop_persona(persona_id):
            raise AdminError(f"{self.world.persona(persona_id).name} のパルスが止まりません。少し待ってからもう一度"
                             "削除してください。")

    def cancel_pulses(self, building_id: str | None = None) -> int:
        """Stop running and queued pulses (the stop button)."""
        return self.pulses.cancel_all(building_id)

    def responders(self, building_id: str, text: str) -> list[PersonaInfo]:
        """Personas present whose mode answers users; `@name` narrows it to one."""
        present = [p for p in self.world.personas(building_id) if p.interaction_mode in ANSWERING_MODES]
        mentioned = {m.lower() for m in _MENTION.findall(text)}
        if mentioned:
            named = [p for p in present if p.name.lower() in mentioned or p.persona_id.lower() in mentioned]
            if named:
                return named
        return present

    def meta_playbook(self, name: str | None) -> Playbook:
        pb = self.playbooks.get(name or DEFAULT_META)
        if pb is None:
            raise PlaybookError(f"meta playbook {name!r} does not exist", field="meta_playbook")
        return pb

    def check_message(self, text: str) -> str:
        """A chat message the user may send (UTF-8, no NUL, at most `max_message_chars`); InputError otherwise."""
        return check_message(text, self.settings.max_message_chars)

    def handle_user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]] = (), *,
        persona_id: str | None = None, meta_playbook: str | None = None, args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """A user message in a building → events of every answering persona's pulse, in turn.

        Never raises for a busy database: the caller gets an `error` event (kind `busy`) instead."""
        # Autonomous pulses give way from now: while the message is stored and the pulse queued, not
        # only once it runs (then the pool holds them itself); released at its start at the latest.
        hold = f"user-message:{uuid.uuid4().hex}"
        self.pulses.hold_autonomous(hold, True, ttl=USER_MESSAGE_HOLD)
        try:
            with user_turn():  # the interpreter hands the GIL back sooner meanwhile (saiverse/pulse/_pool.py)
                for ev in self._user_input(building_id, text, attachments, persona_id=persona_id,
                                           meta_playbook=meta_playbook, args=args):
                    if hold and ev["type"] == "pulse_start":
                        self.pulses.hold_autonomous(hold, False)
                        hold = ""
                    yield ev
        except SQLAlchemyError as exc:
            # One line, never the SQL and its parameters (they hold the user's text): the event says it.
            locked = busy_database_message(exc)
            log.info("a user message could not be handled: %s", locked or type(exc).__name__)
            yield event("error", kind="busy", building_id=building_id, locked=locked,
                        message="データベースが混み合っていて送れませんでした。少し待ってからもう一度送ってください。")
        finally:
            if hold:  # no pulse started (a refusal, an instruction to a production, nobody here)
                self.pulses.hold_autonomous(hold, False)

    def _user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]], *,
        persona_id: str | None, meta_playbook: str | None, args: dict[str, Any] | None,
    ) -> Iterator[Event]:
        try:
            self.check_message(text)
            # The persona is read with the building (one connection); an unknown one is said below, as before.
            building, found = self.world.building_and_persona(building_id, persona_id)
            playbook = self.meta_playbook(meta_playbook)
        except (InputError, UnknownIdError, PlaybookError) as exc:
            yield event("error", kind="bad_request", message=str(exc), building_id=building_id)
            return
        notes: list[str] = []
        for filename, data in attachments:
            try:
                item = self.upload_image(building_id, data, Path(filename).stem)
            except (InvalidImageError, ValueError) as exc:
                yield event("error", kind="upload", message=f"{Path(filename).name}: {exc}", building_id=building_id)
                continue
            notes.append(f"[画像「{item.name}」をアップロードしました]")
            yield event("item_created", item=item.to_dict(), building_id=building_id)
        text = text.strip()
        said = "\n".join([text, *notes]).strip()
        if not said:
            return
        run_id = self.production.active_run(building_id)
        if run_id and text:
            # A production is working here: the message is an instruction for its plan (→ patch).
            self.production.add_instruction(run_id, text)
            hid = self.world.add_history(building_id, speaker_kind="user", speaker_id="user",
                                         speaker_name="あなた", content=said)
            yield event("user_message", text=said, building_id=building_id, history_id=hid)
            yield event("notice", kind="production_instruction", run_id=run_id, building_id=building_id,
                        text="制作中の計画に指示を追加しました。まだ始まっていない工程に反映します。")
            return
        picked = (found or self.world.persona(persona_id)) if persona_id is not None else None  # unknown: raises
        if picked is None:
            targets = self.responders(building_id, text)
        else:
            targets = [picked] if picked.building_id == building_id else []
        # The user's memory too, at once; the building read above is the pulses' (their system prompt).
        hid, pulse_ids = self.pulses.say(self.world, building_id, said, targets, building=building)
        yield event("user_message", text=said, building_id=building_id, history_id=hid)
        if not targets and picked is not None:
            yield event("error", kind="not_here", persona_id=persona_id,
                        message=f"{picked.name} は {building_id} にいません。")
            return
        if not targets:  # never talk into silence: say who is where instead
            yield event("notice", kind="nobody_here", building_id=building_id,
                        text=nobody_answers(self.world, building_id, lang=self.settings.lang))
            return
        call_args = dict(args or {})
        if text and "input" not in call_args and any(p.name == "input" for p in playbook.input_schema):
            call_args["input"] = text  # the request is what the user typed; upload notes stay in memory only
        for persona in targets:
            try:
                handle = self.pulses.submit_user(persona, building_id, said, playbook, args=call_args,
                                                 pulse_id=pulse_ids.get(persona.persona_id))
            except QueueFullError as exc:
                yield event("error", kind="queue_full", persona_id=persona.persona_id, message=str(exc))
                continue
            yield from handle.events()

    def run_playbook(
        self, playbook: Playbook, persona_id: str, building_id: str | None = None, *,
        args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """Run one playbook as a persona (CLI `run-playbook`); validated first."""
        from sea.validate import check_args

        persona = self.world.persona(persona_id)
        if building_id is not None:
            self.world.building(building_id)  # an unknown building is the caller's mistake, not a failed pulse
        self.playbooks.validate(playbook)
        check_args(playbook, dict(args or {}))
        handle = self.pulses.submit("user", persona, building_id or persona.building_id or self.user_building(),
                                    playbook, args=args)
        yield from handle.events()



__all__ = ["SAIVerseManager", "LLMError", "MigrationError"]
