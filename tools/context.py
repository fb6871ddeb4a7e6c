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

    def router_playbooks(self) -> list[dict[str, Any]]:
        """Playbooks a router may choose here: name, display_name, description, keywords."""
        ...
