"""Pseudo-relevance feedback for English recall (issue 33): the best hits' own words, asked again lightly.

A question and its evidence often share one word where the evidence's neighbours in meaning share more:
"Which races has Priya completed?" finds the half-marathon turn by "race"; that turn's words (finish,
marathon, mile) find the marathon months later, which says neither "race" nor "complete". So the best
`FEEDBACK_HITS` message hits lend their commonest latin words (`FEEDBACK_TERMS`, those in most of the hits
first, longer first among equals: a long word is a rarer one) at `FEEDBACK_WEIGHT`, and the messages are
ranked again with them (Rocchio / RM3 without a model; the query's own terms keep their weight, so the
first ranking's best stay near the top). Latin words only: on Japanese the hits' grams brought their
small talk back (benchmarks/RESULTS-recall.md: heldout_ja_sora 0.93 → 0.88). The figures
were chosen on the dev conversations (benchmarks/data/dev_*.json).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from saiverse.memory._lexical import Term, query_terms

FEEDBACK_HITS = 5
FEEDBACK_TERMS = 6
FEEDBACK_WEIGHT = 0.2


def feedback_terms(terms: Sequence[Term], hits: Sequence[dict[str, Any]]) -> list[Term]:
    """The latin words the best message hits add to `terms` (none when they add none)."""
    have = {t.key for t in terms}
    count: Counter[str] = Counter()
    found: dict[str, Term] = {}
    for h in [h for h in hits if h.get("kind") == "message"][:FEEDBACK_HITS]:
        for t in {t.key: t for t in query_terms(str(h.get("content", ""))) if t.latin and t.weight >= 1.0}.values():
            if t.key not in have and len(t.key) >= 2:
                count[t.key] += 1
                found[t.key] = t
    best = sorted(count, key=lambda k: (-count[k], -len(k), k))[:FEEDBACK_TERMS]
    return [replace(found[k], weight=FEEDBACK_WEIGHT, name=False) for k in best]
