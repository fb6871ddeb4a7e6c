"""Ranked recall latency: `saiverse.memory.recall` (BM25 over the gram index's candidates) on N messages.

    python benchmarks/recall_rank.py [--messages 100000] [--queries 100]

Reuses benchmarks/recall.py's database (built the same way, or reused when one with the same
parameters is complete) and its query kinds, plus whole questions as a user would type them
(「猫と図書館の話、覚えてる？」) and everyday ones whose word the thesaurus expands (「図書館と仕事の話、覚えてる？」).
Times the full `recall` (messages, Chronicle, Memopedia) as the memory_recall tool calls it, and reflex
recall (`ContextSource.reflex`, what a user's pulse adds) on both kinds of question; wall-clock and CPU
time (the process's own: on a shared machine the wall clock also counts other work's turns); prints a
table and, as the last line, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.recall import build, existing_build, percentile, queries  # noqa: E402
from database.engine import Database  # noqa: E402
from saiverse.memory import (  # noqa: E402
    ChronicleStore,
    ContextSource,
    MemopediaStore,
    SAIMemory,
    Snapshot,  # noqa: E402
    forget_lookups,
    recall,
)

EVERYDAY = ("仕事", "病院", "家族", "引っ越し", "楽器", "ペット", "旅行", "学校")
"""Words the thesaurus expands (saiverse/memory/_thesaurus.py): a user's message often holds one."""


def everyday(kinds: dict[str, list[tuple[str, str]]], seed: int = 7) -> list[tuple[str, str]]:
    """Questions with an everyday word the thesaurus expands (up to 16 more lookups) beside a 3+ term."""
    rng = random.Random(seed)
    return [(p, f"{a.split()[0]}と{rng.choice(EVERYDAY)}の話、覚えてる？") for p, a in kinds["3+ chars"]]


def questions(kinds: dict[str, list[tuple[str, str]]], seed: int = 7) -> list[tuple[str, str]]:
    """Whole questions from benchmarks/recall.py's terms: a 1-2 character one and a 3+ one in a sentence."""
    longs = random.Random(seed).sample(kinds["3+ chars"], len(kinds["3+ chars"]))
    return [(p, f"{a.split()[0]}と{b.split()[-1]}の話、覚えてる？")
            for (p, a), (_, b) in zip(kinds["1-2 chars"], longs, strict=True)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--dir", type=Path, default=ROOT / "bench-data")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / f"recall-{args.messages}-s{args.seed}-g1.db"
    if existing_build(path, args.messages, args.seed) is None:
        print(f"building {path}…", file=sys.stderr)
        build(path, args.messages, args.seed)
    db = Database(f"sqlite:///{path}")
    memory, chronicle, memopedia = SAIMemory(db), ChronicleStore(db), MemopediaStore(db)
    kinds = queries(args.queries, args.seed)
    kinds["question"] = questions(kinds, args.seed)
    kinds["everyday"] = everyday(kinds, args.seed)
    results = {}
    source, empty = ContextSource(db, chronicle, memopedia), Snapshot(budget=8000)

    def ask(kind: str, persona: str, q: str) -> None:
        if kind.startswith("reflex"):  # what a pulse adds: reflex recall on the message (saiverse/memory/_reflex.py)
            source.reflex(persona, q, None, empty)
        else:
            recall(memory, chronicle, memopedia, persona, q, limit=8)
    kinds["reflex"] = kinds["question"]
    kinds["reflex everyday"] = kinds["everyday"]
    for kind, qs in kinds.items():
        for persona, q in qs[:5]:
            ask(kind, persona, q)
        forget_lookups()  # each kind starts with no kept lookups: the kinds before looked its terms up
        times, cpu = [], []
        for persona, q in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            ask(kind, persona, q)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        results[kind] = {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1),
                         "max_ms": round(max(times), 1), "cpu_p50_ms": round(percentile(cpu, 0.5), 1),
                         "cpu_p95_ms": round(percentile(cpu, 0.95), 1)}
        print(f"{kind:<16} p50 {results[kind]['p50_ms']:>7} p95 {results[kind]['p95_ms']:>7} "
              f"max {results[kind]['max_ms']:>7}  cpu p50 {results[kind]['cpu_p50_ms']:>6} "
              f"p95 {results[kind]['cpu_p95_ms']:>6}")
    db.dispose()
    print(json.dumps({"messages": args.messages, "recall": results}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
