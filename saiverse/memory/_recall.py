"""Recall across a persona's three memories: SAIMemory messages, Chronicle entries, Memopedia pages.

Each kind is found with its own search — messages through SAIMemory's gram index
(`SAIMemory.search`, unchanged), entries and pages by a scan of the persona's rows — and then every
hit is scored the same way: BM25-style saturated term frequency with length normalisation, times
a recency factor whose half-life depends on the kind (a chat line fades in a month, a summary in a
season, a wiki page the persona keeps in a year), times a small weight for the curated kinds. The
lists are merged on that score. Every hit says its `kind`: `message`, `chronicle` or `memopedia`.

An entry's leading dates (`2026年1月3日〜1月4日、`) say when, not what: they are matched like any text
but do not count in its length, so a summary of a talk that ran past midnight (two dates, seven
characters more) ranks as the same summary within one day would (tests/test_chronicle_midnight.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._chronicle_summary import date_header
from saiverse.memory._common import iso, parse_time, utc_now
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._store import SAIMemory, query_terms

HALF_LIFE_DAYS = {"message": 30.0, "chronicle": 90.0, "memopedia": 365.0}
KIND_WEIGHT = {"message": 1.0, "chronicle": 1.1, "memopedia": 1.3}
"""Summaries and pages say more per word than a chat line; they win a tie."""
TITLE_BOOST = 1.5
K1, B, AVG_LEN = 1.2, 0.75, 200.0


def relevance(body: str, terms: Sequence[str], length: int | None = None) -> float:
    """Saturated term frequency with length normalisation (by `length`, else the body's); longer
    terms weigh more."""
    body = body.lower()
    norm = K1 * (1 - B + B * max(len(body) if length is None else length, 1) / AVG_LEN)
    score = 0.0
    for term in terms:
        tf = body.count(term)
        score += (1 + math.log(len(term))) * tf * (K1 + 1) / (tf + norm)
    return score


def _score(kind: str, body: str, terms: Sequence[str], when: datetime | None, now: datetime,
           boost: float = 1.0, length: int | None = None) -> float:
    age = max((now - when).total_seconds() / 86400, 0.0) if when else 365.0
    recency = 0.5 ** (age / HALF_LIFE_DAYS[kind])
    return round(relevance(body, terms, length) * boost * KIND_WEIGHT[kind] * (0.5 + 0.5 * recency), 6)


def recall(
    memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str, query: str, *,
    limit: int = 20, exclude_pulse: str | None = None, now: datetime | None = None,
) -> list[dict[str, Any]]:
    """The best `limit` hits of every kind for `query` (all of its terms must match), best first."""
    terms = query_terms(query or "")
    if not terms or limit <= 0:
        return []
    now = now or utc_now()
    hits: list[dict[str, Any]] = []
    for rec in memory.search(persona_id, query, limit=limit * 2 + 10):
        if exclude_pulse and rec.get("pulse_id") == exclude_pulse:
            continue  # the current pulse's messages are already in its context
        hit: dict[str, Any] = {"kind": "message", **rec}
        hit["score"] = _score("message", rec["content"], terms, parse_time(rec["created_at"]), now)
        hits.append(hit)
    for e in chronicle.search(persona_id, query, limit=limit * 2):
        hits.append({
            "kind": "chronicle", "id": e.entry_id, "level": e.level, "content": e.content,
            "start_time": iso(e.start), "end_time": iso(e.end), "message_count": e.message_count,
            "created_at": iso(e.end or e.start),
            "score": _score("chronicle", e.content, terms, e.end or e.start, now,
                            length=len(e.content) - len(date_header(e.content))),
        })
    for p in memopedia.search(persona_id, query, limit=limit * 2):
        body = " ".join([p.title, " ".join(p.keywords), p.summary, p.content])
        boost = TITLE_BOOST if any(t in p.title.lower() for t in terms) else 1.0
        when = parse_time(p.last_referenced_at) or parse_time(p.updated_at)
        if when and parse_time(p.updated_at):
            when = max(when, parse_time(p.updated_at) or when)
        hits.append({
            "kind": "memopedia", "id": p.page_id, "title": p.title, "category": p.category,
            "content": p.summary or p.content, "created_at": p.updated_at,
            "score": _score("memopedia", body, terms, when, now, boost),
        })
    hits.sort(key=lambda h: (h["score"], h.get("created_at") or ""), reverse=True)
    return hits[:limit]
