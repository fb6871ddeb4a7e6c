"""BM25 over SAIMemory messages, reciprocal-rank fusion, and what a hit brings along (its date window,
the newer value of a fact that changed, the turn that completes it).

Candidates come from the gram index both databases already keep (saiverse/memory/_store.py: FTS5 on
SQLite, pg_trgm and a gram GIN index on PostgreSQL, saiverse/memory/_recall_pg.py): one newest-first
lookup per term's `probe`, so adding a message costs what it did. The same lookup, capped at `DF_CAP`
ids, is the term's document frequency; the newest `PER_TERM` of them are ranked. Ranking is computed
here, the same on both databases: Okapi BM25 (k1 1.2, b 0.75) with the terms and frequencies of
saiverse/memory/_lexical.py, the IDF from the persona's message count. FTS5's own `bm25()` is not
used: the index is contentless with `detail=none` and `columnsize=0` (database/steps.py, step 3), so
it knows neither term frequencies nor lengths, and PostgreSQL has no BM25; counting in Python over
the few hundred candidates gives both databases one ranking.

`fuse` merges ranked lists by reciprocal rank (Cormack et al.'s k = 60), each at its weight: the lexical
list, the hits inside a date the question names (「先月」, "last week"), and — when a caller passes one —
the dense list: a `DenseScorer` over the hits' texts, or the stored message vectors of an embedding
model (saiverse/memory/_dense.py, at the model's weight).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, text

from saiverse.memory._common import parse_time
from saiverse.memory._lexical import Term, latin_stems, length, normalise, term_frequency
from saiverse.memory._recall_pg import candidate_ids

DenseScorer = Callable[[str, Sequence[str]], Sequence[float]]
"""(query, texts) → one similarity per text, higher is closer (an embedding model's cosine)."""
PER_TERM = 200
"""Newest candidates ranked per term."""
DF_CAP = 1000
"""Ids counted for a term's document frequency: a term in more messages than this is common anyway."""
K1, B = 1.2, 0.75
RRF_K = 60
CLOSE_SCORE = 0.75
"""A newer hit on the same terms scoring at least this share of an older one's is put before it."""
RESTATED_AFTER_DAYS = 1.0
"""Two mentions this far apart are two states of a fact, not one talk repeating a word."""


def term_ids(conn: Connection, persona_id: str, probe: str, cap: int) -> list[int]:
    """Ids of the persona's messages whose text holds `probe` (per the gram index), newest first."""
    if conn.dialect.name == "postgresql":
        return candidate_ids(conn, persona_id, [probe], 2**63 - 1, cap)
    from saiverse.memory._store import match_expression  # _store imports this module's callers
    return [r[0] for r in conn.execute(text(
        "SELECT rowid FROM saimemory_fts WHERE saimemory_fts MATCH :m ORDER BY rowid DESC LIMIT :n"),
        {"m": match_expression(persona_id, [probe]), "n": cap})]


def idf(n_docs: int, df: int) -> float:
    """BM25's IDF, never negative (a term in most messages weighs little, not less than nothing)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def bm25(body_lower: str, terms: Sequence[Term], weights: dict[str, float], avg_len: float,
         body_length: int | None = None) -> tuple[float, tuple[str, ...]]:
    """A text's BM25 for the terms (`weights`: IDF per key) and the keys of full-weight terms it holds."""
    stems = latin_stems(body_lower)
    dl = length(body_lower) if body_length is None else body_length
    norm = K1 * (1 - B + B * max(dl, 1) / max(avg_len, 1.0))
    score, held = 0.0, set()
    for term in terms:
        tf = term_frequency(body_lower, stems, term)
        if tf:
            score += term.weight * weights.get(term.key, 0.0) * tf * (K1 + 1) / (tf + norm)
            if term.weight >= 1.0:
                held.add(term.key)
    return score, tuple(sorted(held))  # a tuple: hits go out as JSON (python main.py memory --search --json)


def message_candidates(conn: Connection, persona_id: str, terms: Sequence[Term]) -> tuple[set[int], dict[str, float]]:
    """Candidate message ids for the terms, and each term's IDF over the persona's messages."""
    n_docs = message_count(conn, persona_id)
    ids: set[int] = set()
    weights: dict[str, float] = {}
    for term in terms:
        found = term_ids(conn, persona_id, term.probe, DF_CAP)
        weights[term.key] = idf(max(n_docs, len(found)), len(found))
        ids.update(found[:PER_TERM])
    return ids, weights


_COUNTS: dict[tuple[str, str], tuple[float, int]] = {}
COUNT_SECONDS = 60.0
"""How long a persona's message count is reused: counting 1M index entries takes milliseconds every
query, and IDF barely moves with a few new messages."""


def message_count(conn: Connection, persona_id: str) -> int:
    """The persona's message count, read at most every `COUNT_SECONDS` per database."""
    key = (conn.engine.url.render_as_string(hide_password=True), persona_id)
    kept = _COUNTS.get(key)
    if kept is not None and time.monotonic() - kept[0] < COUNT_SECONDS:
        return kept[1]
    n = int(conn.execute(text("SELECT count(*) FROM saimemory WHERE PERSONA_ID = :p"), {"p": persona_id}).scalar_one())
    _COUNTS[key] = (time.monotonic(), n)
    return n


def fuse(lists: Iterable[Sequence[Any]], key: Callable[[Any], Any],
         weights: Sequence[float] | None = None) -> list[Any]:
    """Reciprocal-rank fusion: items ranked by the sum of weight/(k + rank) over the lists they are in
    (every list's weight 1 unless `weights` says otherwise)."""
    scores: dict[Any, float] = {}
    items: dict[Any, Any] = {}
    first: dict[Any, int] = {}
    for n, ranked in enumerate(lists):
        weight = weights[n] if weights is not None and n < len(weights) else 1.0
        for rank, item in enumerate(ranked, start=1):
            k = key(item)
            scores[k] = scores.get(k, 0.0) + weight / (RRF_K + rank)
            items.setdefault(k, item)
            first.setdefault(k, len(first))
    return [items[k] for k in sorted(scores, key=lambda k: (-scores[k], first[k]))]


_WINDOWS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), w) for p, w in (
    (r"昨日|yesterday", "day-1"), (r"今日|today", "day0"), (r"先週|last week", "week-1"), (r"今週|this week", "week0"),
    (r"先月|last month", "month-1"), (r"今月|this month", "month0"), (r"去年|昨年|last year", "year-1"),
    (r"今年|this year", "year0")))


