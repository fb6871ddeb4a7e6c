"""memory_search_brief: short snippets of matching memories with their ids, to pick one to read around."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.defs.memory_recall import MAX_TOPK, EndDate, Keywords, Query, StartDate, clean_keywords, recall, what
from tools.registry import tool
from tools.text import date_arg, one_line, role_ja, stamp


def snippet(content: str, keywords: list[str], limit: int) -> str:
    """`limit` characters of `content` centred on the first keyword it contains (else its start)."""
    text = one_line(content)
    lowered = text.lower()
    positions = [p for p in (lowered.find(k.lower()) for k in keywords) if p >= 0]
    if len(text) <= limit:
        return text
    start = max(0, min(positions) - limit // 2) if positions else 0
    start = min(start, len(text) - limit)
    return ("…" if start else "") + text[start:start + limit] + ("…" if start + limit < len(text) else "")


@tool("memory_search_brief")
def memory_search_brief(
    ctx: ToolContext,
    query: Query = None,
    keywords: Keywords = None,
    topk: Annotated[int, Field(description="How many results (1-20).", ge=1)] = 10,
    max_snippet_chars: Annotated[int, Field(description="Characters per snippet.", ge=20)] = 100,
    start_date: StartDate = "",
    end_date: EndDate = "",
) -> str:
    """Search your memory and get brief snippets with message ids; read one in context with
    memory_read_around(message_id).
    """
    query = (query or "").strip()
    words = clean_keywords(keywords)
    start = date_arg("memory_search_brief", "start_date", start_date)
    end = date_arg("memory_search_brief", "end_date", end_date)
    if not query and not words:
        return "検索語が空です (query か keywords を指定してください)。"
    hits = recall(ctx, query, words, min(topk, MAX_TOPK), start, end, messages_only=True)
    if not hits:
        return f"{what(query, words)}に関する記憶は見つかりませんでした。"
    terms = words or [query]
    lines = [f"{what(query, words)}の検索結果 ({len(hits)}件、括弧内は message_id):"]
    for i, h in enumerate(hits, start=1):
        lines.append(f"[{i}] ({h['id']}) {stamp(str(h.get('created_at', '')))} {role_ja(str(h.get('role', '')))}: "
                     f"{snippet(str(h.get('content', '')), terms, max_snippet_chars)}")
    return "\n".join(lines)
