"""Production workflow benchmark: a 5-step picture-book run on the offline model (every item
written, every node checkpointed), and the overhead of resuming a finished-checkpoint run.

    python benchmarks/production.py [--runs 10]

Prints a table; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    manager = SAIVerseManager(load_settings(scratch("saiverse-prod-"), default_model="offline"))
    service = manager.production
    events: list[dict] = []
    service.start("sora", "atelier", "絵本を作って: 準備運動", events.append)  # warm-up

    run_s, resume_s, steps = [], [], []
    for i in range(args.runs):
        run_id = uuid.uuid4().hex
        t0 = time.perf_counter()
        summary = service.start("sora", "atelier", f"絵本を作って: 猫の冒険 {i}", events.append, run_id=run_id)
        run_s.append(time.perf_counter() - t0)
        assert summary.finished and all(s["status"] == "completed" for s in summary.plan)
        steps.append(len(summary.plan))
        t0 = time.perf_counter()
        service.resume(run_id, events.append)  # load the last checkpoint, find nothing left to do
        resume_s.append(time.perf_counter() - t0)
    manager.close()

    figures = {
        "runs": args.runs,
        "steps_per_run": max(set(steps), key=steps.count),
        "run_p50_s": round(statistics.median(run_s), 3),
        "run_max_s": round(max(run_s), 3),
        "resume_overhead_p50_ms": round(statistics.median(resume_s) * 1000, 2),
    }
    print(f"{figures['steps_per_run']}-step picture book, offline: p50 {figures['run_p50_s']} s, "
          f"max {figures['run_max_s']} s (goal ≤ 2 s)")
    print(f"resume of a checkpointed run: p50 {figures['resume_overhead_p50_ms']} ms")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
