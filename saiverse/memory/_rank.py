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
from array import array
from collections import OrderedDict
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
DF_CAP = 500
"""Ids counted for a term's document frequency: a term in more messages than this is common anyway."""
K1, B = 1.2, 0.75
RRF_K = 60
CLOSE_SCORE = 0.75
"""A newer hit on the same terms scoring at least this share of an older one's is put before it."""
RESTATED_AFTER_DAYS = 1.0
"""Two mentions this far apart are two states of a fact, not one talk repeating a word."""


def term_ids(conn: Connection, persona_id: str, probe: str, cap: int, newest: int | None = None) -> list[int]:
    """Ids of the persona's messages whose text holds `probe` (per the gram index), newest first.
    `newest`: the persona's newest message id, when the caller read it (a kept lookup then costs nothing)."""
    if conn.dialect.name == "postgresql":
        return candidate_ids(conn, persona_id, [probe], 2**63 - 1, cap)
    key = (conn.engine.url.render_as_string(hide_password=True), persona_id, probe, cap)
    kept = _LOOKUPS.pop(key, None)
    if kept is not None and time.monotonic() - kept[0] > COUNT_SECONDS:
        kept = None  # read whole again now and then: an edited message may hold the term now
    if kept is None:
        found, at = _fts_ids(conn, persona_id, probe, cap, 0), time.monotonic()
    elif newest is not None and newest == kept[1]:
        found, at = kept[2].tolist(), kept[0]
    else:  # only what was added since: a rowid range over the index is a short walk
        found, at = (_fts_ids(conn, persona_id, probe, cap, kept[1]) + kept[2].tolist())[:cap], kept[0]
    _LOOKUPS[key] = (at, newest if newest is not None else max(found, default=0), array("q", found))
    if len(_LOOKUPS) > LOOKUPS_KEPT:
        _LOOKUPS.popitem(last=False)
    return found


_LOOKUPS: OrderedDict[tuple[str, str, str, int], tuple[float, int, array[int]]] = OrderedDict()
"""(database, persona, probe, cap) → (when read whole, the newest id then, the ids newest first)."""
LOOKUPS_KEPT = 2048
"""Term lookups kept (least recently used out; ≤ 2048 × `DF_CAP` ids, 8 MB): everyday words recur from one
question to the next (仕事 and its thesaurus words). A kept lookup is brought up to date by reading
only the ids above the newest it knew, and not read at all while the persona has no newer message;
every `COUNT_SECONDS` it is read whole again. A deleted message's id may stay in it meanwhile:
ranking reads the messages themselves, so it is never recalled."""


def forget_lookups() -> None:
    """Drop the kept term lookups and common terms (a benchmark times recall as on a fresh start)."""
    _LOOKUPS.clear()
    _COMMON.clear()


def _fts_ids(conn: Connection, persona_id: str, probe: str, cap: int, above: int) -> list[int]:
    from saiverse.memory._store import match_expression  # _store imports this module's callers
    # The driver's cursor, not SQLAlchemy's rows: up to `DF_CAP` ids a term, several terms a question.
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute("SELECT rowid FROM saimemory_fts WHERE saimemory_fts MATCH ? AND rowid > ? "
                       "ORDER BY rowid DESC LIMIT ?", (match_expression(persona_id, [probe]), above, cap))
        return [r[0] for r in cursor.fetchall()]
    finally:
        cursor.close()


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


def message_candidates(conn: Connection, persona_id: str, terms: Sequence[Term],
                       rescored: int = 240) -> tuple[set[int], dict[str, float]]:
    """Candidate message ids for the terms, and each term's IDF over the persona's messages.

    A common term (in `DF_CAP` messages or more: 覚え, "today") proposes no candidates when the question
    has a rarer one: its newest mentions are any talk, and a hit worth having holds a rarer term too.
    Its IDF is that of `DF_CAP`, so its lookup is skipped for `COUNT_SECONDS` once it was found common.
    At most `rescored` candidates are returned, the likeliest by the IDF of the terms they hold."""
    n_docs = message_count(conn, persona_id)
    db = conn.engine.url.render_as_string(hide_password=True)
    newest = None if conn.dialect.name == "postgresql" else conn.execute(
        text("SELECT max(ID) FROM saimemory WHERE PERSONA_ID = :p"), {"p": persona_id}).scalar()
    found: dict[str, list[int] | None] = {}
    for term in terms:
        if term.probe not in found:
            found[term.probe] = None if _known_common(db, persona_id, term.probe) else \
                term_ids(conn, persona_id, term.probe, DF_CAP, newest)
            if found[term.probe] is not None and len(found[term.probe] or ()) >= DF_CAP:
                _COMMON[(db, persona_id, term.probe)] = time.monotonic()
    def df(probe: str) -> int:
        ids = found[probe]
        return DF_CAP if ids is None else len(ids)
    weights = {t.key: idf(max(n_docs, df(t.probe)), df(t.probe)) for t in terms}
    rare = any(df(p) < DF_CAP for p in found)
    ids: set[int] = set()
    for probe, listed in found.items():
        if df(probe) >= DF_CAP and rare:
            continue
        ids.update((listed if listed is not None else term_ids(conn, persona_id, probe, PER_TERM, newest))[:PER_TERM])
    if len(ids) <= rescored:
        return ids, weights
    # Only the likeliest are read and ranked: by the IDF of the terms whose lookups hold them (BM25
    # without term counts and lengths, known from the lookups alone), newest first among equals.
    best = {t.probe: 0.0 for t in terms}
    for t in terms:
        best[t.probe] = max(best[t.probe], t.weight * weights[t.key])
    likely: dict[int, float] = dict.fromkeys(ids, 0.0)
    for probe, listed in found.items():
        for i in listed or ():
            if i in likely:
                likely[i] += best[probe]
    return set(sorted(likely, key=lambda i: (likely[i], i), reverse=True)[:rescored]), weights


_COMMON: dict[tuple[str, str, str], float] = {}
"""(database, persona, probe) → when the probe was last found in `DF_CAP` messages or more."""


def _known_common(db: str, persona_id: str, probe: str) -> bool:
    seen = _COMMON.get((db, persona_id, probe))
    if seen is not None and time.monotonic() - seen < COUNT_SECONDS:
        return True
    if len(_COMMON) > 20000:
        _COMMON.clear()  # a bound, not an eviction policy: the next queries find their common terms again
    return False


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


def distinct(items: Sequence[Any], content: Callable[[Any], str], stop: int | None = None) -> list[Any]:
    """The first of every run of items saying the same words (whitespace aside): a line said ten times
    ("Good night!") is one memory, and its copies would fill the budget. At most `stop` items."""
    seen: set[str] = set()
    out: list[Any] = []
    for item in items:
        if stop is not None and len(out) >= stop:
            break
        said = " ".join(normalise(content(item)).split())
        if said not in seen:
            seen.add(said)
            out.append(item)
    return out


def completes(content: str) -> bool:
    """Whether a line needs the next one to mean something: a question, or a bare word or two."""
    flat = content.strip()
    return flat.endswith(("?", "？")) or len(flat) < 16
