"""memory_recall: search the persona's whole memory — messages, Chronicle, Memopedia — with upstream's arguments.

`query` is searched as written; if that matches nothing (a whole sentence, typically) it is broken
into its content words — runs of kanji, katakana and latin letters, minus very common ones — and
hits are ranked by how many of those words they contain. Each of `keywords` is searched on its
own. The lists are merged by reciprocal rank (a hit found by several ranks higher), then filtered
by date. Each hit says its kind (a message, a Chronicle summary, a Memopedia page).
`memory_search_brief` shares this search over messages only (it hands out message ids).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool
from tools.text import clip, date_arg, in_dates, role_ja, stamp

MAX_TOPK = 20
RRF_K = 60
_WORDS = re.compile(r"[\u4e00-\u9fff々]+|[\u30a0-\u30ffー]{2,}|[A-Za-z0-9]{2,}")
_STOP = {"前", "話", "思", "出", "今", "日", "何", "事", "時", "見", "言", "行", "来", "記憶", "検索", "教"}

Query = Annotated[str | None, Field(description="What to recall, in words or a sentence (Japanese works).")]
Keywords = Annotated[list[str] | None, Field(description="Words a message must contain; each is searched on its own.")]
StartDate = Annotated[str, Field(description="Only messages from this date on (YYYY-MM-DD); empty: no limit.")]
EndDate = Annotated[str, Field(description="Only messages up to this date (YYYY-MM-DD); empty: no limit.")]


def content_words(text: str) -> list[str]:
    """Words worth searching for in a sentence, in order, without duplicates."""
    seen: dict[str, None] = {}
    for w in _WORDS.findall(text):
        if w not in _STOP:
            seen.setdefault(w, None)
    return list(seen)[:6]


Search = Callable[[str, int], list[dict[str, Any]]]
"""(query, limit) → hits, best first: `ctx.recall` (every kind) or `ctx.memory_search` (messages)."""


def _key(hit: dict[str, Any]) -> tuple[str, str]:
    return str(hit.get("kind", "message")), str(hit["id"])


def _search(search: Search, query: str, limit: int) -> list[dict[str, Any]]:
    hits = search(query, limit)
    if hits:
        return hits
    words = content_words(query)
    if len(words) <= 1 and (not words or words[0] == query):
        return []
    found: dict[tuple[str, str], tuple[int, float, dict[str, Any]]] = {}
    for w in words:
        for h in search(w, limit * 3):
            count, score, _ = found.get(_key(h), (0, 0.0, h))
            found[_key(h)] = (count + 1, max(score, float(h.get("score", 0.0))), h)
    ranked = sorted(found.values(), key=lambda t: (t[0], t[1]), reverse=True)
    return [h for _, _, h in ranked[:limit]]


def recall(ctx: ToolContext, query: str, keywords: Iterable[str], topk: int,
           start: date | None = None, end: date | None = None, *, messages_only: bool = False,
           ) -> list[dict[str, Any]]:
    """The persona's `topk` best memories for a query and/or keywords, within [start, end]."""
    search: Search = ctx.memory_search if messages_only else ctx.recall
    want = topk * (6 if start or end else 2)
    lists = [_search(search, query, want)] if query else []
    lists += [search(k, want) for k in keywords]
    scores: dict[tuple[str, str], float] = {}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for hits in lists:
        kept = [h for h in hits if in_dates(str(h.get("created_at") or ""), start, end)]
        for rank, h in enumerate(kept, start=1):
            scores[_key(h)] = scores.get(_key(h), 0.0) + 1.0 / (RRF_K + rank)
            found[_key(h)] = h
    ranked = sorted(scores, key=lambda k: (scores[k], k), reverse=True)[:topk]
    return [found[k] for k in ranked]


def label(hit: dict[str, Any]) -> str:
    """What kind of memory a hit is, in the persona's words."""
    kind = hit.get("kind", "message")
    if kind == "chronicle":
        return f"あらすじ Lv.{hit.get('level', 1)}"
    if kind == "memopedia":
        return f"Memopedia「{hit.get('title', '')}」"
    return role_ja(str(hit.get("role", "")))


def clean_keywords(keywords: list[str] | None) -> list[str]:
    """Non-empty keywords, stripped, without duplicates."""
    return list(dict.fromkeys(k.strip() for k in keywords or [] if k and k.strip()))


def what(query: str, keywords: list[str]) -> str:
    """How a search is named to the persona: 「猫」 or 「猫・名前」."""
    return "「" + "・".join([query] * bool(query) + keywords) + "」"


@tool("memory_recall", aliases={"limit": "topk"})
def memory_recall(
    ctx: ToolContext,
    query: Query = None,
    keywords: Keywords = None,
    max_chars: Annotated[int, Field(description="Longest answer, in characters.", ge=100)] = 1200,
    topk: Annotated[int, Field(description="How many memories to return (1-20).", ge=1)] = 4,
    start_date: StartDate = "",
    end_date: EndDate = "",
) -> str:
    """Recall from your own long-term memory: past messages, Chronicle summaries and Memopedia pages.
    Use 'query' for what to recall and 'keywords' for exact words; filter by date with start_date / end_date.

    Returns the best matching memories as dated lines marked with their kind, or a clear 'nothing found'.
    """
    query = (query or "").strip()
    words = clean_keywords(keywords)
    start, end = date_arg("memory_recall", "start_date", start_date), date_arg("memory_recall", "end_date", end_date)
    if not query and not words:
        return "検索語が空です (query か keywords を指定してください)。"
    hits = recall(ctx, query, words, min(topk, MAX_TOPK), start, end)
    if not hits:
        return f"{what(query, words)}に関する記憶は見つかりませんでした。"
    lines = [f"{what(query, words)}に関する記憶 ({len(hits)}件):"]
    per_line = max(80, max_chars // len(hits))
    used = len(lines[0])
    for h in hits:
        line = f"- [{stamp(str(h.get('created_at') or ''))}] ({label(h)}) " \
               f"{clip(str(h.get('content', '')), per_line)}"
        if used + len(line) > max_chars and len(lines) > 1:
            lines.append(f"(ほか {len(hits) - len(lines) + 1} 件は長さの上限で省きました)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
