"""memory_recall: search the persona's whole memory — messages, Chronicle, Memopedia (relevance and recency).

A query that matches nothing as written (a whole sentence, typically) is broken into its content
words — runs of kanji, katakana and latin letters, minus very common ones — and messages are
ranked by how many of those words they contain, then by the store's own score.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool

_SNIPPET = 160
_WORDS = re.compile(r"[\u4e00-\u9fff々]+|[\u30a0-\u30ffー]{2,}|[A-Za-z0-9]{2,}")
_STOP = {"前", "話", "思", "出", "今", "日", "何", "事", "時", "見", "言", "行", "来", "記憶", "検索", "教"}


def content_words(text: str) -> list[str]:
    """Words worth searching for in a sentence, in order, without duplicates."""
    seen: dict[str, None] = {}
    for w in _WORDS.findall(text):
        if w not in _STOP:
            seen.setdefault(w, None)
    return list(seen)[:6]


def _search(ctx: ToolContext, query: str, limit: int) -> list[dict[str, Any]]:
    hits = ctx.recall(query, limit)
    if hits:
        return hits
    words = content_words(query)
    if len(words) <= 1 and (not words or words[0] == query):
        return []
    found: dict[tuple[str, Any], tuple[int, float, dict[str, Any]]] = {}
    for w in words:
        for h in ctx.recall(w, limit * 3):
            key = (h.get("kind", "message"), h["id"])
            count, score, _ = found.get(key, (0, 0.0, h))
            found[key] = (count + 1, max(score, float(h.get("score", 0.0))), h)
    ranked = sorted(found.values(), key=lambda t: (t[0], t[1]), reverse=True)
    return [h for _, _, h in ranked[:limit]]


@tool("memory_recall")
def memory_recall(
    ctx: ToolContext,
    query: Annotated[str, Field(description="Words to look for (space-separated terms must all match).")],
    limit: Annotated[int, Field(description="How many memories to return (1-20).")] = 5,
) -> str:
    """Search your own long-term memory for a topic: past messages, Chronicle summaries and Memopedia pages.
    Japanese works.

    Returns the best matching memories as dated lines marked with their kind, or a clear 'nothing found'.
    """
    query = query.strip()
    if not query:
        return "検索語が空です。"
    limit = max(1, min(int(limit), 20))
    hits = _search(ctx, query, limit)
    if not hits:
        return f"「{query}」に関する記憶は見つかりませんでした。"
    lines = [f"「{query}」に関する記憶 ({len(hits)}件):"]
    for h in hits:
        text = " ".join(str(h.get("content", "")).split())
        if len(text) > _SNIPPET:
            text = text[: _SNIPPET - 1] + "…"
        kind = h.get("kind", "message")
        labels = {"chronicle": f"あらすじ Lv.{h.get('level', 1)}", "memopedia": f"Memopedia「{h.get('title', '')}」"}
        label = labels.get(kind, f"会話 {h.get('role', '')}")
        lines.append(f"- [{str(h.get('created_at') or '')[:16].replace('T', ' ')}] ({label}) {text}")
    return "\n".join(lines)
