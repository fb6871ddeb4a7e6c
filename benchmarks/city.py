"""City benchmark: many personas on autonomous turns in one process, and a user chatting meanwhile.

    python benchmarks/city.py [--personas 1000] [--interval 60] [--duration 300] [--workers 8] [--postgres]

Offline model, SQLite in the home (or, with --postgres, a throwaway PostgreSQL cluster started like
the tests' — tests/pg.py), the in-process pulse pool (saiverse/pulse/_pool.py). The city is
made through the admin service (what `python main.py persona create` does); every persona is `auto`,
its building's interval is `--interval` seconds, and the personas' first turns are spread evenly over
one interval, so demand is personas / interval pulses per second from the start. The clock runs the
ticker's round once a second. Prints sustained pulses/s against the demand, failed pulses, p50/p95
pulse latency (queued → ended), the user's first-token latency idle and while the city runs (and their
ratio), resident memory sampled over the run (flat or not), database growth per 1,000 pulses, and the
threads alive. The last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.pulse import PulseHandle  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def rss_mb() -> float:
    """Current resident set size (Linux /proc), in MiB."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1_048_576


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def db_bytes(m: SAIVerseManager) -> int:
    """The database's size: the SQLite file with its WAL, or PostgreSQL's pg_database_size."""
    if m.db.engine.dialect.name == "postgresql":
        from sqlalchemy import text

        with m.db.engine.connect() as conn:
            return int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar() or 0)
    path = m.settings.db_path
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def make_city(m: SAIVerseManager, personas: int, interval: int) -> list[str]:
    ids: list[str] = []
    per = 50
    for b in range((personas + per - 1) // per):
        building = m.admin.create_building({"name": f"block-{b}", "capacity": per, "auto_interval_sec": interval})
        for p in range(min(per, personas - len(ids))):
            ids.append(m.admin.create_persona({"persona_id": f"c{b:03d}-{p:02d}", "name": f"住人{b}-{p}",
                                               "building_id": building.building_id,
                                               "interaction_mode": "auto"}).persona_id)
    return ids


def first_token(m: SAIVerseManager, text: str) -> tuple[float, str]:
    """Seconds from sending to the first reply event, and the pulse's end status."""
    start = time.perf_counter()
    first, status = None, "none"
    for ev in m.handle_user_input("library", text, persona_id="mina"):
        if first is None and ev["type"] in ("speak_chunk", "speak", "say"):
            first = time.perf_counter() - start
        if ev["type"] == "pulse_end":
            status = ev.get("status", "?")
    return (first if first is not None else time.perf_counter() - start), status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--personas", type=int, default=1000)
    ap.add_argument("--interval", type=int, default=60, help="seconds between a persona's turns (≥ 60)")
    ap.add_argument("--duration", type=int, default=300, help="seconds the city runs")
    ap.add_argument("--workers", type=int, default=8, help="pulse workers ($SAIVERSE_PULSE_WORKERS)")
    ap.add_argument("--user-sends", type=int, default=10, help="user messages idle and again under load")
    ap.add_argument("--home", help="data home (default: a temp dir)")
    ap.add_argument("--postgres", action="store_true", help="the city in a throwaway PostgreSQL cluster")
    args = ap.parse_args()
    if args.postgres:
        from tests.pg import running_cluster

        with running_cluster() as cluster:
            cluster.admin("CREATE DATABASE city")
            os.environ["SAIVERSE_DATABASE_URL"] = cluster.url("city")
            return run(args)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """The benchmark itself, on whatever store the environment names."""
    os.environ["SAIVERSE_PULSE_WORKERS"] = str(args.workers)
    os.environ.setdefault("SAIVERSE_DEFAULT_MODEL", "offline")
    home = Path(args.home or tempfile.mkdtemp(prefix="saiverse-city-"))
    m = SAIVerseManager(load_settings(home))
    m.chronicle_worker.stop()  # the offline model summarises too; this measures pulses alone
    t0 = time.perf_counter()
    ids = make_city(m, args.personas, args.interval)
    print(f"city: {len(ids)} personas in {time.perf_counter() - t0:.1f} s; home {home}", flush=True)

    idle = [first_token(m, f"こんにちは {i}")[0] for i in range(args.user_sends)]
    lock = threading.Lock()
    latencies: list[float] = []
    statuses: dict[str, int] = {}

    def ended(handle: PulseHandle, _events: list[Any]) -> None:
        rec = handle.record
        with lock:
            statuses[rec.status] = statuses.get(rec.status, 0) + 1
            if rec.ended_at is not None:
                latencies.append(rec.ended_at - rec.queued_at)

    # Spread the first turns over one interval: persona i is "last seen" i/N of an interval ago.
    now = datetime.now()
    for i, pid in enumerate(ids):
        m.auto_turns.claim([(pid, 0)], now - timedelta(seconds=args.interval * (i + 1) / len(ids)))
    m.autonomous = True
    stop = threading.Event()
    submitted = [0]

    def clock() -> None:
        while not stop.wait(1.0):
            try:
                for h in m.autonomous_tick():
                    submitted[0] += 1
                    h.drain_to(lambda events, h=h: ended(h, events))
            except Exception as exc:  # noqa: BLE001 - counted, and the clock goes on like the ticker's
                with lock:
                    statuses[f"tick:{type(exc).__name__}"] = statuses.get(f"tick:{type(exc).__name__}", 0) + 1

    size0, rss = db_bytes(m), [(0.0, rss_mb())]
    start = time.perf_counter()
    threading.Thread(target=clock, daemon=True).start()
    loaded: list[float] = []
    user_status: list[str] = []
    spacing = args.duration / (args.user_sends + 1)
    for i in range(args.user_sends):
        time.sleep(spacing)
        took, status = first_token(m, f"混んでいる? {i}")
        loaded.append(took)
        user_status.append(status)
        rss.append((time.perf_counter() - start, rss_mb()))
    time.sleep(max(0.0, args.duration - (time.perf_counter() - start)))
    stop.set()
    elapsed = time.perf_counter() - start
    with lock:
        done = sum(v for k, v in statuses.items() if not k.startswith("tick:"))
        figures = {
            "personas": len(ids), "workers": args.workers, "interval_s": args.interval, "duration_s": round(elapsed, 1),
            "demand_per_s": round(len(ids) / args.interval, 2), "submitted": submitted[0],
            "ended": done, "sustained_per_s": round(done / elapsed, 2), "statuses": dict(statuses),
            "pulse_p50_ms": round(pct(latencies, 0.5) * 1000, 1), "pulse_p95_ms": round(pct(latencies, 0.95) * 1000, 1),
        }
    figures.update({
        "user_first_token_idle_ms": round(statistics.median(idle) * 1000, 1),
        "user_first_token_loaded_ms": round(statistics.median(loaded) * 1000, 1),
        "user_ratio": round(statistics.median(loaded) / statistics.median(idle), 2),
        "user_statuses": user_status,
        "rss_mb": [round(r, 1) for _, r in rss],
        "db_growth_kb_per_1000_pulses": round((db_bytes(m) - size0) / 1024 / max(done, 1) * 1000, 1),
        "threads": threading.active_count(),
    })
    print(f"demand {figures['demand_per_s']}/s  sustained {figures['sustained_per_s']}/s  "
          f"({figures['ended']} pulses in {figures['duration_s']} s, statuses {figures['statuses']})")
    print(f"pulse latency p50 {figures['pulse_p50_ms']} ms  p95 {figures['pulse_p95_ms']} ms")
    print(f"user first token: idle {figures['user_first_token_idle_ms']} ms, loaded "
          f"{figures['user_first_token_loaded_ms']} ms (x{figures['user_ratio']})")
    print(f"RSS MiB over the run: {figures['rss_mb']}; threads {figures['threads']}; "
          f"db growth {figures['db_growth_kb_per_1000_pulses']} KiB per 1,000 pulses")
    figures["store"] = m.db.engine.dialect.name
    print(json.dumps(figures, ensure_ascii=False))
    m.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
