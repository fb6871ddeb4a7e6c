"""What upstream v0.3's tools reach: whole-document edits, item_move with slots, messages around a moment,
Memopedia housekeeping, recalled memories.

A service of `saiverse.pulse._toolctx.ManagerToolContext`, handed the call it serves
(saiverse/pulse/_toolcall.py) and the item and city services it builds on.

Every change is reported through `on_effect` (docs/ARCHITECTURE.md, "Pulse") and item changes also
through `notify`, like the rest of the tool context.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from saiverse.memory import LongTermMemoryError, delete_page, health, messages_around, thread_ids
from saiverse.pulse._intent import changes
from saiverse.pulse._toolcall import ToolCall
from saiverse.pulse._toolctx_city import CityTools
from saiverse.pulse._toolctx_items import ItemTools
from saiverse.world import BagError, is_pdf_path
from sea.tool_playbook import ToolPlaybookError, run_named
from tools import ToolError

RECALLED = "recalled"
"""Working-memory key holding what `memory_recall_unified` brought back (upstream's recalled ids)."""


class V03Tools:
    """Upstream v0.3's tools' own methods, over the item service (reach, change notes) and the city's
    working memory (where recalled memories are kept)."""

    def __init__(self, call: ToolCall, items: ItemTools, city: CityTools) -> None:
        self.call = call
        """The call served: its persona, building, pulse and listeners."""
        self.services = call.services
        self.items = items
        self.city = city

    # ---- documents and items -----------------------------------------------------------------
    @changes
    def edit_document(self, item_id: str, edit: Callable[[str], str]) -> dict[str, Any]:
        info = self.items._reachable(item_id)
        if info.type != "document":
            raise ToolError(f"「{info.name}」は文書ではありません ({info.type})。")
        if is_pdf_path(info.file_path):
            raise ToolError(f"「{info.name}」は PDF なので本文は編集できません"
                            " (説明は item_write_description で変えられます)。")
        try:
            # `edit` runs under the document's lock on its newest text, never a stale copy.
            saved, _how = self.services.items.edit_document(
                info.item_id, lambda text: (edit(text), "edit"), summary_model=self.items._summary_model())
        except ValueError as exc:  # the store's limits (length, NUL)
            raise ToolError(str(exc)) from exc
        return self.items._changed("item_updated", saved, f"文書「{saved.name}」を編集しました。")

    @changes
    def move_item_to(self, item_id: str, owner_kind: str, owner_id: str) -> dict[str, Any]:
        info = self.items._reachable(item_id)
        if (info.owner_kind, info.owner_id) == (owner_kind, owner_id):
            where = "手元" if owner_kind == "persona" else "この建物"
            raise ToolError(f"「{info.name}」はもう{where}にあります。")
        try:
            moved = self.services.items.move(info.item_id, owner_kind, owner_id, take_slot=True)
        except BagError as exc:
            raise ToolError(str(exc)) from exc
        done = {"persona": "手に取りました", "bag": "袋に入れました"}.get(owner_kind, "ここに置きました")
        return self.items._changed("item_updated", moved, f"「{info.name}」を{done} (スロット {moved.slot_number})。")

    # ---- the message log ------------------------------------------------------------------------
    def messages_around_time(self, when: datetime, count: int, thread_id: str | None) -> list[dict[str, Any]]:
        db = self.services.memory.db
        if thread_id and thread_id not in thread_ids(db, self.call.persona_id):
            known = "、".join(thread_ids(db, self.call.persona_id)) or "なし"
            raise ToolError(f"スレッド {thread_id!r} はありません (このペルソナのスレッド: {known})。")
        return [dict(r) for r in messages_around(db, self.call.persona_id, when, count, thread_id)]

    # ---- Memopedia housekeeping ---------------------------------------------------------------
    def memopedia_health(self) -> dict[str, Any]:
        return health(self.services.memopedia, self.call.persona_id)

    @changes
    def memopedia_delete(self, page_id: str) -> list[dict[str, Any]]:
        try:
            gone = delete_page(self.services.memopedia, self.call.persona_id, page_id)
        except LongTermMemoryError as exc:
            raise ToolError(str(exc)) from exc
        more = f" (下のページ {len(gone) - 1} 件も)" if len(gone) > 1 else ""
        self.call.on_effect(f"Memopedia のページ「{gone[0].title}」を削除しました{more}。")
        return [p.to_dict() for p in gone]

    @changes
    def memopedia_update(self, page_id: str, *, parent_id: str | None = None, vividness: str | None = None,
                         is_important: bool | None = None) -> dict[str, Any]:
        try:
            page = self.services.memopedia.update(self.call.persona_id, page_id, parent_id=parent_id,
                                                  vividness=vividness, is_important=is_important, edit_type="manage")
        except LongTermMemoryError as exc:
            raise ToolError(str(exc)) from exc
        self.call.on_effect(f"Memopedia のページ「{page.title}」を整理しました。")
        return page.to_dict()

    # ---- recalled memories (kept in working memory, as upstream keeps them) ---------------------
    def recalled(self) -> list[dict[str, Any]]:
        kept = self.city.working_memory().get(RECALLED)
        return [r for r in kept if isinstance(r, dict)] if isinstance(kept, list) else []

    def set_recalled(self, entries: list[dict[str, Any]]) -> None:
        self.city.set_working_memory(RECALLED, entries or None)

    # ---- playbooks ----------------------------------------------------------------------------
    def run_playbook(self, name: str) -> str:
        try:
            return run_named(name)
        except ToolPlaybookError as exc:
            raise ToolError(str(exc)) from exc
