"""Chronicle tools, with upstream SAIVerse's names and argument shapes: search the persona's rolling
summaries of older conversation, and read one with the messages (or summaries) it was made from."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool
from tools.text import stamp

SNIPPET = 200
MESSAGE_CHARS = 300


def _span(entry: dict[str, Any]) -> str:
    def short(value: str | None) -> str:
        return stamp(value) if value else "?"  # local time, as every time a persona reads

    return f"{short(entry.get('start_time'))} ~ {short(entry.get('end_time'))}"


def _clip(text: str, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit] + "…"


@tool("chronicle_search")
def chronicle_search(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Keyword to search in Chronicle content.")] = None,
    start_date: Annotated[str | None, Field(description="Entries from this date (YYYY-MM-DD).")] = None,
    end_date: Annotated[str | None, Field(description="Entries until this date (YYYY-MM-DD).")] = None,
    level: Annotated[int | None, Field(description="Only this level (1 = from messages, 2+ = summaries of "
                                                   "summaries); 0 = any.")] = None,
    max_results: Annotated[int, Field(description="Maximum results to return. Default: 10.")] = 10,
) -> str:
    """Search your Chronicle (summaries of older conversation) by keyword, date range and/or level.

    Returns entry ids with their period and a snippet; read one with chronicle_read_detail.
    """
    level = level or None
    if not (query or "").strip() and not start_date and not end_date and level is None:
        raise ToolError("chronicle_search には query, start_date, end_date, level のどれかが必要です。")
    found = ctx.chronicle_search(query, start_date or None, end_date or None, level, max(1, min(int(max_results), 50)))
    if not found:
        criteria = [c for c in (f"keyword='{query}'" if query else "", f"from={start_date}" if start_date else "",
                                f"to={end_date}" if end_date else "", f"level={level}" if level else "") if c]
        return f"(Chronicle検索結果なし: {', '.join(criteria)})"
    lines = [f"Chronicle検索結果 ({len(found)}件)"] + ([f"Keyword: {query}"] if query else []) + [""]
    for i, e in enumerate(found, 1):
        lines.append(f"[{i}] ({e['entry_id']}) Lv.{e['level']} | {_span(e)} | {e['message_count']}msg")
        lines.append(f"    {_clip(e['content'], SNIPPET)}")
        lines.append("")
    return "\n".join(lines).rstrip()


@tool("chronicle_read_detail")
def chronicle_read_detail(
    ctx: ToolContext,
    entry_id: Annotated[str, Field(description="The Chronicle entry id to read.")],
    include_sources: Annotated[bool, Field(description="Include its source messages (level 1) or the entries it "
                                                       "summarises (level 2+). Default: true.")] = True,
    max_source_messages: Annotated[int, Field(description="Max source messages of a level-1 entry. "
                                                          "Default: 20.")] = 20,
) -> str:
    """Read one Chronicle entry in detail, with the messages it summarises (level 1) or its child entries (2+)."""
    e = ctx.chronicle_detail(entry_id, include_sources, max(1, min(int(max_source_messages), 200)))
    parts = [f"【Chronicle Entry】{e['entry_id']}",
             f"Level: {e['level']} | {_span(e)} | {e['message_count']}件のメッセージ",
             f"Consolidated: {'Yes' if e['is_consolidated'] else 'No'}", "", e["content"]]
    if include_sources and e["source_ids"]:
        parts.append("")
        if e["level"] == 1:
            parts.append(f"--- 元のメッセージ ({len(e['source_ids'])}件, 最大{max_source_messages}件表示) ---")
            for m in e["sources"]:
                when = stamp(m["created_at"], "%Y-%m-%d %H:%M:%S") if m.get("created_at") else ""
                parts.append(f"[{when}] [{m['role']}]: {_clip(m['content'], MESSAGE_CHARS)}")
            if not e["sources"]:
                parts.append("(元のメッセージはこの記憶にありません)")
        else:
            parts.append(f"--- 子エントリ ({len(e['source_ids'])}件) ---")
            for c in e["sources"]:
                parts.append(f"[{c['entry_id']}] Lv.{c['level']} | {_span(c)} | {c['message_count']}msg")
                parts.append(f"  {_clip(c['content'], SNIPPET)}")
    return "\n".join(parts)