def date_window(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The span a relative date in the question names (「先月」, "last week"), in `now`'s terms."""
    q = normalise(query)
    for pattern, which in _WINDOWS:
        if not pattern.search(q):
            continue
        unit, back = which[:-2] if which.endswith("-1") else which[:-1], 1 if which.endswith("-1") else 0
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if unit == "day":
            start = day - timedelta(days=back)
            return start, start + timedelta(days=1)
        if unit == "week":
            start = day - timedelta(days=day.weekday() + 7 * back)
            return start, start + timedelta(days=7)
        if unit == "month":
            start = day.replace(day=1)
            for _ in range(back):
                start = (start - timedelta(days=1)).replace(day=1)
            return start, (start + timedelta(days=32)).replace(day=1)
        start = day.replace(month=1, day=1, year=day.year - back)
        return start, start.replace(year=start.year + 1)
    return None


def _days_apart(a: dict[str, Any], b: dict[str, Any]) -> float:
    """How many days later `b` is than `a` (negative when earlier; 0 when either has no time)."""
    when_a, when_b = parse_time(a.get("created_at")), parse_time(b.get("created_at"))
    return (when_b - when_a).total_seconds() / 86400 if when_a and when_b else 0.0


def newest_first(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where two hits of one kind and speaker hold the same terms, said at least `RESTATED_AFTER_DAYS`
    apart, the older is marked `older` and, when the newer scores close, the newer goes first — a
    fact that changed is answered with its latest value. A reply repeating a word within the same
    talk is not a change."""
    out = list(hits)
    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            a, b = out[i], out[j]
            if not a.get("terms") or a.get("terms") != b.get("terms") or a.get("kind") != b.get("kind") \
                    or a.get("role") != b.get("role"):
                continue
            later = _days_apart(a, b)
            if later >= RESTATED_AFTER_DAYS:
                a["older"] = True
                if b["score"] >= CLOSE_SCORE * a["score"]:
                    out[i], out[j] = b, a
            elif later <= -RESTATED_AFTER_DAYS:
                b["older"] = True
    return out


def completes(content: str) -> bool:
    """Whether a line needs the next one to mean something: a question, or a bare word or two."""
    flat = content.strip()
    return flat.endswith(("?", "？")) or len(flat) < 16
