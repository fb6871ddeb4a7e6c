"""The domain's implementation of `tools.ToolContext`: the world as one tool call sees it.

A tool call gets a `ManagerToolContext` bound to a persona, a building and (in a pulse) the pulse.
It reaches the world only through `ToolServices`, the few stores and callables the manager builds
once — never the manager itself. Item access lives in `saiverse/pulse/_toolctx_items.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from saiverse.memory import ChronicleStore, LongTermMemoryError, MemopediaStore, SAIMemory, TrackBook, parse_day
from saiverse.pulse._intent import changes
from saiverse.pulse._journal import persona_context, system_prompt_for
from saiverse.pulse._toolctx_items import ItemAccess
from saiverse.pulse._toolctx_v03 import V03Access
from saiverse.world import (
    BuildingInfo,
    ItemInfo,
    ItemStore,
    PersonaInfo,
    ScheduleInfo,
    ScheduleStore,
    UnknownIdError,
    World,
)
from tools.registry import ToolError

WORKING_MEMORY = "working_memory"
"""EXTRA_JSON key of a persona's working memory (`update_working_memory`, situation snapshots)."""
BUILDING_CURSORS = "building_cursors"
"""EXTRA_JSON key: building id → last history line the persona took in (`get_building_messages`)."""


class ProductionRunner(Protocol):
    """What tools need of the production workflow."""

    def start(self, persona_id: str, building_id: str, request: str, emit: Callable[[dict[str, Any]], None], *,
              pulse_id: str | None = None) -> Any:
        """Run a production for `request` to its end; returns its summary (plan, artifacts, finished)."""
        ...


@dataclass(frozen=True)
class ToolServices:
    """The parts of the app tool calls may reach; the manager builds one and shares it."""

    world: World
    """Buildings, personas, the user, building history."""
    memory: SAIMemory
    """Every persona's SAIMemory."""
    items: ItemStore
    """Items and their files."""
    schedules: ScheduleStore
    """Schedule entries (listing, deleting)."""
    add_schedule: Callable[[str, dict[str, Any]], ScheduleInfo]
    """(persona_id, spec) → entry, checked against the playbook catalog first."""
    draw_picture: Callable[..., ItemInfo]
    """(persona_id, building_id, prompt, name, state, aspect_ratio=) → the picture item."""
    production: ProductionRunner
    """The production workflow."""
    create_building: Callable[[dict[str, Any]], BuildingInfo]
    """spec → a new building (the admin rules: name required, capacity ≥ 1)."""
    summarize: Callable[[str, str | None], str]
    """(text, model name or None) → a short summary."""
    router_listing: Callable[[], list[dict[str, Any]]]
    """The router's view of the playbooks (name, display name, description, keywords)."""
    router_listing_json: Callable[[], str]
    """`router_listing` as JSON text, made once per catalogue version."""
    recall: Callable[..., list[dict[str, Any]]]
    """(persona_id, query, limit=, exclude_pulse=) → messages, Chronicle entries and Memopedia pages, best first."""
    memopedia: MemopediaStore
    """Every persona's Memopedia."""
    chronicle: ChronicleStore
    """Every persona's Chronicle."""
    pulse_kind: Callable[[str], str | None]
    """pulse id → user / schedule / auto (None for an unknown pulse)."""


