"""Recall benchmark on PostgreSQL: SAIMemory.search latency and database size, with and without the gram index.

    python benchmarks/recall_pg.py [--messages 200000] [--queries 100] [--url postgresql+psycopg://…]

The same synthetic Japanese messages and queries as benchmarks/recall.py (its generator), written
into a PostgreSQL database migrated by the app's own steps (database/migrate_pg.py), so pg_trgm
(step 3) and the 1-2 character gram index (step 10) are the indexes the app maintains. Without
`--url` a throwaway cluster is started under the temp dir (tests/support/pg.py: Debian's initdb + pg_ctl);
a `--url` database that already holds `--messages` messages (from an earlier run) is reused.
It times `SAIMemory.search` for the three query kinds, the ranked `recall` that memory_recall calls
(saiverse/memory/_recall.py) for them and for whole questions (benchmarks/recall_rank.py's), then the
same 1-2 character queries as they ran before step 10 (`ILIKE` alone, walking the persona's messages
newest first), all twice, prints a table and, as the last line, one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402

import saiverse.memory._recall_pg as recall_pg  # noqa: E402
from benchmarks.recall import percentile, queries, rows  # noqa: E402
from benchmarks.recall_rank import questions  # noqa: E402
from database.engine import Database  # noqa: E402
from database.migrate_pg import migrate_pg  # noqa: E402
from saiverse.memory import ChronicleStore, MemopediaStore, SAIMemory, recall  # noqa: E402


def build(db: Database, n: int, seed: int) -> float:
    """Insert `n` messages (and their tags) in 10,000-row transactions; returns the seconds taken."""
    start = time.perf_counter()
    raw = db.engine.raw_connection()
    try:
        cur = raw.cursor()
        batch: list[tuple] = []
        tags: list[tuple] = []

        def flush() -> None:
            cur.executemany("INSERT INTO saimemory (ID, PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT) "
                            "VALUES (%s, %s, %s, %s, %s, %s, %s)", batch)
            cur.executemany("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (%s, %s, %s)", tags)
            raw.commit()
            batch.clear()
            tags.clear()

        for row, tag_rows in rows(n, seed):
            batch.append(row)
            tags.extend(tag_rows)
            if len(batch) >= 10_000:
                flush()
                print(f"  {row[0]:,} / {n:,} messages, {time.perf_counter() - start:.0f}s", file=sys.stderr)
        if batch:
            flush()
        cur.execute("SELECT setval(pg_get_serial_sequence('saimemory', 'id'), (SELECT max(ID) FROM saimemory))")
        raw.commit()
        raw.driver_connection.autocommit = True  # type: ignore[union-attr]  # VACUUM runs outside a transaction
        raw.driver_connection.execute("VACUUM ANALYZE")  # type: ignore[union-attr]
        raw.driver_connection.autocommit = False  # type: ignore[union-attr]  # back to the pool as the app has it
    finally:
        raw.close()
    return time.perf_counter() - start


def timed(fn: Callable[[str, str], object], qs: list[tuple[str, str]]) -> dict[str, float]:
    for persona, q in qs[:5]:  # warm the cache and the pool
        fn(persona, q)
    times, hits = [], []
    for persona, q in qs:
        t0 = time.perf_counter()
        found = fn(persona, q)
        times.append((time.perf_counter() - t0) * 1000)
        hits.append(len(found) if isinstance(found, list) else int(found))  # type: ignore[arg-type]
    return {"p50_ms": round(percentile(times, 0.5), 2), "p95_ms": round(percentile(times, 0.95), 2),
            "max_ms": round(max(times), 2), "mean_hits": round(statistics.mean(hits), 1), "queries": len(qs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--url", help="an empty (or earlier filled) PostgreSQL database (default: a throwaway cluster)")
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        url = args.url
        if url is None:
            from tests.support.pg import running_cluster

            cluster = stack.enter_context(running_cluster())
            name = "recall_" + uuid.uuid4().hex[:8]
            cluster.admin(f"CREATE DATABASE {name}")
            url = cluster.url(name)
        db = Database(url, workers=2)
        stack.callback(db.dispose)
        migrate_pg(db.engine)
        with db.engine.connect() as conn:
            present = int(conn.execute(text("SELECT count(*) FROM saimemory")).scalar() or 0)
        build_seconds = 0.0
        if present != args.messages:  # a `--url` database this script filled before is used as it is
            print(f"building {args.messages:,} messages…", file=sys.stderr)
            build_seconds = build(db, args.messages, args.seed)
        with db.engine.connect() as conn:
            sizes = {r[0]: int(r[1]) for r in conn.execute(text(
                "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace s ON s.oid = "
                "c.relnamespace WHERE s.nspname = current_schema() AND c.relname IN ('saimemory', "
                "'ix_saimemory_content_trgm', 'ix_saimemory_grams')"))}
            total = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar() or 0)
        memory = SAIMemory(db)
        chronicle, memopedia = ChronicleStore(db), MemopediaStore(db)

        def ranked(persona: str, q: str) -> list:
            return recall(memory, chronicle, memopedia, persona, q, limit=8)
        short_term = recall_pg.SHORT_TERM
        qs = queries(args.queries, args.seed)
        results: dict[str, dict[str, float]] = {}
        for run in (1, 2):  # twice: the first run also warms PostgreSQL's buffers and the page cache
            for kind, q in qs.items():
                results[f"{kind} (run {run})"] = timed(memory.search, q)
            for kind, q in {**qs, "question": questions(qs)}.items():  # what memory_recall calls (issue 33)
                results[f"ranked {kind} (run {run})"] = timed(ranked, q)
            recall_pg.SHORT_TERM = 0  # as before step 10: no gram index, ILIKE on the persona's messages
            try:
                results[f"1-2 chars, before step 10 (run {run})"] = timed(memory.search, qs["1-2 chars"])
            finally:
                recall_pg.SHORT_TERM = short_term
    print(f"\nSAIMemory.search on PostgreSQL — {args.messages:,} messages, database {total / 1e9:.3f} GB "
          f"(gram index {sizes.get('ix_saimemory_grams', 0) / 1e6:.0f} MB, trigram index "
          f"{sizes.get('ix_saimemory_content_trgm', 0) / 1e6:.0f} MB), "
          f"{f'built in {build_seconds:.0f}s' if build_seconds else 'reused'}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'query kind':<36} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'hits':>6}")
    for kind, r in results.items():
        print(f"{kind:<36} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['max_ms']:>8} {r['mean_hits']:>6}")
    print(json.dumps({"messages": args.messages, "db_bytes": total, "index_bytes": sizes,
                      "build_seconds": round(build_seconds, 1), "cpus": os.cpu_count(), "search": results},
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
