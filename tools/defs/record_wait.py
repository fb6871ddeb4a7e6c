"""record_wait: the persona chose to wait; consecutive waits are kept as one message with a count."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool
from tools.text import clip, stamp

STARTED = "wait_started:"
COUNT = "wait_count:"


def _tag(message: dict[str, Any], prefix: str) -> str | None:
    return next((t[len(prefix):] for t in message.get("tags") or [] if t.startswith(prefix)), None)


@tool("record_wait")
def record_wait(
    ctx: ToolContext, reason: Annotated[str | None, Field(description="Why you wait (optional).")] = None,
) -> str:
    """Record that you chose to wait this turn. Consecutive waits become one memory with a count."""
    now = datetime.now(UTC).isoformat()
    why = f" - {clip(reason, 200)}" if reason and reason.strip() else ""
    last = ctx.memory_recent(1, ["conversation", "internal"])
    previous = last[-1] if last and "wait" in (last[-1].get("tags") or []) else None
    if previous is None:
        started, count = now, 1
        content = f"(待機開始: {stamp(now, '%H:%M:%S')}{why})"
    else:
        started = _tag(previous, STARTED) or str(previous["created_at"])
        raw_count = _tag(previous, COUNT) or "1"
        count = (int(raw_count) if raw_count.isdigit() else 1) + 1
        content = f"(待機中: 開始 {stamp(started, '%H:%M:%S')}, 最新 {stamp(now, '%H:%M:%S')}, {count}回目{why})"
    ctx.remember("assistant", content, ["internal", "wait", STARTED + started, COUNT + str(count)])
    if previous is not None:
        ctx.forget(previous["id"])  # after the new one is stored, so a failure never loses the wait
    return "待機を選びました。" if count == 1 else f"待機を続けています ({count}回目)。"
