"""The manager's implementation of `tools.ToolContext`: the world as one tool call sees it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from saiverse.chronicle import parse_day
from saiverse.items import ItemInfo, ItemNotFoundError
from saiverse.media import InvalidImageError
from saiverse.memory_common import LongTermMemoryError
from saiverse.patching import PatchError, apply_patch
from saiverse.world import PersonaInfo
from sea.events import event
from tools.registry import ToolError

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager


@dataclass
class ManagerToolContext:
    """Binds a tool call to a persona, a building and (optionally) a pulse."""

    manager: SAIVerseManager
    persona_id: str
    building_id: str
    pulse_id: str | None = None
    notify: Callable[[dict[str, Any]], None] = field(default=lambda ev: None)
    """Receives item_created / item_updated events (the pulse forwards them to the UI)."""

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

    # ---- items ------------------------------------------------------------------------------
    def _persona(self) -> PersonaInfo:
        return self.manager.world.persona(self.persona_id)

    def _reachable(self, item_id: str) -> ItemInfo:
        try:
            info = self.manager.items.get(item_id)
        except ItemNotFoundError as exc:
            raise ToolError(f"アイテム {item_id!r} は存在しません。item_list で id を確かめてください。") from exc
        here = (info.owner_kind == "building" and info.owner_id == self.building_id) or (
            info.owner_kind == "persona" and info.owner_id == self.persona_id)
        if not here:
            raise ToolError(f"アイテム「{info.name}」はここにはありません。")
        return info

    def _changed(self, kind: str, info: ItemInfo) -> dict[str, Any]:
        data = info.to_dict()
        self.notify(event(kind, item=data, building_id=self.building_id, persona_id=self.persona_id))
        return data

    def items_here(self) -> list[dict[str, Any]]:
        items = self.manager.items
        owned = items.list_owned("building", self.building_id) + items.list_owned("persona", self.persona_id)
        return [i.to_dict() for i in owned]

    def item(self, item_id: str) -> dict[str, Any]:
        return self._reachable(item_id).to_dict()

    def read_document(self, item_id: str) -> str:
        return self.manager.items.read_document(self._reachable(item_id).item_id)

    def picture_file(self, item_id: str) -> str:
        return str(self.manager.items.file_of(self._reachable(item_id)))

    def create_document(self, name: str, description: str, content: str) -> dict[str, Any]:
        info = self.manager.items.create_document(
            name, content, owner_kind="building", owner_id=self.building_id, description=description,
            state={"created_by": self.persona_id}, summary_model=self._persona().lightweight_model)
        return self._changed("item_created", info)

    def update_description(self, item_id: str, description: str) -> dict[str, Any]:
        info = self.manager.items.update_description(self._reachable(item_id).item_id, description)
        return self._changed("item_updated", info)

    def patch_document(self, item_id: str, patch: str) -> tuple[dict[str, Any], str]:
        info = self._reachable(item_id)
        text = self.manager.items.read_document(info.item_id)
        try:
            new_text, how = apply_patch(text, patch)
        except PatchError as exc:
            raise ToolError(f"文書「{info.name}」にパッチを当てられませんでした: {exc}") from exc
        saved = self.manager.items.save_document(info.item_id, new_text,
                                                 summary_model=self._persona().lightweight_model)
        return self._changed("item_updated", saved), how

    def generate_picture(self, prompt: str) -> dict[str, Any]:
        name = prompt.strip().splitlines()[0][:24] or "無題"
        try:
            info = self.manager.draw_picture(self.persona_id, self.building_id, prompt, name,
                                             {"created_by": self.persona_id})
        except InvalidImageError as exc:
            raise ToolError(f"生成された画像を保存できませんでした: {exc}") from exc
        return self._changed("item_created", info)

    def move_item(self, item_id: str, to: str) -> dict[str, Any]:
        info = self._reachable(item_id)
        if to == "persona":
            if info.owner_kind == "persona":
                raise ToolError(f"「{info.name}」はもう手に持っています。")
            moved = self.manager.items.move(info.item_id, "persona", self.persona_id)
        elif to == "building":
            if info.owner_kind == "building":
                raise ToolError(f"「{info.name}」は手に持っていません。")
            moved = self.manager.items.move(info.item_id, "building", self.building_id)
        else:
            raise ToolError(f"unknown destination {to!r}")
        return self._changed("item_updated", moved)

    # ---- production ---------------------------------------------------------------------------
    def run_production(self, request: str) -> str:
        summary = self.manager.production.start(self.persona_id, self.building_id, request, self.notify,
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
        return self.manager.recall(self.persona_id, query, limit=limit, exclude_pulse=self.pulse_id)

    def memopedia_search(self, query: str, category: str | None, limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            return [p.to_dict() for p in self.manager.memopedia.search(self.persona_id, query, category=category,
                                                                       limit=limit)]

    def memopedia_page(self, page_id: str | None, title: str | None) -> dict[str, Any]:
        store = self.manager.memopedia
        with self._memory_errors():
            page = store.find(self.persona_id, page_id=page_id, title=title)
        if not page.is_root:
            store.touch(self.persona_id, page.page_id)
        return page.to_dict()

    def memopedia_tree(self) -> list[dict[str, Any]]:
        def node(n: dict[str, Any]) -> dict[str, Any]:
            p = n["page"]
            return {"page_id": p.page_id, "title": p.title, "summary": p.summary, "category": p.category,
                    "problem": n["problem"], "children": [node(c) for c in n["children"]]}

        return [node(n) for n in self.manager.memopedia.tree(self.persona_id)]

    def memopedia_set_open(self, page_id: str, is_open: bool) -> dict[str, Any]:
        with self._memory_errors():
            return self.manager.memopedia.set_open(self.persona_id, page_id, is_open).to_dict()

    def memopedia_save(self, title: str, summary: str, content: str, category: str | None,
                       keywords: list[str] | None) -> tuple[dict[str, Any], bool]:
        with self._memory_errors():
            page, created = self.manager.memopedia.save_page(
                self.persona_id, title, summary=summary, content=content, category=category, keywords=keywords)
        return page.to_dict(), created

    def memopedia_note(self, content: str, title: str, summary: str, category: str | None,
                       keywords: list[str] | None, page_id: str) -> dict[str, Any]:
        from datetime import date

        with self._memory_errors():
            return self.manager.memopedia.note(
                self.persona_id, content, title=title, summary=summary, category=category, keywords=keywords,
                page_id=page_id, day=date.today().isoformat()).to_dict()

    def chronicle_search(self, query: str | None, start_date: str | None, end_date: str | None, level: int | None,
                         limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            start = parse_day(start_date, "start_date")
            end = parse_day(end_date, "end_date", end=True)
            found = self.manager.chronicle.search(self.persona_id, query, start=start, end=end, level=level,
                                                  limit=limit)
        return [e.to_dict() for e in found]

    def chronicle_detail(self, entry_id: str, include_sources: bool, max_sources: int) -> dict[str, Any]:
        store = self.manager.chronicle
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
