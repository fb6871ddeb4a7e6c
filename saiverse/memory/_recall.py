"""Recall across a persona's three memories: SAIMemory messages, Chronicle entries, Memopedia pages.

One retrieval for `memory_recall`, `memory_search_brief`, `memory_research` (a playbook over
memory_recall), `python main.py memory --search` and the Chronicle/Memopedia hits (issue 33). A query
becomes weighted terms (saiverse/memory/_lexical.py: stemmed English words minus stop words, Japanese
grams, an everyday thesaurus's words at half weight); any term may match (OR), and every hit is scored
by BM25 with IDF over the persona's messages (saiverse/memory/_rank.py), times a recency factor whose
half-life depends on the kind (a chat line fades in a month, a summary in a season, a wiki page the
persona keeps in a year), times a small weight for the curated kinds. Messages are found through the
gram index; entries and pages by one scan of the persona's rows for any term (`search_any`). The lists
are merged on that score, then fused by reciprocal rank with the hits inside a date the query names and,
when a caller gives one, a dense list (the stored vectors of SAIVERSE_EMBEDDING_MODEL:
saiverse/memory/_dense.py, which also proposes messages no term matched). Hits on the same terms are put
newest first, the older marked `older`; a question asking when or about now weighs time
(saiverse/memory/_timely.py); a line said again is one hit; the best message hits bring the turn that
completes them (`next`, saiverse/memory/_follow.py). Every hit says its `kind`.

An entry's leading dates (`2026年1月3日〜1月4日、`) say when, not what: they are matched like any text
but do not count in its length, so a summary of a talk that ran past midnight (two dates, seven
characters more) ranks as the same summary within one day would (tests/test_chronicle_midnight.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, text

from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._chronicle_summary import date_header
from saiverse.memory._common import iso, parse_time, utc_now
from saiverse.memory._feedback import feedback_terms
from saiverse.memory._follow import follow
from saiverse.memory._lexical import Term, addressed, length, normalise, query_terms
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._rank import (
    DenseScorer,
    bm25,
    date_window,
    distinct,
    fuse,
    message_candidates,
    newest_first,
)
from saiverse.memory._store import SAIMemory
from saiverse.memory._store import _record as record  # one row shape for search and recall
from saiverse.memory._timely import named_window, time_bias

if TYPE_CHECKING:  # numpy is imported only where vectors are used
    from saiverse.memory._dense import DenseQuery, DenseRecall

HALF_LIFE_DAYS = {"message": 30.0, "chronicle": 90.0, "memopedia": 365.0}
KIND_WEIGHT = {"message": 1.0, "chronicle": 1.1, "memopedia": 1.3}
"""Summaries and pages say more per word than a chat line; they win a tie."""
TITLE_BOOST = 1.5
RESCORED = 100
"""Message candidates ranked by BM25 at least (six per hit asked for, when more): saiverse/memory/_rank.py."""
AVG_LEN = 200.0
"""The length (in terms) an entry or page is normalised against: they are longer than chat lines."""


def _recency(kind: str, when: datetime | None, now: datetime) -> float:
    age = max((now - when).total_seconds() / 86400, 0.0) if when else 365.0
    return 0.5 + 0.5 * 0.5 ** (age / HALF_LIFE_DAYS[kind])


def _inside(window: tuple[datetime, datetime] | None, when: datetime | None, now: datetime) -> bool:
    return window is not None and window[0] <= (when or now) < window[1]


def _recallable(memory: SAIMemory, conn: Any, persona_id: str, ids: Iterable[int]) -> list[Any]:
    """The persona's message rows of these ids that may be recalled."""
    rows = [r for r in memory._rows(conn, ids) if r[1] == persona_id]
    if rows:  # upstream v0.3: a `discardable` line is never recalled into context (sea/lines.py)
        hidden = {r[0] for r in conn.execute(text(
            "SELECT ID FROM saimemory WHERE ID IN :ids AND SCOPE = 'discardable'").bindparams(
            bindparam("ids", expanding=True)), {"ids": [r[0] for r in rows]})}
        rows = [r for r in rows if r[0] not in hidden]
    return rows


