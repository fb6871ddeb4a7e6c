"""messagelog_get_around (upstream v0.3): the persona's messages around a moment, optionally in one thread.

`timestamp` is a Unix epoch or an ISO 8601 time; a time without an offset is local time, as upstream
reads it. Threads exist in homes imported from upstream (saiverse/memory/_around.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool
from tools.text import stamp

MAX_COUNT = 100


def parse_moment(value: str) -> datetime:
    """An aware datetime from a Unix epoch or ISO 8601 text (naive: local time)."""
    text = value.strip()
    if not text:
        raise ToolArgumentError(
            "timestamp が空です。Unix 時刻か ISO 8601 (例 2026-04-14T12:34:56) で指定してください。")
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if seconds <= 0:
            raise ToolArgumentError(f"timestamp は正の値にしてください ({value!r})。")
        return datetime.fromtimestamp(seconds, UTC)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolArgumentError(f"timestamp {value!r} を読めません。Unix 時刻か ISO 8601 "
                                "(例 2026-04-14T12:34:56) で指定してください。") from exc
    return when if when.tzinfo else when.astimezone()


@tool("messagelog_get_around")
def messagelog_get_around(
    ctx: ToolContext,
    timestamp: Annotated[str, Field(description="The moment: Unix epoch ('1744612496') or ISO 8601 "
                                                "('2026-04-14T12:34:56').")],
    count: Annotated[int, Field(description="How many messages (1-100).")] = 10,
    thread_id: Annotated[str | None, Field(description="Only this thread (imported upstream threads).")] = None,
) -> str:
    """Read your messages around a given time (the `count` closest to it, oldest first)."""
    when = parse_moment(timestamp)
    if not 1 <= count <= MAX_COUNT:
        raise ToolArgumentError(f"count は 1〜{MAX_COUNT} にしてください ({count} が渡されました)。")
    found = ctx.messages_around_time(when, count, (thread_id or "").strip() or None)
    if not found:
        return f"{when.astimezone().strftime('%Y-%m-%d %H:%M:%S')} の前後にメッセージはありません。"
    return "\n---\n".join(f"[{stamp(m['created_at'], '%Y-%m-%d %H:%M:%S')}] ({m.get('role') or 'unknown'})\n"
                          f"{m['content']}" for m in found)
