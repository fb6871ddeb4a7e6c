"""ToolContext: everything a tool may touch, handed to it by the manager for one call.

Tools never import the domain; they see the world only through this protocol, which the manager
implements for the persona and building the tool runs as.
"""

from __future__ import annotations

from typing import Any, Protocol


class ToolContext(Protocol):
    """The world as one tool call sees it."""

    persona_id: str
    """The persona running the tool."""
    building_id: str
    """Where the persona is."""
    pulse_id: str | None
    """The pulse the call belongs to (None from the CLI `tool` command)."""

    def memory_search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The persona's SAIMemory recall: messages with role, content, created_at, score."""
        ...

    def move_persona(self, building_id: str) -> dict[str, Any]:
        """Move the persona to another building; returns the building."""
        ...

    def building_overview(self) -> dict[str, Any]:
        """The persona's building: name, description, personas (names), self_name, user_present,
        items (name, type), recent (speaker, content) lines."""
        ...

    def buildings(self) -> list[dict[str, Any]]:
        """Every building (id, name, description, capacity)."""
        ...

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

    def item(self, item_id: str) -> dict[str, Any]:
        """One item the persona can reach; LookupError naming the id otherwise."""
        ...

    def read_document(self, item_id: str) -> str:
        """A reachable document's full text."""
        ...

    def picture_file(self, item_id: str) -> str:
        """Absolute path (inside the data home) of a reachable picture."""
        ...

    def create_document(self, name: str, description: str, content: str) -> dict[str, Any]:
        """A new document item in the persona's building (file, summary, rows)."""
        ...

    def update_description(self, item_id: str, description: str) -> dict[str, Any]:
        """Set a reachable item's description."""
        ...

    def patch_document(self, item_id: str, patch: str) -> tuple[dict[str, Any], str]:
        """Apply a unified diff or append text to a document; returns (item, 'diff'|'append')."""
        ...

    def generate_picture(self, prompt: str) -> dict[str, Any]:
        """Draw an image for `prompt` and place it as a picture item in the persona's building."""
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
