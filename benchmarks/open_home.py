"""Opening a big home: the full integrity check against the clean-close stamp (database/clean_close.py).

    python benchmarks/open_home.py [--mb 100] [--runs 5]

Builds one home of about `--mb` MB (the seeded world, then conversation messages written
straight into its database, their recall grams by its triggers), closes it cleanly, and then opens
it (`SAIVerseManager(settings)`, what `python main.py` and every CLI command do) `--runs` times each
way, interleaved: once with its stamp removed — the full `PRAGMA quick_check`, as every open was
before — and once after a clean close (the stamp matches: no check). Each open is closed cleanly
again. Prints min / median wall and CPU time of the open and of the close; the last line is one
JSON object. The file stays in the page cache throughout (a cold disk adds its reading time to the
check, not to the stamped open).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch  # noqa: E402

SENTENCES = ("今日は図書館で猫の本を読んだ。", "Cats are lovely! ", "明日は港の市場へ行こうと思う。",
             "The tide was low at noon. ", "駅前の喫茶店で新しい珈琲を試した。")


def fill(db: Path, mb: int) -> None:
    """Conversation messages of ~200 characters (their recall grams written by the triggers, as in a
    lived-in home) until the file holds about `mb` MB."""
    conn = sqlite3.connect(db)
    try:
        n = 0
        while db.stat().st_size < mb * 1_048_576:
            batch = [(f"{n + i} " + "".join(SENTENCES[(n + i + k) % len(SENTENCES)] for k in range(9))[:200],)
                     for i in range(5000)]
            with conn:
                conn.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS) "
                                 "VALUES ('mina', 'user', ?, '[\"conversation\"]')", batch)
            n += len(batch)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def timed_open(settings: object) -> tuple[float, float, float, float, int]:
    """(open wall s, open CPU s, close wall s, close CPU s, full checks run) of one open and clean close."""
    from database.migrate import integrity_checks_run
    from saiverse.manager import SAIVerseManager

    checks = integrity_checks_run()
    w0, c0 = time.perf_counter(), time.process_time()
    manager = SAIVerseManager(settings)  # type: ignore[arg-type]
    w1, c1 = time.perf_counter(), time.process_time()
    manager.close()
    w2, c2 = time.perf_counter(), time.process_time()
    return w1 - w0, c1 - c0, w2 - w1, c2 - c1, integrity_checks_run() - checks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    home = scratch("saiverse-bench-open-")
    os.environ.update({"SAIVERSE_HOME": str(home), "SAIVERSE_DEFAULT_MODEL": "offline",
                       "SAIVERSE_DETECT_SERVERS": "0"})
    from database.clean_close import stamp_path
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    settings = load_settings()
    SAIVerseManager(settings).close()
    t0 = time.perf_counter()
    fill(settings.db_path, args.mb)
    print(f"home of {settings.db_path.stat().st_size / 1_048_576:.0f} MB built in {time.perf_counter() - t0:.0f} s",
          flush=True)
    timed_open(settings)  # warm up: imports, and the first (checked) open after the fill stamps the file
    rows: dict[str, list[tuple[float, float, float, float, int]]] = {"checked": [], "stamped": []}
    for _ in range(args.runs):
        stamp_path(settings.db_path).unlink()
        rows["checked"].append(timed_open(settings))
        assert stamp_path(settings.db_path).is_file()
        rows["stamped"].append(timed_open(settings))
    out: dict[str, object] = {"mb": round(settings.db_path.stat().st_size / 1_048_576, 1), "runs": args.runs,
                              "load": psutil.getloadavg()[0]}
    for kind, runs in rows.items():
        checks = sorted({r[4] for r in runs})
        cols = list(zip(*runs, strict=True))
        fig = {name: (min(cols[i]), statistics.median(cols[i]))
               for i, name in enumerate(("open_wall", "open_cpu", "close_wall", "close_cpu"))}
        print(f"{kind:8} (full checks per open: {checks}): open wall min {fig['open_wall'][0]:.3f} / median "
              f"{fig['open_wall'][1]:.3f} s, CPU {fig['open_cpu'][0]:.3f} / {fig['open_cpu'][1]:.3f} s; close wall "
              f"{fig['close_wall'][0]:.3f} / {fig['close_wall'][1]:.3f} s")
        out[kind] = {k: [round(v, 4) for v in pair] for k, pair in fig.items()} | {"checks_per_open": checks}
    saved = statistics.median(r[0] for r in rows["checked"]) - statistics.median(r[0] for r in rows["stamped"])
    print(f"the stamp saves {saved:.3f} s of wall time per open (median)")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
