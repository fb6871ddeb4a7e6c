"""ToolContext: everything a tool may touch, handed to it by the manager for one call.

Tools never import the domain; they see the world only through this protocol, which the manager
implements for the persona and building the tool runs as. Methods raise `tools.ToolError` with a
message naming the thing (an unknown id, an item out of reach) when a call cannot be served.
Times are ISO strings; memory messages carry `created_at` in UTC (`+00:00`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol


class ToolContext(Protocol):
    """The world as one tool call sees it."""

    persona_id: str
    """The persona running the tool."""
    building_id: str
    """Where the persona is."""
    pulse_id: str | None
    """The pulse the call belongs to (None from the CLI `tool` command)."""

    def pulse_kind(self) -> str | None:
        """What started the pulse: `user`, `schedule` or `auto` (None outside a pulse)."""
        ...

    # ---- the persona and the city -------------------------------------------------------------
    def persona(self) -> dict[str, Any]:
        """The persona running the tool: persona_id, name, description, system_prompt, building_id."""
        ...

    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The persona's SAIMemory recall: messages with id, role, content, tags, created_at, score."""
        ...

    def move_persona(self, building_id: str) -> dict[str, Any]:
        """Move the persona to another building; returns the building."""
        ...

    def building_overview(self) -> dict[str, Any]:
        """The persona's building: name, description, personas (names), self_name, user_present,
        items (name, type), recent (speaker, content) lines."""
        ...

    def buildings(self) -> list[dict[str, Any]]:
        """Every building (building_id, name, description, capacity)."""
        ...

    def building(self, building_id: str) -> dict[str, Any]:
        """One building (building_id, name, description, capacity, system_instruction)."""
        ...

    def personas_in(self, building_id: str) -> list[dict[str, Any]]:
        """The personas in a building (persona_id, name, description)."""
        ...

    def user_building(self) -> str | None:
        """Where the user is (None before the user has gone anywhere)."""
        ...

    def create_building(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A new building in the city from name, description, system_instruction, capacity."""
        ...

    def system_prompt(self, building_id: str) -> str:
        """The system prompt the persona's model calls get in that building (who it is, where)."""
        ...

    # ---- building history -----------------------------------------------------------------------
    def building_lines(self, building_id: str, after_id: int | None, limit: int) -> list[dict[str, Any]]:
        """History lines (id, speaker_kind, speaker_id, speaker_name, content, created_at), oldest first:
        those after line `after_id`, or the latest `limit` when `after_id` is None."""
        ...

    def last_own_line(self, building_id: str) -> int | None:
        """Id of the persona's own last line in the building (None if it never spoke there)."""
        ...

    def building_cursor(self, building_id: str) -> int | None:
        """The last history line of the building the persona has taken in (None: never read)."""
        ...

    def set_building_cursor(self, building_id: str, line_id: int) -> None:
        """Remember that the persona has taken in the building's lines up to `line_id`."""
        ...

    # ---- working memory (small JSON notes kept across pulses) ------------------------------------
    def working_memory(self) -> dict[str, Any]:
        """The persona's working memory (key → JSON value)."""
        ...

    def set_working_memory(self, key: str, value: Any) -> None:
        """Set one key of the working memory (None removes it)."""
        ...

    # ---- SAIMemory ------------------------------------------------------------------------------
    def memory_recent(self, limit: int, tags: list[str] | None = None) -> list[dict[str, Any]]:
        """The persona's newest messages (carrying any of `tags`; all when None), oldest first."""
        ...

    def memory_around(self, message_id: int, before: int, after: int) -> list[dict[str, Any]]:
        """A message of the persona and its neighbours, oldest first; ToolError naming an unknown id."""
        ...

    def memory_between(self, start: datetime, end: datetime, limit: int) -> list[dict[str, Any]]:
        """The persona's messages written between two aware datetimes, oldest first."""
        ...

    def memory_tagged(self, tag: str, limit: int) -> list[dict[str, Any]]:
        """The persona's newest messages carrying `tag`, newest first."""
        ...

    def remember(self, role: str, content: str, tags: list[str]) -> dict[str, Any]:
        """Store a message in the persona's SAIMemory now (in the current pulse, if any)."""
        ...

    def forget(self, message_id: int) -> bool:
        """Remove one of the persona's messages; False if it was not theirs."""
        ...

    def summarize(self, text: str) -> str:
        """A short Japanese summary of `text` by the persona's lightweight model chain."""
        ...

    # ---- schedules ------------------------------------------------------------------------------
    def schedule_add(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Add a schedule for the persona; returns it with its id and next run."""
        ...

    def schedule_list(self) -> list[dict[str, Any]]:
        """The persona's schedules."""
        ...

    def schedule_delete(self, schedule_id: str) -> bool:
        """Delete one of the persona's schedules; False if it was not theirs or did not exist."""
        ...

    # ---- items: the persona sees its building's items and what it carries --------------------
    def items_here(self) -> list[dict[str, Any]]:
        """Items in the persona's building and in its hands (item_id, name, type, description, owner_kind)."""
        ...

    def building_items(self, building_id: str) -> list[dict[str, Any]]:
        """Items lying in a building (item_id, name, type, description)."""
        ...

    def carried_items(self) -> list[dict[str, Any]]:
        """Items the persona carries."""
        ...

    def item(self, item_id: str) -> dict[str, Any]:
        """One item the persona can reach; ToolError naming the id otherwise."""
        ...

    def read_document(self, item_id: str) -> str:
        """A reachable document's full text (a PDF's extracted text)."""
        ...

    def pdf_pages(self, item_id: str) -> list[str]:
        """The text of each page of a reachable PDF document item."""
        ...

    def picture_file(self, item_id: str) -> str:
        """Absolute path (inside the data home) of a reachable picture."""
        ...

    def create_document(self, name: str, description: str, content: str) -> dict[str, Any]:
        """A new document item in the persona's building (file, summary, rows)."""
        ...

    def rename_item(self, item_id: str, name: str) -> dict[str, Any]:
        """Give an item here (or carried) a new name; the item as it now is."""
        ...

    def update_description(self, item_id: str, description: str) -> dict[str, Any]:
        """Set a reachable item's description."""
        ...

    def patch_document(self, item_id: str, patch: str) -> tuple[dict[str, Any], str]:
        """Apply a unified diff or append text to a document; returns (item, 'diff'|'append')."""
        ...

    def generate_picture(self, prompt: str, name: str | None = None, aspect_ratio: str | None = None,
                         state: dict[str, Any] | None = None) -> dict[str, Any]:
        """Draw `prompt` (cropped to `aspect_ratio`) as a picture item named `name` in the persona's building."""
        ...

    def move_item(self, item_id: str, to: str) -> dict[str, Any]:
        """`to='persona'`: pick up from the building; `to='building'`: place it here."""
        ...

    def run_production(self, request: str) -> str:
        """Run the production workflow for `request` to its end; returns a short report."""
        ...

    # ---- long-term memory: recall, Memopedia and Chronicle of the persona ---------------------
    # Bad input (unknown page or entry, a parent cycle, an over-long page) raises ToolError.
    def recall(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Messages, Chronicle entries and Memopedia pages matching `query`, best first; each hit has
        `kind` (message / chronicle / memopedia), `id`, `content`, `created_at`, `score`."""
        ...

    def memopedia_search(self, query: str, category: str | None, limit: int) -> list[dict[str, Any]]:
        """Pages matching `query` (page_id, title, summary, content, category, keywords)."""
        ...

    def memopedia_page(self, page_id: str | None, title: str | None) -> dict[str, Any]:
        """One page by id or exact title, with `updated_at`; looking at it counts as a reference."""
        ...

    def memopedia_tree(self) -> list[dict[str, Any]]:
        """The three roots with their pages: nodes {page_id, title, summary, category, children, problem}."""
        ...

    def memopedia_set_open(self, page_id: str, is_open: bool) -> dict[str, Any]:
        """Open (its body joins the persona's prompts) or close a page in the persona's thread."""
        ...

    def memopedia_save(self, title: str, summary: str, content: str, category: str | None,
                       keywords: list[str] | None) -> tuple[dict[str, Any], bool]:
        """Create or update (same title in the category) a page; returns (page, created)."""
        ...

    def memopedia_note(self, content: str, title: str, summary: str, category: str | None,
                       keywords: list[str] | None, page_id: str) -> dict[str, Any]:
        """Append a dated line to a page (by id, else by title; created when missing)."""
        ...

    def chronicle_search(self, query: str | None, start_date: str | None, end_date: str | None, level: int | None,
                         limit: int) -> list[dict[str, Any]]:
        """Chronicle entries matching the query and dates (YYYY-MM-DD), newest first."""
        ...

    def chronicle_detail(self, entry_id: str, include_sources: bool, max_sources: int) -> dict[str, Any]:
        """One entry with `sources`: its messages (level 1) or the entries it summarises (level 2+)."""
        ...

    def router_playbooks(self) -> list[dict[str, Any]]:
        """Playbooks a router may choose here: name, display_name, description, keywords."""
        ...

    def router_playbooks_json(self) -> str:
        """`router_playbooks` as JSON text (`ensure_ascii=False`), as `list_available_playbooks` returns it."""
        ...

    def track_book(self) -> Any:
        """The persona's tracks and notes (saiverse/memory/_track_book.py `TrackBook`): the track_* / note_* tools."""
        ...

    # ---- upstream v0.3 tools (saiverse/pulse/_toolctx_v03.py) ------------------------------------------
    def edit_document(self, item_id: str, edit: Callable[[str], str]) -> dict[str, Any]:
        """Rewrite a reachable document with `edit(text) -> new text`, run under the document's lock on
        its newest text (a ToolError from `edit` writes nothing); the item as it now is."""
        ...

    def move_item_to(self, item_id: str, owner_kind: str, owner_id: str) -> dict[str, Any]:
        """Move a reachable item to `building`/`persona` `owner_id`, into the smallest free slot there."""
        ...

    def messages_around_time(self, when: datetime, count: int, thread_id: str | None) -> list[dict[str, Any]]:
        """The persona's `count` messages closest to an aware datetime, oldest first, within one thread
        when `thread_id` is given (ToolError naming an unknown thread); each has `thread_id`."""
        ...

    def memopedia_health(self) -> dict[str, Any]:
        """Page counts: total, by_category, oversized / large / no_summary rows (page_id, title, category, chars)."""
        ...

    def memopedia_delete(self, page_id: str) -> list[dict[str, Any]]:
        """Delete a page and the pages under it (kept in history); the deleted pages, the page first."""
        ...

    def memopedia_update(self, page_id: str, *, parent_id: str | None = None, vividness: str | None = None,
                         is_important: bool | None = None) -> dict[str, Any]:
        """Move a page under another parent, or set its vividness or important flag; the page."""
        ...

    def recalled(self) -> list[dict[str, Any]]:
        """Memories recalled into working memory (source_id, kind, title, content), oldest first."""
        ...

    def set_recalled(self, entries: list[dict[str, Any]]) -> None:
        """Replace the recalled memories kept in working memory ([] clears them)."""
        ...

    def run_playbook(self, name: str) -> str:
        """Run a router-callable playbook as a sub-line of the playbook calling this tool; its report.
        ToolError outside a pulse, for an unknown or not callable playbook, or past the nesting limit."""
        ...
