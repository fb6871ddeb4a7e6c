"""control_body: upstream's body control (Unity avatar emotes); there is no body to move here."""

from __future__ import annotations

import json
import re
from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool

_COMMAND = re.compile(r'\{[^{}]*"body_(?:emote|behavior)"\s*:\s*"[^"]+"[^{}]*\}')


@tool(
    "control_body",
    "Extract body control commands from the persona's message; returns the message.",
    {
        "type": "object",
        "properties": {
            "message": {"type": "string",
                        "description": "The persona's spoken message containing potential body control commands."},
            "persona_id": {"type": "string", "description": "Optional persona ID (defaults to the current persona)."},
        },
        "required": ["message"],
    },
)
def control_body(
    ctx: ToolContext,
    message: Annotated[str, Field(description="The persona's spoken message containing potential body control "
                                              "commands.")],
    persona_id: Annotated[str | None, Field(description="Optional persona ID (defaults to the current persona).")]
    = None,
) -> str:
    """Extract body control commands from the persona's message; returns the message.

    Upstream sends `{"body_emote": ...}` / `{"body_behavior": ...}` commands found in a message to a
    Unity avatar and returns the message. No avatar body is connected here: a message without
    commands comes back unchanged, one with commands comes back with a note naming them (not sent).
    """
    commands = []
    for match in _COMMAND.finditer(message or ""):
        try:
            commands.append(json.loads(match.group(0)))
        except json.JSONDecodeError:
            continue
    if commands:
        return message + "\n(身体制御: アバターが接続されていないため送信しませんでした: " + \
            ", ".join(json.dumps(c, ensure_ascii=False) for c in commands) + ")"
    return message
