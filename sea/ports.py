"""What the SEA runtime needs from the world, as a Protocol the manager implements.

The runtime never imports the domain (`saiverse.*` beyond the model interface); it is handed a
`RuntimePorts` for each pulse. That keeps `sea` testable with a plain object and the layering of
layer order (docs/ARCHITECTURE.md, "Layers") intact.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, TypedDict

from chat import ChatModel, Message
from sea.playbook import Playbook


class PersonaContext(TypedDict, total=False):
    """The persona a pulse runs as (`_persona_obj`)."""

    persona_id: str
    name: str
    avatar: str
    system_prompt: str
    description: str
    default_model: str | None
    lightweight_model: str | None
    lightweight_vision_model: str | None
    vision_model: str | None
    building_id: str


class MemoryLine(TypedDict, total=False):
    """A SAIMemory message as the runtime reads it back."""

    role: str
    content: str
    tags: list[str]
    pulse_id: str | None


class PromptContext(TypedDict):
    """One model call's prompt, fitted to the persona's token budget by the domain."""

    system: str
    messages: list[Message]
    input_tokens: int


class RuntimePorts(Protocol):
    """Effects and lookups a pulse may perform."""

    def model_for(self, persona: PersonaContext, model_type: str) -> tuple[ChatModel, str | None]:
        """The model for this persona (`normal` or `lightweight`) and a fallback notice, if any."""
        ...

    def remember(
        self, persona_id: str, role: str, content: str, tags: list[str], pulse_id: str,
        *, line: dict[str, Any] | None = None,
    ) -> None:
        """Store a SAIMemory message (the `pulse:<id>` tag is added by the store). `line` holds its
        `line_role`, `line_id` and `scope` (sea/lines.py): a `volatile` one is never written."""
        ...

    def prompt_context(
        self, persona: PersonaContext, building_id: str, pulse_id: str, model: ChatModel, pending: list[Message],
        *, exclude_tags: frozenset[str] = frozenset(), history_depth: Any = None, line_id: str | None = None,
    ) -> PromptContext:
        """System prompt and messages of a model call: memory and history within the persona's token
        budget, then the pulse's messages and `pending` (this playbook run's exchanges and prompt).

        Pulse messages carrying any of `exclude_tags` are left out (a finished Stelis session);
        `history_depth` caps the stored conversation shown (upstream's `context_requirements` value:
        `full`, `0`, `'Nmessages'` or a number of characters; `sea.compat.trim_history`). The pulse's
        messages of another sub-line than `line_id`, and `discardable` ones, are left out (sea/lines.py)."""
        ...

    def post_to_building(
        self, building_id: str, persona: PersonaContext, text: str, pulse_id: str, *, cut: str | None = None
    ) -> int | None:
        """Append a persona's line to the building history; returns its id once known. `cut`: the reply
        stopped before its end (`chat.CUT_LENGTH`, `chat.CUT_STOPPED`) and can be continued; a cut reply
        of a cancelled pulse is kept."""
        ...

    def system_prompt(self, persona: PersonaContext, building_id: str) -> str:
        """The system prompt for this persona in this building."""
        ...

    def call_tool(
        self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str, pulse_id: str,
        emit: Callable[[dict[str, Any]], None],
    ) -> Any:
        """Run a registered tool as this persona, within this pulse; `emit` streams its events."""
        ...

    def tool_specs(self, names: list[str], persona: PersonaContext | None = None,
                   emit: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        """Name, description and JSON-schema parameters of these tools (for llm `available_tools`).

        With `persona`, that persona's own tools (its MCP servers') count too; `emit` hears a notice
        when one of its servers cannot be reached."""
        ...

    def playbook(self, name: str) -> Playbook | None:
        """A playbook by name (builtin or imported), or None."""
        ...

    def router_playbooks(self) -> list[Playbook]:
        """The playbooks a router may choose (`router_callable`)."""
        ...

    def target_names(self, kind: str, building_id: str) -> list[str]:
        """What a request may name for a playbook that acts on `kind` (sea/router.py, `with_targets`):
        `item` the names of the items in the building, `building` the names of the city's buildings."""
        ...

    def decision_rules(self) -> ChatModel:
        """The deterministic model that decides a routing or JSON-field choice, or a choice of tools, when
        the persona's model answered it with prose or broken JSON even after its one retry
        (sea/decisions.py)."""
        ...


class CancellationToken:
    """Set by the pulse controller (stop button); checked between nodes and while streaming."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.keep_said = True
        """What a reply said before the stop stays, as a cut line to continue (the user's stop); False
        when the pulse's persona is going (a delete): nothing it was saying is kept."""

    def cancel(self, *, keep_said: bool = True) -> None:
        self.keep_said = keep_said
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()
