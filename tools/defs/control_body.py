"""control_body: upstream's body commands in a persona's speech (`{"body_emote": "wave"}`).

Upstream sends them to a Unity avatar gateway. There is no avatar body here, so the commands are
taken out of the message (the UI would otherwise show raw JSON) and the clean text is returned.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool

_COMMAND = re.compile(r'\{[^{}]*"body_(?:emote|behavior)"\s*:\s*"[^"]*"[^{}]*\}')


@tool("control_body")
def control_body(
    ctx: ToolContext,
    message: Annotated[str, Field(description="Your spoken message, possibly with {\"body_emote\": ...} commands.")],
    persona_id: Annotated[str, Field(description="Only yourself: omit it, or give your own id.")] = "",
) -> str:
    """Take body commands ({"body_emote": "wave"}, {"body_behavior": "follow_player"}) out of a message.
    There is no avatar body in this city, so they have no further effect; returns the clean message.
    """
    if persona_id.strip() and persona_id.strip() != ctx.persona_id:
        raise ToolError(f"ほかのペルソナ ({persona_id.strip()}) の体は動かせません。")
    if not _COMMAND.search(message):
        return message
    return re.sub(r"[ \t]{2,}", " ", _COMMAND.sub("", message)).strip()
