"""Adding one long message to SAIMemory: time against length (the recall index's gram triggers).

    python benchmarks/message_add.py [--rounds 5] [--sizes 1000,10000,100000] [--step3]

Each round adds one Japanese message of every size through `SAIMemory.add` (its own transaction,
the triggers of database/steps.py computing the grams) to a fresh home, sizes interleaved, and
deletes it again (the delete trigger recomputes the grams). Prints min / median per size and the
cost per 1,000 characters, which stays flat when the cost is linear in the length. `--step3` also
times the same insert under migration step 3's triggers (quadratic) once per size, for comparison
(minutes at 100,000 characters). The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch  # noqa: E402
from database.engine import Database  # noqa: E402
from database.migrate import MEMORY_GRAM_INDEX_SQL, migrate  # noqa: E402
from saiverse.memory import SAIMemory  # noqa: E402

SENTENCE = "今日は図書館で猫の本を読んだ。Cats are lovely! "


def message(chars: int) -> str:
    return (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]


def step3_insert_ms(home: Path, chars: int) -> float:
    """One insert under step 3's triggers (gram positions from a number table, `substr` per position)."""
    path = home / "step3.db"
    migrate(path, target=6)
    conn = sqlite3.connect(path)
    for name in ("saimemory_gram_ai", "saimemory_gram_ad", "saimemory_gram_au"):
        conn.execute(f"DROP TRIGGER {name}")
    for body in re.findall(r"CREATE TRIGGER .*?\nEND;", MEMORY_GRAM_INDEX_SQL, re.S):
        conn.executescript(body)
    t0 = time.perf_counter()
    conn.execute("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS) VALUES ('mina', 'user', ?, '[]')",
                 (message(chars),))
    conn.commit()
    elapsed = (time.perf_counter() - t0) * 1000
    conn.close()
    path.unlink()
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--step3", action="store_true", help="also time step 3's quadratic triggers, once per size")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    home = scratch("saiverse-bench-add-")
    migrate(home / "saiverse.db")
    db = Database(f"sqlite:///{home / 'saiverse.db'}")
    memory = SAIMemory(db)
    memory.add("mina", "user", message(100), tags=["conversation"])  # warm up
    add_ms: dict[int, list[float]] = {n: [] for n in sizes}
    delete_ms: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(args.rounds):
        for n in sizes:  # interleaved, so load on the machine falls on every size alike
            text = message(n)
            t0 = time.perf_counter()
            rec = memory.add("mina", "user", text, tags=["conversation"])
            t1 = time.perf_counter()
            memory.delete("mina", rec["id"])
            t2 = time.perf_counter()
            add_ms[n].append((t1 - t0) * 1000)
            delete_ms[n].append((t2 - t1) * 1000)
    figures: dict[str, object] = {"rounds": args.rounds, "sizes": {}}
    print(f"{'characters':>10} | {'add min':>9} | {'add median':>10} | {'per 1k chars':>12} | {'delete median':>13}")
    for n in sizes:
        med = statistics.median(add_ms[n])
        row = {"add_min_ms": round(min(add_ms[n]), 2), "add_median_ms": round(med, 2),
               "add_ms_per_1k_chars": round(med / n * 1000, 3),
               "delete_median_ms": round(statistics.median(delete_ms[n]), 2)}
        if args.step3:
            row["step3_add_ms"] = round(step3_insert_ms(home, n), 1)
        figures["sizes"][str(n)] = row  # type: ignore[index]
        extra = f" | step 3: {row['step3_add_ms']} ms" if args.step3 else ""
        print(f"{n:>10,} | {row['add_min_ms']:>6} ms | {row['add_median_ms']:>7} ms | "
              f"{row['add_ms_per_1k_chars']:>9} ms | {row['delete_median_ms']:>10} ms{extra}")
    db.dispose()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
