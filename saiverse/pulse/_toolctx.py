"""The domain's implementation of `tools.ToolContext`: the world as one tool call sees it.

A tool call gets a `ManagerToolContext` bound to a persona, a building and (in a pulse) the pulse. It is
that binding (`ToolCall`, saiverse/pulse/_toolcall.py) and is composed of four services, each handed the
call, each in its own module:

- `city` (`_toolctx_city.py`): the persona, buildings, history, working memory, schedules, a production;
- `items` (`_toolctx_items.py`): the items in the persona's building and in its hands;
- `memory` (`_toolctx_memory.py`): SAIMemory, recall, Memopedia, Chronicle;
- `v03` (`_toolctx_v03.py`): upstream v0.3's tools (whole-document edits, slots, recalled memories).

The methods below are `ToolContext`'s, in its order, each delegated to the service that owns it. The
services reach the world only through `ToolServices`, the stores and callables the manager builds
once — never the manager itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from saiverse.memory import TrackBook
from saiverse.pulse._toolcall import ToolServices
from saiverse.pulse._toolctx_city import CityTools
from saiverse.pulse._toolctx_items import ItemTools
from saiverse.pulse._toolctx_memory import MemoryTools
from saiverse.pulse._toolctx_v03 import V03Tools


@dataclass
class ManagerToolContext:
    """Binds a tool call to a persona, a building and (optionally) a pulse; the services do the work."""

    services: ToolServices
    persona_id: str
    building_id: str
    """Where the persona is; `move_persona` changes it for the rest of the call."""
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

    def __post_init__(self) -> None:
        self.city = CityTools(self)
        self.items = ItemTools(self)
        self.memory = MemoryTools(self)
        self.v03 = V03Tools(self, self.items, self.city)

    def pulse_kind(self) -> str | None:
        return self.city.pulse_kind()

    def persona(self) -> dict[str, Any]:
        return self.city.persona()

    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        return self.memory.memory_search(query, limit)

    def move_persona(self, building_id: str) -> dict[str, Any]:
        return self.city.move_persona(building_id)

    def building_overview(self) -> dict[str, Any]:
        return self.city.building_overview()

    def buildings(self) -> list[dict[str, Any]]:
        return self.city.buildings()

    def building(self, building_id: str) -> dict[str, Any]:
        return self.city.building(building_id)

    def personas_in(self, building_id: str) -> list[dict[str, Any]]:
        return self.city.personas_in(building_id)

    def user_building(self) -> str | None:
        return self.city.user_building()

    def create_building(self, spec: dict[str, Any]) -> dict[str, Any]:
        return self.city.create_building(spec)

    def system_prompt(self, building_id: str) -> str:
        return self.city.system_prompt(building_id)

    def building_lines(self, building_id: str, after_id: int | None, limit: int) -> list[dict[str, Any]]:
        return self.city.building_lines(building_id, after_id, limit)

    def last_own_line(self, building_id: str) -> int | None:
        return self.city.last_own_line(building_id)

    def building_cursor(self, building_id: str) -> int | None:
        return self.city.building_cursor(building_id)

    def set_building_cursor(self, building_id: str, line_id: int) -> None:
        return self.city.set_building_cursor(building_id, line_id)

    def working_memory(self) -> dict[str, Any]:
        return self.city.working_memory()

    def set_working_memory(self, key: str, value: Any) -> None:
        return self.city.set_working_memory(key, value)

    def memory_recent(self, limit: int, tags: list[str] | None=None) -> list[dict[str, Any]]:
        return self.memory.memory_recent(limit, tags)

    def memory_around(self, message_id: int, before: int, after: int) -> list[dict[str, Any]]:
        return self.memory.memory_around(message_id, before, after)

    def memory_between(self, start: datetime, end: datetime, limit: int) -> list[dict[str, Any]]:
        return self.memory.memory_between(start, end, limit)

    def memory_tagged(self, tag: str, limit: int) -> list[dict[str, Any]]:
        return self.memory.memory_tagged(tag, limit)

    def remember(self, role: str, content: str, tags: list[str]) -> dict[str, Any]:
        return self.memory.remember(role, content, tags)

    def forget(self, message_id: int) -> bool:
        return self.memory.forget(message_id)

    def summarize(self, text: str) -> str:
        return self.memory.summarize(text)

    def schedule_add(self, spec: dict[str, Any]) -> dict[str, Any]:
        return self.city.schedule_add(spec)

    def schedule_list(self) -> list[dict[str, Any]]:
        return self.city.schedule_list()

    def schedule_delete(self, schedule_id: str) -> bool:
        return self.city.schedule_delete(schedule_id)

    def items_here(self) -> list[dict[str, Any]]:
        return self.items.items_here()

    def building_items(self, building_id: str) -> list[dict[str, Any]]:
        return self.items.building_items(building_id)

    def carried_items(self) -> list[dict[str, Any]]:
        return self.items.carried_items()

    def item(self, item_id: str) -> dict[str, Any]:
        return self.items.item(item_id)

    def read_document(self, item_id: str) -> str:
        return self.items.read_document(item_id)

    def pdf_pages(self, item_id: str) -> list[str]:
        return self.items.pdf_pages(item_id)

    def picture_file(self, item_id: str) -> str:
        return self.items.picture_file(item_id)

    def create_document(self, name: str, description: str, content: str) -> dict[str, Any]:
        return self.items.create_document(name, description, content)

    def rename_item(self, item_id: str, name: str) -> dict[str, Any]:
        return self.items.rename_item(item_id, name)

    def update_description(self, item_id: str, description: str) -> dict[str, Any]:
        return self.items.update_description(item_id, description)

    def patch_document(self, item_id: str, patch: str) -> tuple[dict[str, Any], str]:
        return self.items.patch_document(item_id, patch)

    def generate_picture(self, prompt: str, name: str | None=None, aspect_ratio: str | None=None, state: dict[str,
                         Any] | None=None) -> dict[str, Any]:
        return self.items.generate_picture(prompt, name, aspect_ratio, state)

    def move_item(self, item_id: str, to: str) -> dict[str, Any]:
        return self.items.move_item(item_id, to)

    def run_production(self, request: str) -> str:
        return self.city.run_production(request)

    def recall(self, query: str, limit: int) -> list[dict[str, Any]]:
        return self.memory.recall(query, limit)

    def memopedia_search(self, query: str, category: str | None, limit: int) -> list[dict[str, Any]]:
        return self.memory.memopedia_search(query, category, limit)

    def memopedia_page(self, page_id: str | None, title: str | None) -> dict[str, Any]:
        return self.memory.memopedia_page(page_id, title)

    def memopedia_tree(self) -> list[dict[str, Any]]:
        return self.memory.memopedia_tree()

    def memopedia_set_open(self, page_id: str, is_open: bool) -> dict[str, Any]:
        return self.memory.memopedia_set_open(page_id, is_open)

    def memopedia_save(self, title: str, summary: str, content: str, category: str | None,
                       keywords: list[str] | None) -> tuple[dict[str, Any], bool]:
        return self.memory.memopedia_save(title, summary, content, category, keywords)

    def memopedia_note(self, content: str, title: str, summary: str, category: str | None,
                       keywords: list[str] | None, page_id: str) -> dict[str, Any]:
        return self.memory.memopedia_note(content, title, summary, category, keywords, page_id)

    def chronicle_search(self, query: str | None, start_date: str | None, end_date: str | None, level: int | None,
                         limit: int) -> list[dict[str, Any]]:
        return self.memory.chronicle_search(query, start_date, end_date, level, limit)

    def chronicle_detail(self, entry_id: str, include_sources: bool, max_sources: int) -> dict[str, Any]:
        return self.memory.chronicle_detail(entry_id, include_sources, max_sources)

    def router_playbooks(self) -> list[dict[str, Any]]:
        return self.city.router_playbooks()

    def router_playbooks_json(self) -> str:
        return self.city.router_playbooks_json()

    def track_book(self) -> TrackBook:
        return self.city.track_book()

    def edit_document(self, item_id: str, edit: Callable[[str], str]) -> dict[str, Any]:
        return self.v03.edit_document(item_id, edit)

    def move_item_to(self, item_id: str, owner_kind: str, owner_id: str) -> dict[str, Any]:
        return self.v03.move_item_to(item_id, owner_kind, owner_id)

    def messages_around_time(self, when: datetime, count: int, thread_id: str | None) -> list[dict[str, Any]]:
        return self.v03.messages_around_time(when, count, thread_id)

    def memopedia_health(self) -> dict[str, Any]:
        return self.v03.memopedia_health()

    def memopedia_delete(self, page_id: str) -> list[dict[str, Any]]:
        return self.v03.memopedia_delete(page_id)

    def memopedia_update(self, page_id: str, *, parent_id: str | None=None, vividness: str | None=None,
                         is_important: bool | None=None) -> dict[str, Any]:
        return self.v03.memopedia_update(page_id, parent_id=parent_id, vividness=vividness, is_important=is_important)

    def recalled(self) -> list[dict[str, Any]]:
        return self.v03.recalled()

    def set_recalled(self, entries: list[dict[str, Any]]) -> None:
        return self.v03.set_recalled(entries)

    def run_playbook(self, name: str) -> str:
        return self.v03.run_playbook(name)
