"""detail_recall: the original messages behind a summary (get_since_last_user_conversation), or the
last half hour, with the time range widened on request."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.defs.get_since_last_user_conversation import SUMMARY_FROM, SUMMARY_ID, SUMMARY_TAG, SUMMARY_TO
from tools.registry import ToolError, tool
from tools.text import role_ja, stamp

DEFAULT_MINUTES = 30
MAX_MESSAGES = 200


def _summary(ctx: ToolContext, ref: str) -> dict[str, Any]:
    wanted = SUMMARY_ID + ref.strip().lower()
    for m in ctx.memory_tagged(SUMMARY_TAG, 500):
        if any(t.startswith(wanted) for t in m.get("tags") or []):
            return m
    raise ToolError(f"要約 {ref!r} は見つかりません。get_since_last_user_conversation が返した参照IDを使ってください。")


def _tag_time(message: dict[str, Any], prefix: str) -> datetime:
    for t in message.get("tags") or []:
        if t.startswith(prefix):
            return datetime.fromisoformat(t[len(prefix):])
    return datetime.fromisoformat(str(message["created_at"]))


@tool("detail_recall")
def detail_recall(
    ctx: ToolContext,
    summary_uuid: Annotated[str, Field(
        description="Reference id of a summary (its first 8 characters are enough); omit for the last 30 minutes.")]
    = "",
    expand_before_minutes: Annotated[int, Field(description="Start this many minutes earlier.", ge=0)] = 0,
    expand_after_minutes: Annotated[int, Field(description="End this many minutes later.", ge=0)] = 0,
    max_messages: Annotated[int, Field(description="Most messages to show (1-200).", ge=1)] = 50,
) -> str:
    """Read the detailed messages behind a summary (by its reference id) or of a recent time range."""
    if summary_uuid.strip():
        summary = _summary(ctx, summary_uuid)
        start = _tag_time(summary, SUMMARY_FROM) - timedelta(minutes=expand_before_minutes)
        end = _tag_time(summary, SUMMARY_TO) + timedelta(minutes=expand_after_minutes)
    else:
        end = datetime.now(UTC)  # nothing lies after now: expand_after_minutes has nothing to add
        start = end - timedelta(minutes=expand_before_minutes or DEFAULT_MINUTES)
    limit = min(max_messages, MAX_MESSAGES)
    messages = [m for m in ctx.memory_between(start, end, limit + 20)
                if SUMMARY_TAG not in (m.get("tags") or [])][:limit]
    span = f"{stamp(start.isoformat())} 〜 {stamp(end.isoformat())}"
    if not messages:
        return f"{span} の記録はありません。"
    out = [f"【詳細ログ】{span} ({len(messages)}件)", ""]
    for m in messages:
        tags = m.get("tags") or []
        note = " (待機)" if "wait" in tags else " (内心)" if "internal" in tags else ""
        out += [f"[{stamp(str(m['created_at']), '%H:%M:%S')}] [{role_ja(str(m['role']))}]{note}",
                f"  {str(m['content']).strip()}", ""]
    out += ["---", "もっと前を見るには expand_before_minutes、後を見るには expand_after_minutes を指定してください。"]
    return "\n".join(out)
