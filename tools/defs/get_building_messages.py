"""get_building_messages: take in what was said in the persona's building since it last listened.

Lines of other personas (as `名前: 発言`), of the user, and events (`<system>[建物] …</system>`, HTML
removed) become `user`-role SAIMemory messages tagged `conversation` + `building_message` + who said
it (`with:user`, `with:<persona_id>`, or `event`, as upstream's `with` metadata); the
persona's own lines and lines it already has in memory (the user's words it answered) are skipped.
A per-building cursor remembers how far it has listened. The first time in a building it starts
after its own last line there, but never more than the last 20 lines back (like upstream, a
backlog is not poured into one turn).
"""

from __future__ import annotations

import html
import re
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool

MAX_LINES = 50
FIRST_VISIT_LINES = 20
_TAG = re.compile(r"<[^>]+>")


def _start(ctx: ToolContext, building_id: str) -> int:
    cursor = ctx.building_cursor(building_id)
    if cursor is not None:
        return cursor
    latest = ctx.building_lines(building_id, None, FIRST_VISIT_LINES)
    floor = latest[0]["id"] - 1 if latest else 0
    return max(ctx.last_own_line(building_id) or 0, floor)


def as_memory(line: dict[str, Any], building_name: str) -> tuple[str, str, str] | None:
    """(speaker label, memory text, `with:` tag) for a heard line; None for a line with nothing to say."""
    text = str(line.get("content") or "").strip()
    if line["speaker_kind"] == "user":
        return ("ユーザー", text, "with:user") if text else None
    if line["speaker_kind"] == "persona":
        name = str(line.get("speaker_name") or line.get("speaker_id") or "誰か")
        return (name, f"{name}: {text}", f"with:{line.get('speaker_id')}") if text else None
    plain = " ".join(html.unescape(_TAG.sub(" ", text)).split())
    return ("できごと", f"<system>[{building_name}] {plain}</system>", "event") if plain else None


@tool("get_building_messages")
def get_building_messages(
    ctx: ToolContext,
    building_id: Annotated[str, Field(description="Building id; default: where you are.")] = "",
) -> str:
    """Take in what others said in your building since you last listened; it becomes part of your memory."""
    bid = building_id.strip() or ctx.building_id
    building = ctx.building(bid)
    if bid != ctx.building_id:
        raise ToolError(f"いまは{building['name']}にいないので、そこでの会話は聞こえません。")
    lines = ctx.building_lines(bid, _start(ctx, bid), MAX_LINES)
    if not lines:
        return "新しいメッセージはありません。"
    known = {str(m.get("content", "")) for m in ctx.memory_recent(50, ["conversation"])}
    heard: dict[str, int] = {}
    for line in lines:
        if line.get("speaker_id") == ctx.persona_id:
            continue
        taken = as_memory(line, building["name"])
        if taken is None or taken[1] in known:
            continue
        who, text, source = taken
        ctx.remember("user", text, ["conversation", "building_message", source])
        known.add(text)
        heard[who] = heard.get(who, 0) + 1
    ctx.set_building_cursor(bid, lines[-1]["id"])
    more = "まだ続きがあります (もう一度呼ぶと続きを聞きます)。" if len(lines) == MAX_LINES else ""
    if not heard:
        return "新しいメッセージはありません。" + more
    details = "、".join(f"{who}: {n}件" for who, n in heard.items())
    return f"{sum(heard.values())}件の新しいメッセージを聞きました ({details})。{more}"