@dataclass
class ManagerToolContext(ItemAccess, V03Access):
    """Binds a tool call to a persona, a building and (optionally) a pulse."""

    services: ToolServices
    persona_id: str
    building_id: str
    pulse_id: str | None = None
    notify: Callable[[dict[str, Any]], None] = field(default=lambda ev: None)
    """Receives item_created / item_updated events (the pulse forwards them to the UI)."""
    on_effect: Callable[[str | None], None] = field(default=lambda note: None)
    """Told of every change a tool makes, with a note for the persona's memory (None: the change is
    itself a memory write); a pulse that then stops keeps them remembered (saiverse/pulse/_journal.py)."""
    before_change: Callable[[], None] = field(default=lambda: None)
    """Told before a `@changes` method runs: the pulse keeps the tool's intent (saiverse/pulse/_intent.py)."""
    after_change: Callable[[], None] = field(default=lambda: None)
    """Told when a `@changes` method returned or refused: an intent its note did not replace is dropped."""

    def pulse_kind(self) -> str | None:
        return self.services.pulse_kind(self.pulse_id) if self.pulse_id else None

    def track_book(self) -> TrackBook:
        self._persona()  # an unknown persona is refused by name
        return TrackBook(self.services.world.db, self.persona_id)

    # ---- the persona and the city -----------------------------------------------------------
    def _persona(self) -> PersonaInfo:
        return self.services.world.persona(self.persona_id)

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
        source = self.building_id
        try:
            persona = self.services.world.move_persona(self.persona_id, building_id)
        except ValueError as exc:  # full
            raise ToolError(str(exc)) from exc
        self.building_id = building_id
        self.on_effect(f"{self._building_name(source)}から{self._building_name(building_id)}へ移動しました。")
        return persona.to_dict()

    def _building_name(self, building_id: str) -> str:
        try:
            return self.services.world.building(building_id).name
        except UnknownIdError:
            return building_id

    def building_overview(self) -> dict[str, Any]:
        world = self.services.world
        b = world.building(self.building_id)
        return {
            "name": b.name, "description": b.description,
            "personas": [p.name for p in world.personas(self.building_id)], "self_name": self._persona().name,
            "user_present": world.user_building() == self.building_id,
            "items": [{"name": i.name, "type": i.type}
                      for i in self.services.items.list_owned("building", self.building_id)],
            "recent": [{"speaker": h.speaker_name, "content": h.content}
                       for h in world.history(self.building_id, limit=6)],
        }

    @changes
    def create_building(self, spec: dict[str, Any]) -> dict[str, Any]:
        try:
            building = self.services.create_building(spec)
        except ValueError as exc:
            raise ToolError(f"建物を作れませんでした: {exc}") from exc
        self.on_effect(f"建物「{building.name}」({building.building_id}) を建てました。")
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
        return self.services.world.last_line_by(building_id, self.persona_id)

    def building_cursor(self, building_id: str) -> int | None:
        cursors = self.services.world.persona_extra(self.persona_id, BUILDING_CURSORS) or {}
        value = cursors.get(building_id) if isinstance(cursors, dict) else None
        return int(value) if isinstance(value, int) else None

    def set_building_cursor(self, building_id: str, line_id: int) -> None:
        world = self.services.world
        cursors = world.persona_extra(self.persona_id, BUILDING_CURSORS)
        cursors = dict(cursors) if isinstance(cursors, dict) else {}
        cursors[building_id] = int(line_id)
        world.set_persona_extra(self.persona_id, BUILDING_CURSORS, cursors)
        self.on_effect(None)

    # ---- working memory ---------------------------------------------------------------------
    def working_memory(self) -> dict[str, Any]:
        data = self.services.world.persona_extra(self.persona_id, WORKING_MEMORY)
        return dict(data) if isinstance(data, dict) else {}

    @changes
    def set_working_memory(self, key: str, value: Any) -> None:
        data = self.working_memory()
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
        self.services.world.set_persona_extra(self.persona_id, WORKING_MEMORY, data)
        self.on_effect(f"作業メモ「{key}」を{'消しました' if value is None else '書き換えました'}。")

    # ---- SAIMemory --------------------------------------------------------------------------
    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        # The current pulse's messages are already in the persona's context: recall looks further back.
        hits = self.services.memory.search(self.persona_id, query, limit=limit + 10)
        return [dict(r) for r in hits if not self.pulse_id or r.get("pulse_id") != self.pulse_id][:limit]

    def memory_recent(self, limit: int, tags: list[str] | None = None) -> list[dict[str, Any]]:
        found = self.services.memory.recent_persona_messages(self.persona_id, tags, limit=limit)
        return [dict(r) for r in found]

    def memory_around(self, message_id: int, before: int, after: int) -> list[dict[str, Any]]:
        found = self.services.memory.around(self.persona_id, message_id, before=before, after=after)
        if not found:
            raise ToolError(f"記憶 {message_id} は見つかりません。memory_search_brief が返した id を使ってください。")
        return [dict(r) for r in found]

    def memory_between(self, start: datetime, end: datetime, limit: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.services.memory.between(self.persona_id, start, end, limit=limit)]

    def memory_tagged(self, tag: str, limit: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.services.memory.list_messages(self.persona_id, tag=tag, limit=limit)]

    def remember(self, role: str, content: str, tags: list[str]) -> dict[str, Any]:
        stored = dict(self.services.memory.add(self.persona_id, role, content, tags=tags, pulse_id=self.pulse_id))
        self.on_effect(None)
        return stored

    def forget(self, message_id: int) -> bool:
        gone = self.services.memory.delete(self.persona_id, message_id)
        if gone:
            self.on_effect(None)
        return gone

    def summarize(self, text: str) -> str:
        return self.services.summarize(text, self._persona().lightweight_model)

    # ---- schedules --------------------------------------------------------------------------
    @changes
    def schedule_add(self, spec: dict[str, Any]) -> dict[str, Any]:
        try:
            entry = self.services.add_schedule(self.persona_id, spec).to_dict()
        except ValueError as exc:
            raise ToolError(f"予定を追加できませんでした: {exc}") from exc
        self.on_effect(f"予定 {entry.get('schedule_id')} を追加しました。")
        return entry

    def schedule_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.services.schedules.list(self.persona_id)]

    @changes
    def schedule_delete(self, schedule_id: str) -> bool:
        gone = self.services.schedules.delete(schedule_id, self.persona_id)
        if gone:
            self.on_effect(f"予定 {schedule_id} を消しました。")
        return gone

    # ---- production -------------------------------------------------------------------------
    @changes
    def run_production(self, request: str) -> str:
        # Noted before it starts: a run stopped half-way has still made what it made.
        self.on_effect(f"制作を始めました: {request[:200]}")
        summary = self.services.production.start(self.persona_id, self.building_id, request, self.notify,
                                                 pulse_id=self.pulse_id)
        done = [s for s in summary.plan if s.get("status") == "completed"]
        made = [a["name"] for a in summary.artifacts.values() if a.get("name")]
        state = "完了" if summary.finished else "中断"
        return (f"制作{state} (run {summary.run_id[:8]}): {len(done)}/{len(summary.plan)} 工程。"
                f"できたもの: {'、'.join(made) or 'なし'}")

    # ---- long-term memory: recall, Memopedia, Chronicle ----------------------------------------
    @staticmethod
    @contextmanager
    def _memory_errors() -> Iterator[None]:
        try:
            yield
        except LongTermMemoryError as exc:
            raise ToolError(str(exc)) from exc

    def recall(self, query: str, limit: int) -> list[dict[str, Any]]:
        return self.services.recall(self.persona_id, query, limit=limit, exclude_pulse=self.pulse_id)

    def memopedia_search(self, query: str, category: str | None, limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            return [p.to_dict() for p in self.services.memopedia.search(self.persona_id, query, category=category,
                                                                       limit=limit)]

    def memopedia_page(self, page_id: str | None, title: str | None) -> dict[str, Any]:
        store = self.services.memopedia
        with self._memory_errors():
            page = store.find(self.persona_id, page_id=page_id, title=title)
        if not page.is_root:
            store.touch(self.persona_id, page.page_id)  # when it was last read: bookkeeping, not an effect
        return page.to_dict()

    def memopedia_tree(self) -> list[dict[str, Any]]:
        def node(n: dict[str, Any]) -> dict[str, Any]:
            p = n["page"]
            return {"page_id": p.page_id, "title": p.title, "summary": p.summary, "category": p.category,
                    "problem": n["problem"], "children": [node(c) for c in n["children"]]}

        return [node(n) for n in self.services.memopedia.tree(self.persona_id)]

    def memopedia_set_open(self, page_id: str, is_open: bool) -> dict[str, Any]:
        with self._memory_errors():
            page = self.services.memopedia.set_open(self.persona_id, page_id, is_open).to_dict()
        self.on_effect(None)
        return page

    @changes
    def memopedia_save(self, title: str, summary: str, content: str, category: str | None,
                       keywords: list[str] | None) -> tuple[dict[str, Any], bool]:
        with self._memory_errors():
            page, created = self.services.memopedia.save_page(
                self.persona_id, title, summary=summary, content=content, category=category, keywords=keywords)
        self.on_effect(f"Memopedia のページ「{page.title}」を{'作りました' if created else '書き換えました'}。")
        return page.to_dict(), created

    @changes
    def memopedia_note(self, content: str, title: str, summary: str, category: str | None,
                       keywords: list[str] | None, page_id: str) -> dict[str, Any]:
        from datetime import date

        with self._memory_errors():
            page = self.services.memopedia.note(
                self.persona_id, content, title=title, summary=summary, category=category, keywords=keywords,
                page_id=page_id, day=date.today().isoformat()).to_dict()
        self.on_effect(f"Memopedia のページ「{page.get('title', '')}」に書き足しました。")
        return page

    def chronicle_search(self, query: str | None, start_date: str | None, end_date: str | None, level: int | None,
                         limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            start = parse_day(start_date, "start_date")
            end = parse_day(end_date, "end_date", end=True)
            found = self.services.chronicle.search(self.persona_id, query, start=start, end=end, level=level,
                                                  limit=limit)
        return [e.to_dict() for e in found]

    def chronicle_detail(self, entry_id: str, include_sources: bool, max_sources: int) -> dict[str, Any]:
        store = self.services.chronicle
        with self._memory_errors():
            entry = store.get(self.persona_id, entry_id)
        if entry.problem:
            raise ToolError(f"Chronicle エントリ {entry.entry_id} は壊れていて読めません: {entry.problem}")
        out = entry.to_dict()
        out["sources"] = []
        if include_sources:
            if entry.level == 1:
                out["sources"] = store.source_messages(self.persona_id, entry, max_sources)
            else:
                out["sources"] = [c.to_dict() for c in store.children(self.persona_id, entry)]
        return out

    # ---- playbooks ----------------------------------------------------------------------------
    def router_playbooks(self) -> list[dict[str, Any]]:
        return self.services.router_listing()

    def router_playbooks_json(self) -> str:
        return self.services.router_listing_json()
