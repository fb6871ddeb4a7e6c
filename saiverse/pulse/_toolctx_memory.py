"""Memory as one tool call reaches it: SAIMemory messages, recall, Memopedia and Chronicle.

A service of `saiverse.pulse._toolctx.ManagerToolContext`, handed the call it serves (saiverse/pulse/_toolcall.py).
A memory write is itself the change (`on_effect(None)`): the memory holds it, no intent is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from saiverse.memory import LongTermMemoryError, parse_day
from saiverse.pulse._intent import changes
from saiverse.pulse._toolcall import ToolCall
from tools import ToolError


class MemoryTools:
    """SAIMemory, recall, Memopedia and Chronicle of the persona a tool call runs as."""

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        """The call served: its persona, building, pulse and listeners."""
        self.services = call.services

    # ---- SAIMemory --------------------------------------------------------------------------
    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        # The current pulse's messages are already in the persona's context: recall looks further back.
        hits = self.services.memory.search(self.call.persona_id, query, limit=limit + 10)
        return [dict(r) for r in hits if not self.call.pulse_id or r.get("pulse_id") != self.call.pulse_id][:limit]

    def memory_recent(self, limit: int, tags: list[str] | None = None) -> list[dict[str, Any]]:
        found = self.services.memory.recent_persona_messages(self.call.persona_id, tags, limit=limit)
        return [dict(r) for r in found]

    def memory_around(self, message_id: int, before: int, after: int) -> list[dict[str, Any]]:
        found = self.services.memory.around(self.call.persona_id, message_id, before=before, after=after)
        if not found:
            raise ToolError(f"記憶 {message_id} は見つかりません。memory_search_brief が返した id を使ってください。")
        return [dict(r) for r in found]

    def memory_between(self, start: datetime, end: datetime, limit: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.services.memory.between(self.call.persona_id, start, end, limit=limit)]

    def memory_tagged(self, tag: str, limit: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.services.memory.list_messages(self.call.persona_id, tag=tag, limit=limit)]

    def remember(self, role: str, content: str, tags: list[str]) -> dict[str, Any]:
        stored = dict(self.services.memory.add(self.call.persona_id, role, content, tags=tags,
                                               pulse_id=self.call.pulse_id))
        self.call.on_effect(None)
        return stored

    def forget(self, message_id: int) -> bool:
        gone = self.services.memory.delete(self.call.persona_id, message_id)
        if gone:
            self.call.on_effect(None)
        return gone

    def summarize(self, text: str) -> str:
        return self.services.summarize(text, self.services.world.persona(self.call.persona_id).lightweight_model)

    # ---- long-term memory: recall, Memopedia, Chronicle ----------------------------------------
    @staticmethod
    @contextmanager
    def _memory_errors() -> Iterator[None]:
        try:
            yield
        except LongTermMemoryError as exc:
            raise ToolError(str(exc)) from exc

    def recall(self, query: str, limit: int) -> list[dict[str, Any]]:
        return self.services.recall(self.call.persona_id, query, limit=limit, exclude_pulse=self.call.pulse_id)

    def memopedia_search(self, query: str, category: str | None, limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            return [p.to_dict() for p in self.services.memopedia.search(self.call.persona_id, query, category=category,
                                                                       limit=limit)]

    def memopedia_page(self, page_id: str | None, title: str | None) -> dict[str, Any]:
        store = self.services.memopedia
        with self._memory_errors():
            page = store.find(self.call.persona_id, page_id=page_id, title=title)
        if not page.is_root:
            store.touch(self.call.persona_id, page.page_id)  # when it was last read: bookkeeping, not an effect
        return page.to_dict()

    def memopedia_tree(self) -> list[dict[str, Any]]:
        def node(n: dict[str, Any]) -> dict[str, Any]:
            p = n["page"]
            return {"page_id": p.page_id, "title": p.title, "summary": p.summary, "category": p.category,
                    "problem": n["problem"], "children": [node(c) for c in n["children"]]}

        return [node(n) for n in self.services.memopedia.tree(self.call.persona_id)]

    def memopedia_set_open(self, page_id: str, is_open: bool) -> dict[str, Any]:
        with self._memory_errors():
            page = self.services.memopedia.set_open(self.call.persona_id, page_id, is_open).to_dict()
        self.call.on_effect(None)
        return page

    @changes
    def memopedia_save(self, title: str, summary: str, content: str, category: str | None,
                       keywords: list[str] | None) -> tuple[dict[str, Any], bool]:
        with self._memory_errors():
            page, created = self.services.memopedia.save_page(
                self.call.persona_id, title, summary=summary, content=content, category=category, keywords=keywords)
        self.call.on_effect(f"Memopedia のページ「{page.title}」を{'作りました' if created else '書き換えました'}。")
        return page.to_dict(), created

    @changes
    def memopedia_note(self, content: str, title: str, summary: str, category: str | None,
                       keywords: list[str] | None, page_id: str) -> dict[str, Any]:
        from datetime import date

        with self._memory_errors():
            page = self.services.memopedia.note(
                self.call.persona_id, content, title=title, summary=summary, category=category, keywords=keywords,
                page_id=page_id, day=date.today().isoformat()).to_dict()
        self.call.on_effect(f"Memopedia のページ「{page.get('title', '')}」に書き足しました。")
        return page

    def chronicle_search(self, query: str | None, start_date: str | None, end_date: str | None, level: int | None,
                         limit: int) -> list[dict[str, Any]]:
        with self._memory_errors():
            start = parse_day(start_date, "start_date")
            end = parse_day(end_date, "end_date", end=True)
            found = self.services.chronicle.search(self.call.persona_id, query, start=start, end=end, level=level,
                                                  limit=limit)
        return [e.to_dict() for e in found]

    def chronicle_detail(self, entry_id: str, include_sources: bool, max_sources: int) -> dict[str, Any]:
        store = self.services.chronicle
        with self._memory_errors():
            entry = store.get(self.call.persona_id, entry_id)
        if entry.problem:
            raise ToolError(f"Chronicle エントリ {entry.entry_id} は壊れていて読めません: {entry.problem}")
        out = entry.to_dict()
        out["sources"] = []
        if include_sources:
            if entry.level == 1:
                out["sources"] = store.source_messages(self.call.persona_id, entry, max_sources)
            else:
                out["sources"] = [c.to_dict() for c in store.children(self.call.persona_id, entry)]
        return out
