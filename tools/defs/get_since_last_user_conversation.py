"""get_since_last_user_conversation: what happened since the persona last talked with the user.

The messages after the last exchange with the user (the user's message and the persona's reply in
that pulse) are summarised by the persona's lightweight model; the summary is kept in SAIMemory
with a reference id (tags `summary`, `summary:<uuid>`, `summary_from:<time>`, `summary_to:<time>`)
so `detail_recall(summary_uuid)` can bring back the messages it covers.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool
from tools.text import clip, role_ja

WINDOW = 200
"""How many of the newest messages are looked through."""
SUMMARY_TAG = "summary"
SUMMARY_ID = "summary:"
SUMMARY_FROM = "summary_from:"
SUMMARY_TO = "summary_to:"


def from_user(m: dict[str, Any]) -> bool:
    """A message the user said (to the persona, or heard in its building); not another persona, not a note."""
    tags = m.get("tags") or []
    return (m.get("role") == "user" and "conversation" in tags
            and ("building_message" not in tags or "with:user" in tags)
            and not str(m.get("content", "")).lstrip().startswith("<system>"))


def since_last_user(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """(messages after the last exchange with the user, whether there was one), oldest first."""
    last = next((m for m in reversed(messages) if from_user(m)), None)
    if last is None:
        return messages, False
    pulse = last.get("pulse_id")
    boundary = max(m["id"] for m in messages if m["id"] == last["id"] or (pulse and m.get("pulse_id") == pulse))
    return [m for m in messages if m["id"] > boundary], True


@tool("get_since_last_user_conversation")
def get_since_last_user_conversation(
    ctx: ToolContext,
    include_raw_log: Annotated[bool, Field(description="Also list the latest messages themselves.")] = True,
    max_raw_messages: Annotated[int, Field(description="How many raw messages to list (1-100).", ge=1)] = 20,
) -> str:
    """Summarise what happened since you last talked with the user; the summary gets a reference id
    you can pass to detail_recall to read the original messages.
    """
    recent = [m for m in ctx.memory_recent(WINDOW) if SUMMARY_TAG not in (m.get("tags") or [])]
    if not recent:
        return "記憶に何もありません。"
    since, found = since_last_user(recent)
    if not since:
        return "ユーザーとの会話後、特に新しい出来事はありません。"
    note = (f"最後にユーザーと話してから {len(since)} 件のメッセージがあります。" if found
            else f"ユーザーとの会話が見つからないため、直近 {len(since)} 件を要約します。")
    spoken = [m for m in since if "wait" not in (m.get("tags") or [])]
    text = "\n".join(f"[{role_ja(str(m['role']))}] {m['content']}" for m in spoken)
    summary = " ".join(ctx.summarize(text).split()) if text.strip() else "待機していただけで、特に出来事はありません。"
    ref = uuid.uuid4().hex
    ctx.remember("system", f"[要約 {ref[:8]}] {summary}", [
        SUMMARY_TAG, "since_user_conversation", SUMMARY_ID + ref,
        SUMMARY_FROM + str(since[0]["created_at"]), SUMMARY_TO + str(since[-1]["created_at"])])
    out = [note, "", f"【要約】(参照ID: {ref[:8]})", summary]
    if include_raw_log:
        raw = since[-min(max_raw_messages, 100):]
        out += ["", f"【直近のログ】(最新 {len(raw)} 件)"]
        out += [f"- [{role_ja(str(m['role']))}] {clip(str(m['content']), 200)}" for m in raw]
    return "\n".join(out)
