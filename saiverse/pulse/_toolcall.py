"""One tool call's binding and the parts of the app it may reach: what every tool service is handed.

`ToolServices` is built once by the manager (saiverse/manager.py); a `ToolCall` — the persona, the building
and (in a pulse) the pulse a call runs for, and who hears its changes — is the `ManagerToolContext` itself
(saiverse/pulse/_toolctx.py), handed to each service it is composed of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from saiverse.memory import ChronicleStore, MemopediaStore, SAIMemory
from saiverse.world import BuildingInfo, ItemInfo, ItemStore, ScheduleInfo, ScheduleStore, World
from sea.playbook import Playbook


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
    persona_playbooks: Callable[[str], list[Playbook]] = lambda persona_id: []
    """persona id → the playbooks only she may be routed to: one per MCP tool of hers (saiverse/mcp_playbooks.py)."""


class ToolCall(Protocol):
    """One tool call: who runs it, where, in which pulse, and who hears what it changes."""

    services: ToolServices
    """What the call may reach."""
    persona_id: str
    """The persona running the tool."""
    building_id: str
    """Where the persona is (a move changes it for the rest of the call)."""
    pulse_id: str | None
    """The pulse the call belongs to (None from the CLI `tool` command)."""
    notify: Callable[[dict[str, Any]], None]
    """Receives item_created / item_updated events (the pulse forwards them to the UI)."""
    on_effect: Callable[[str | None], None]
    """Told of every change, with a note for the persona's memory (None: the change is itself a memory
    write); a pulse that then stops keeps them remembered (saiverse/pulse/_journal.py)."""
    before_change: Callable[[], None]
    """Told before a `@changes` method runs: the pulse keeps the tool's intent (saiverse/pulse/_intent.py)."""
    after_change: Callable[[], None]
    """Told when a `@changes` method returned or refused: an intent its note did not replace is dropped."""
