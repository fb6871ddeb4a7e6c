"""Long-term memory benchmark: context assembly at 1M messages, Chronicle build throughput, pulse cost.

    python benchmarks/memory.py [--messages 1000000] [--entries 20000] [--pulses 200] [--dir PATH]

1. Context assembly — what every model call of a pulse pays: `ContextSource.snapshot` (budget,
   recent conversation, Chronicle candidates, Memopedia core) plus `fit` to 8,000 tokens, for a
   persona with `--messages` conversation messages, `--entries` Chronicle entries (levels 1-4,
   covering all but the newest 100 messages) and 200 Memopedia pages. Goal: p95 ≤ 20 ms.
2. Chronicle build throughput on the offline model: a fresh persona with 20,000 messages, built
   from nothing (level-1 batches and consolidation), messages per second.
3. A `meta_user` pulse on the offline model with that memory vs an empty one, interleaved; goal:
   p50 within 10 %. The Chronicle worker is stopped in both so only the pulse is timed.

The big database is built once under `--dir` (reused when complete): messages are bulk-inserted
with the SAIMemory gram-index triggers dropped and then recreated (context assembly never reads
that index; pulses write through the recreated triggers as usual), so the build takes minutes,
not the 12 the recall benchmark's full index needs. The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import statistics
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.recall import texts, vocabulary  # noqa: E402
from benchmarks.scratch import scratch  # noqa: E402
from chat import Message  # noqa: E402
from database.migrate import MEMORY_LINEAR_GRAMS_SQL  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.memory import (  # noqa: E402
    fit,
    stamp,  # noqa: E402
    token_counter,
)
from saiverse.pulse import persona_context, system_prompt_for  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402

PERSONA = "mina"
GENERATOR_VERSION = 1
LEVEL_SHARES = (0.9, 0.09, 0.009)
"""Of the entries: level 1, 2, 3; the rest are level 4."""


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _triggers(conn: sqlite3.Connection, on: bool) -> None:
    names = ("saimemory_gram_ai", "saimemory_gram_ad", "saimemory_gram_au")
    if not on:
        for name in names:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        return
    # The frozen linear-grams step holds the trigger definitions; only its CREATE TRIGGER statements are replayed.
    for body in re.findall(r"CREATE TRIGGER .*?\nEND;", MEMORY_LINEAR_GRAMS_SQL, re.S):
        conn.executescript(body)


def build_home(home: Path, messages: int, entries: int, seed: int = 11) -> float:
    """A home whose persona `mina` has `messages` messages, `entries` Chronicle entries, 200 pages."""
    t0 = time.perf_counter()
    SAIVerseManager(load_settings(home, default_model="offline")).close()  # migrate + seed
    conn = sqlite3.connect(home / "saiverse.db")
    _triggers(conn, False)
    rng = random.Random(seed)
    words, cum = vocabulary(rng)
    stream = texts(rng, words, cum)
    start = datetime(2024, 11, 1)
    step = timedelta(seconds=60)
    batch: list[tuple] = []
    tags: list[tuple] = []
    for i in range(1, messages + 1):
        batch.append((i, PERSONA, "user" if i % 2 else "assistant", next(stream), '["conversation"]',
                      stamp(start + step * i)))
        tags.append((i, "conversation", PERSONA))
        if len(batch) == 50_000 or i == messages:
            conn.executemany("INSERT INTO saimemory (ID, PERSONA_ID, ROLE, CONTENT, TAGS, CREATED_AT) "
                             "VALUES (?, ?, ?, ?, ?, ?)", batch)
            conn.executemany("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (?, ?, ?)", tags)
            conn.commit()
            batch, tags = [], []
    _triggers(conn, True)
    # Chronicle: level-1 entries cover all but the newest 100 messages; higher levels group them.
    counts = [int(entries * s) for s in LEVEL_SHARES]
    counts.append(entries - sum(counts))
    covered = messages - 100
    rows, previous = [], []
    for level, n in enumerate(counts, 1):
        current = []
        for k in range(n):
            if level == 1:
                lo, hi = covered * k // n + 1, covered * (k + 1) // n
                src = [str(lo), str(hi)]
                first, last, mcount = start + step * lo, start + step * hi, hi - lo + 1
            else:
                kids = previous[len(previous) * k // n: len(previous) * (k + 1) // n] or previous[-1:]
                src = [c[0] for c in kids]
                first, last, mcount = kids[0][1], kids[-1][2], sum(c[3] for c in kids)
            eid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            current.append((eid, first, last, mcount))
            a, b = rng.choice(words), rng.choice(words)
            text = f"{first:%Y年%m月%d日}、ミナはユーザーと「{a}」「{b}」について話した。"
            consolidated = int(level < len(counts) and k < n - 5)
            rows.append((PERSONA, eid, level, text, json.dumps(src), stamp(first), stamp(last), len(src), mcount,
                         consolidated))
        previous = current
    conn.executemany("INSERT INTO chronicle_entry (PERSONA_ID, ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, START_TIME, "
                     "END_TIME, SOURCE_COUNT, MESSAGE_COUNT, IS_CONSOLIDATED) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    conn.execute("INSERT INTO chronicle_progress (PERSONA_ID, LAST_MESSAGE_ID) VALUES (?, ?)", (PERSONA, str(covered)))
    pages = [(PERSONA, str(uuid.uuid4()), "root_terms", f"{w}のこと", f"{w}についての覚え書き。", f"{w}は大事。" * 20,
              "terms", json.dumps([w], ensure_ascii=False), int(i < 10), stamp(start), stamp(start))
             for i, w in enumerate(words[:200])]
    conn.executemany("INSERT INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, "
                     "KEYWORDS, IS_IMPORTANT, CREATED_AT, UPDATED_AT) VALUES (?,?,?,?,?,?,?,?,?,?,?)", pages)
    conn.execute("CREATE TABLE bench_complete (V INTEGER)")
    conn.execute("INSERT INTO bench_complete VALUES (?)", (GENERATOR_VERSION,))
    conn.commit()
    conn.execute("PRAGMA optimize")
    conn.close()
    return time.perf_counter() - t0


def is_complete(home: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{home / 'saiverse.db'}?mode=ro", uri=True)
        ok = conn.execute("SELECT V FROM bench_complete").fetchone() == (GENERATOR_VERSION,)
        conn.close()
        return ok
    except sqlite3.Error:
        return False


def time_context(manager: SAIVerseManager, runs: int) -> dict[str, float]:
    """Cold: the snapshot read in full every time (a pulse after a memory write, or the first one);
    warm: the kept snapshot brought up to date (every other pulse)."""
    persona = persona_context(manager.world.persona(PERSONA))
    system = system_prompt_for(persona, manager.world.building("library"))
    count = token_counter(None)
    own = [Message(role="user", content="こんにちは、この前の話の続きをしよう")]
    out: dict[str, float] = {}
    for label in ("cold", "warm"):
        total, snaps = [], []
        for _ in range(runs):
            if label == "cold":
                manager.context.forget()
            t0 = time.perf_counter()
            snap = manager.context.snapshot(PERSONA, "bench-pulse")
            t1 = time.perf_counter()
            fitted = fit(snap, system, own, count)
            total.append((time.perf_counter() - t0) * 1000)
            snaps.append((t1 - t0) * 1000)
        out.update({f"context_{label}_p50_ms": round(statistics.median(total), 2),
                    f"context_{label}_p95_ms": round(pct(total, 0.95), 2),
                    f"snapshot_{label}_p50_ms": round(statistics.median(snaps), 2)})
    out.update({"prompt_tokens": fitted.input_tokens, "verbatim": fitted.verbatim,
                "chronicle_in_prompt": len(fitted.chronicle_ids)})
    return out


def time_build(messages: int = 20_000) -> dict[str, float]:
    home = scratch("saiverse-bench-chronicle-")
    manager = SAIVerseManager(load_settings(home, default_model="offline"))
    manager.chronicle_worker.stop()
    rng = random.Random(5)
    words, cum = vocabulary(rng)
    stream = texts(rng, words, cum)
    start = datetime(2025, 1, 1)
    with manager.db.session() as s:
        for i in range(messages):
            manager.memory.add(PERSONA, "user" if i % 2 == 0 else "assistant", next(stream), tags=["conversation"],
                               created_at=start + timedelta(minutes=i), session=s)
    t0 = time.perf_counter()
    report = manager.chronicle_builder.build_due(PERSONA)
    seconds = time.perf_counter() - t0
    levels = manager.chronicle.levels(PERSONA)
    manager.close()
    return {"build_messages": report.messages, "build_seconds": round(seconds, 2),
            "build_messages_per_s": round(report.messages / seconds), "build_entries": len(report.created),
            "build_levels": levels}


def time_pulses(homes: dict[str, Path], pulses: int) -> dict[str, float]:
    managers = {k: SAIVerseManager(load_settings(h, default_model="offline")) for k, h in homes.items()}
    for m in managers.values():
        m.chronicle_worker.stop()
    said = ["こんにちは", "おすすめの本は？", "今日はいい天気ですね", "猫の話をしよう", "ありがとう"]
    times: dict[str, list[float]] = {k: [] for k in managers}
    for m in managers.values():  # warm up
        for t in said:
            list(m.handle_user_input("library", t, persona_id=PERSONA))
    for i in range(pulses):
        for k, m in managers.items():
            t0 = time.perf_counter()
            events = list(m.handle_user_input("library", said[i % len(said)], persona_id=PERSONA))
            times[k].append((time.perf_counter() - t0) * 1000)
            assert events[-1]["status"] == "ok", events[-1]
    for m in managers.values():
        m.close()
    with sqlite3.connect(homes["full"] / "saiverse.db") as conn:  # the reused home keeps only its own data
        conn.execute("DELETE FROM saimemory WHERE ID > (SELECT max(CAST(LAST_MESSAGE_ID AS INTEGER)) + 100 "
                     "FROM chronicle_progress WHERE PERSONA_ID = ?)", (PERSONA,))
    p50 = {k: statistics.median(v) for k, v in times.items()}
    return {"pulse_empty_p50_ms": round(p50["empty"], 2), "pulse_full_p50_ms": round(p50["full"], 2),
            "pulse_full_p95_ms": round(pct(times["full"], 0.95), 2),
            "pulse_ratio": round(p50["full"] / p50["empty"], 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--entries", type=int, default=20_000)
    ap.add_argument("--pulses", type=int, default=200)
    ap.add_argument("--runs", type=int, default=200, help="context assemblies timed")
    ap.add_argument("--dir", type=Path, default=ROOT / "bench-data")
    args = ap.parse_args(argv)
    home = args.dir / f"memory-{args.messages}-{args.entries}-g{GENERATOR_VERSION}"
    figures: dict[str, object] = {"messages": args.messages, "entries": args.entries}
    if not is_complete(home):
        if home.exists():
            import shutil

            shutil.rmtree(home)
        home.mkdir(parents=True)
        figures["db_build_s"] = round(build_home(home, args.messages, args.entries), 1)
    figures["db_mb"] = round((home / "saiverse.db").stat().st_size / 1e6, 1)
    manager = SAIVerseManager(load_settings(home, default_model="offline"))
    manager.chronicle_worker.stop()
    time_context(manager, 10)  # warm the page cache
    figures.update(time_context(manager, args.runs))
    manager.close()
    figures.update(time_build())
    empty = scratch("saiverse-bench-empty-")
    figures.update(time_pulses({"empty": empty, "full": home}, args.pulses))
    print(f"context assembly, {args.messages:,} messages + {args.entries:,} entries: "
          f"cold p50 {figures['context_cold_p50_ms']} ms, p95 {figures['context_cold_p95_ms']} ms (goal p95 ≤ 20 ms); "
          f"warm p50 {figures['context_warm_p50_ms']} ms, p95 {figures['context_warm_p95_ms']} ms; "
          f"prompt {figures['prompt_tokens']} tokens, {figures['verbatim']} verbatim, "
          f"{figures['chronicle_in_prompt']} Chronicle entries")
    print(f"Chronicle build (offline): {figures['build_messages']:,} messages in {figures['build_seconds']} s = "
          f"{figures['build_messages_per_s']:,} messages/s, {figures['build_entries']} entries "
          f"{figures['build_levels']}")
    print(f"pulse p50: empty {figures['pulse_empty_p50_ms']} ms, full {figures['pulse_full_p50_ms']} ms "
          f"(ratio {figures['pulse_ratio']}, goal ≤ 1.10)")
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
