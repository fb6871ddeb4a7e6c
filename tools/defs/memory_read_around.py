"""memory_read_around: a remembered message with the conversation around it (after memory_search_brief)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool
from tools.text import role_ja, stamp

MAX_WINDOW = 50


def message_id_arg(tool_name: str, raw: str | int) -> int:
    """A message id as given by memory_search_brief (digits); anything else is an argument error."""
    text = str(raw).strip().strip("()")
    if not text.isdigit():
        raise ToolArgumentError(f"tool {tool_name!r}: message_id must be a message number such as '128', got {raw!r}")
    return int(text)


@tool("memory_read_around")
def memory_read_around(
    ctx: ToolContext,
    message_id: Annotated[str, Field(description="The message id (from memory_search_brief) to centre on.")],
    window: Annotated[int, Field(description="Messages to show before and after it (0-50).", ge=0)] = 10,
) -> str:
    """Read the conversation around one remembered message; the message itself is marked with <<<."""
    center = message_id_arg("memory_read_around", message_id)
    size = min(window, MAX_WINDOW)
    messages = ctx.memory_around(center, size, size)
    lines = [f"記憶 {center} の前後 ({len(messages)}件):", "```"]
    for m in messages:
        mark = " <<<" if m["id"] == center else ""
        lines.append(f"[{role_ja(str(m.get('role', '')))}] {stamp(str(m.get('created_at', '')))}: "
                     f"{str(m.get('content', '')).strip()}{mark}")
    lines.append("```")
    return "\n".join(lines)
