"""The one event type of a pulse (docs/ARCHITECTURE.md, "Events"): what the UI renders and the CLI prints as JSON lines.

Every event is a plain dict with `type`; `pulse_id` and `persona_id` are set wherever a pulse and a
persona are involved. A persona's reply always ends with a `speak` event carrying the full `text`,
possibly preceded by `speak_chunk` events carrying `delta`.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

EventType = Literal[
    "user_message",
    "pulse_start",
    "speak_chunk",
    "speak",
    "say",
    "think",
    "memorize",
    "tool_call",
    "tool_result",
    "item_created",
    "item_updated",
    "notice",
    "error",
    "pulse_end",
]
"""The kinds of event; production events use the `data-*` names as their type (docs/ARCHITECTURE.md, "Events")."""


class Event(TypedDict, total=False):
    """One thing that happened during a pulse."""

    type: str
    """One of `EventType` (or a production `data-*` name)."""
    pulse_id: str
    """The pulse this event belongs to."""
    persona_id: str
    """The persona acting."""
    persona_name: str
    """Display name of the persona acting."""
    avatar: str
    """The persona's avatar (an emoji)."""
    building_id: str
    """Where it happened."""
    text: str
    """Full text (speak, say, think, memorize, notice, user_message)."""
    delta: str
    """A chunk of text (speak_chunk)."""
    node: str
    """Id of the playbook node that produced it."""
    playbook: str
    """Name of the playbook that produced it."""
    tool: str
    """Tool name (tool_call, tool_result)."""
    args: dict[str, Any]
    """Tool arguments (tool_call)."""
    result: Any
    """Tool result (tool_result)."""
    item: dict[str, Any]
    """The item concerned (item_created, item_updated)."""
    message: str
    """Human-readable error message (error)."""
    kind: str
    """Error kind (error) or notice kind (notice)."""
    status: str
    """`ok`, `error` or `cancelled` (pulse_end)."""
    history_id: int
    """Row id in building_history of a spoken or user line."""
    tags: list[str]
    """SAIMemory tags (memorize)."""
    metadata: dict[str, Any]
    """An object a playbook attached to a spoken, said or stored message (upstream `metadata_key`)."""
    model: str
    """The model that answered (speak, pulse_end), e.g. `local`, `gpt-4.1`, `offline`; in a
    `decision_fallback` notice, the model whose answer could not be used."""
    problem: str
    """What was wrong with a model's decision (`decision_fallback`): `prose`, `broken_json` or `schema`."""
    retried_as: str
    """How its one retry enforced the format (`decision_fallback`): `json_object`, `json_schema`, `tool`,
    or `same` (as the first try)."""
    decided_by: str
    """Who decided instead (`decision_fallback`): the rules' model, `offline`."""
    cut: str
    """A reply that stopped before its end (speak): `length` (the answer length) or `stopped` (the user
    stopped it); it can be continued (`CityPort.continue_reply`)."""


def event(type_: str, **fields: Any) -> Event:
    """Build an event, dropping fields that are None."""
    ev: dict[str, Any] = {"type": type_}
    ev.update({k: v for k, v in fields.items() if v is not None})
    return ev  # type: ignore[return-value]
