"""memory_recall: search the persona's whole memory — messages, Chronicle, Memopedia — with upstream's arguments.

`query` may be a whole sentence: saiverse/memory/_recall.py ranks every memory holding any of its
terms by BM25 (stemmed English without stop words, Japanese grams, a few synonyms). Each of
`keywords` is searched on its own. The lists are merged by reciprocal rank (a hit found by several
ranks higher), then filtered by date. Each hit says its date and kind; a fact that changed shows its
newest value first and the older marked 「(以前)」; a question brings the reply that followed it.
`memory_search_brief` shares this search over messages only (it hands out message ids).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool
from tools.text import clip, date_arg, in_dates, one_line, role_ja, stamp

MAX_TOPK = 20
RRF_K = 60
PER_LINE = 240
"""Characters a hit keeps however many there are: a fact cut in half is not recalled."""
FULL_LINES = 5
SHORT_LINE = 100
TIMED_DAYS = 2

Query = Annotated[str | None, Field(description="What to recall, in words or a sentence (Japanese works).")]
Keywords = Annotated[list[str] | None, Field(description="Words a message must contain; each is searched on its own.")]
StartDate = Annotated[str, Field(description="Only messages from this date on (YYYY-MM-DD); empty: no limit.")]
EndDate = Annotated[str, Field(description="Only messages up to this date (YYYY-MM-DD); empty: no limit.")]


def _key(hit: dict[str, Any]) -> tuple[str, str]:
    return str(hit.get("kind", "message")), str(hit["id"])


def recall(ctx: ToolContext, query: str, keywords: Iterable[str], topk: int,
           start: date | None = None, end: date | None = None, *, messages_only: bool = False,
           ) -> list[dict[str, Any]]:
    """The persona's `topk` best memories for a query and/or keywords, within [start, end]."""
    want = topk * (6 if start or end else 2) * (2 if messages_only else 1)
    lists = [ctx.recall(q, want) for q in [query] * bool(query) + list(keywords)]
    if messages_only:  # ids to read around are message ids
        lists = [[h for h in hits if h.get("kind", "message") == "message"] for hits in lists]
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
    return pack(f"{what(query, words)}に関する記憶 ({len(hits)}件):", hits, max_chars)


def pack(title: str, hits: list[dict[str, Any]], max_chars: int) -> str:
    """The hits as dated lines within `max_chars`. The best `FULL_LINES` keep up to `PER_LINE` characters;
    the rest share what is left (at least `SHORT_LINE` each), so more distinct memories fit the budget;
    a long line keeps its opening and the part holding the query's words (`snippet`)."""
    lines = [title]
    used = len(title)
    brought: set[str] = set()
    now = datetime.now(UTC)
    for n, h in enumerate(hits):
        if one_line(str(h.get("content", ""))) in brought:
            continue  # already shown whole as the turn completing an earlier hit
        per_line = max(PER_LINE, max_chars // len(hits)) if n < FULL_LINES else \
            max(SHORT_LINE, min(PER_LINE, (max_chars - used) // max(len(hits) - n, 1)))
        line = f"- [{when(h, now)}] ({label(h)}){' (以前)' * bool(h.get('older'))} " \
               f"{snippet(str(h.get('content', '')), h.get('terms') or (), per_line)}"
        if h.get("next"):  # the turn that completes it (saiverse/memory/_follow.py)
            line += f" → {clip(str(h['next']), per_line // 2)}"
            if len(one_line(str(h["next"]))) <= per_line // 2:
                brought.add(one_line(str(h["next"])))
        room = max_chars - used - 1
        if len(line) > room and len(lines) > 1:
            if room >= SHORT_LINE:  # the opening of one more memory, rather than none
                lines.append(clip(line, room))
                n += 1
            if n < len(hits):
                lines.append(f"(ほか {len(hits) - n} 件は長さの上限で省きました)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def when(hit: dict[str, Any], now: datetime) -> str:
    """A hit's date, with the time of day only within `TIMED_DAYS` of now: "this morning" needs the hour,
    last spring does not, and the minutes of twenty dated lines are a tenth of the budget."""
    created = str(hit.get("created_at") or "")
    try:
        recent = abs((now - datetime.fromisoformat(created)).total_seconds()) < TIMED_DAYS * 86400
    except (TypeError, ValueError):
        recent = True
    return stamp(created) if recent else stamp(created, "%Y-%m-%d")


def snippet(content: str, terms: Iterable[str], limit: int) -> str:
    """`content` on one line within `limit`: whole when it fits, else its opening and, when the first of
    `terms` it holds lies past the opening, the words around it."""
    flat = " ".join(content.split())
    if len(flat) <= limit:
        return flat
    head = limit // 2
    low = flat.lower()
    at = min((i for i in (low.find(str(t).lower()) for t in terms) if i >= 0), default=-1)
    if at < head - 10:
        return clip(flat, limit)
    start = max(at - (limit - head) // 3, head)
    return flat[:head - 1] + "…" + clip(flat[start:], limit - head)