def _messages(memory: SAIMemory, persona_id: str, terms: Sequence[Term], limit: int, exclude_pulse: str | None,
              now: datetime, window: tuple[datetime, datetime] | None = None,
              ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    with memory.db.engine.connect() as conn:
        ids, weights = message_candidates(conn, persona_id, terms, max(RESCORED, 6 * limit))
        rows = _recallable(memory, conn, persona_id, ids)
    lowered = [normalise(r[3]) for r in rows]
    addressed(terms, lowered, weights)  # "Hey Caroline!" does not answer a question about Caroline
    lengths = [length(t) for t in lowered]
    avg = sum(lengths) / len(lengths) if lengths else 1.0
    scored = []
    for row, low, dl in zip(rows, lowered, lengths, strict=True):
        if exclude_pulse and row[5] == exclude_pulse:
            continue  # the current pulse's messages are already in its context
        score, held = bm25(low, terms, weights, avg, dl)
        if score > 0:
            scored.append((round(score * _recency("message", parse_time(row[6]), now), 6), str(row[6]), row, held))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    # A line said again is one memory, but a copy inside the date the question names is kept beside it.
    scored = distinct(scored, lambda s: s[2][3] + ("\0" if _inside(window, parse_time(s[2][6]), now) else ""),
                      stop=limit * 2)
    # Records are made for the kept hits only: at 1M messages a question has ~350 candidates.
    return [{"kind": "message", **record(row), "terms": held, "score": score}
            for score, _, row, held in scored[:limit * 2]], weights


def _stored(dense: object) -> bool:
    """Whether `dense` is a DenseRecall (stored vectors) rather than a plain scorer of texts."""
    return hasattr(dense, "prepare")


def _dense_list(memory: SAIMemory, asked: DenseQuery | None, persona_id: str, hits: list[dict[str, Any]],
                limit: int, exclude_pulse: str | None) -> list[dict[str, Any]]:
    """The lexical hits with a stored vector and the dense-only candidates, closest first."""
    if asked is None:
        return []
    known = {h["id"] for h in hits if h["kind"] == "message"}
    extra_ids = [i for i, _ in asked.near if i not in known][:limit]
    extra: list[dict[str, Any]] = []
    if extra_ids:
        with memory.db.engine.connect() as conn:
            rows = _recallable(memory, conn, persona_id, extra_ids)
        extra = [{"kind": "message", **record(r), "terms": (), "score": 0.0} for r in rows
                 if not (exclude_pulse and r[5] == exclude_pulse)]
    pool = hits + extra
    closeness = asked.similarities(pool)
    scored = [(c, h) for c, h in zip(closeness, pool, strict=True) if c is not None]
    scored.sort(key=lambda c: -c[0])
    for c, h in scored:
        h.setdefault("dense", round(c, 4))
    return [h for _, h in scored]


def recall(
    memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str, query: str, *,
    limit: int = 20, exclude_pulse: str | None = None, now: datetime | None = None,
    dense: DenseScorer | DenseRecall | None = None, dense_wait: float | None = None, thorough: bool = True,
) -> list[dict[str, Any]]:
    """The best `limit` hits of every kind for `query` (any of its terms may match), best first.

    `dense`: a `DenseScorer` over the lexical hits' texts, or a `DenseRecall` (stored message vectors:
    it also proposes messages no term matched; its query vector is waited for `dense_wait` seconds at
    most, default its own `wait`). `thorough`: also each kanji of a longer word on its own, and English
    hits ranked again with the best hits' words (saiverse/memory/_feedback.py): a few more lookups and a
    second pass, which the reflex on the send path goes without (its weak matches stay out anyway)."""
    terms = query_terms(query or "", kanji=thorough)
    if limit <= 0 or not (terms or _stored(dense) and (query or "").strip()):
        return []
    now = now or utc_now()
    window = date_window(query, now) or named_window(query, now)
    dense_side = dense.start(persona_id, query, dense_wait) if _stored(dense) else None  # type: ignore[union-attr]
    hits, weights = _messages(memory, persona_id, terms, limit, exclude_pulse, now, window)
    extra = feedback_terms(terms, hits) if thorough else []
    if extra:  # the best hits' words, asked again lightly (saiverse/memory/_feedback.py)
        terms = [*terms, *extra]
        hits, weights = _messages(memory, persona_id, terms, limit, exclude_pulse, now, window)
    probes = list(dict.fromkeys(t.probe for t in terms))
    for e in chronicle.search_any(persona_id, probes):
        body = normalise(e.content)
        score, held = bm25(body, terms, weights, AVG_LEN, length(body) - length(normalise(date_header(e.content))))
        if score > 0:
            hits.append({
                "kind": "chronicle", "id": e.entry_id, "level": e.level, "content": e.content,
                "start_time": iso(e.start), "end_time": iso(e.end), "message_count": e.message_count,
                "created_at": iso(e.end or e.start), "terms": held,
                "score": round(score * KIND_WEIGHT["chronicle"] * _recency("chronicle", e.end or e.start, now), 6),
            })
    for p in memopedia.search_any(persona_id, probes):
        body = normalise(" ".join([p.title, " ".join(p.keywords), p.summary, p.content]))
        score, held = bm25(body, terms, weights, AVG_LEN)
        boost = TITLE_BOOST if any(t.key in normalise(p.title) for t in terms) else 1.0
        when = parse_time(p.last_referenced_at) or parse_time(p.updated_at)
        if when and parse_time(p.updated_at):
            when = max(when, parse_time(p.updated_at) or when)
        if score > 0:
            hits.append({
                "kind": "memopedia", "id": p.page_id, "title": p.title, "category": p.category,
                "content": p.summary or p.content, "created_at": p.updated_at, "terms": held,
                "score": round(score * boost * KIND_WEIGHT["memopedia"] * _recency("memopedia", when, now), 6),
            })
    time_bias(query, hits)  # when-questions favour turns that say a time; now-questions the newer turns
    hits.sort(key=lambda h: (h["score"], h.get("created_at") or ""), reverse=True)
    hits = newest_first(hits[:limit * 3])  # part of the lexical order: a named date or a dense scorer may outrank it
    lists = [hits]
    if window:
        lists.append([h for h in hits if _inside(window, parse_time(h.get("created_at")), now)])
    weights = [1.0] * len(lists)
    if _stored(dense):
        dense_list = _dense_list(memory, dense_side.result(), persona_id, hits, limit, exclude_pulse)  # type: ignore[union-attr]
        if dense_list:
            lists.append(dense_list)
            weights.append(dense.weight)
    elif dense is not None and hits:
        closeness = dense(query, [str(h.get("content", "")) for h in hits])
        lists.append([h for _, h in sorted(zip(closeness, hits, strict=True), key=lambda c: -c[0])])  # type: ignore[arg-type]
        weights.append(1.0)
    ranked = fuse(lists, key=lambda h: (h["kind"], str(h["id"])), weights=weights)
    ranked = distinct(ranked, lambda h: f"{h['kind']}\0{h.get('content', '')}")[:limit]
    follow(memory, persona_id, ranked)
    return ranked
