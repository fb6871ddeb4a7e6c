"""City benchmark: many personas on autonomous turns, and a user chatting meanwhile.

    python benchmarks/city.py [--personas 1000] [--interval 60] [--minutes 10] [--workers 8]
    python benchmarks/city.py --postgres                       # in-process, a throwaway PostgreSQL cluster
    python benchmarks/city.py --processes 2 [--concurrency 4]  # 2 `main.py worker` processes, PostgreSQL
    python benchmarks/city.py --processes 4 --database-url postgresql+psycopg://…/empty_db

Offline model. Without `--processes`, pulses run in this process on the pulse pool
(saiverse/pulse/_pool.py), the city in SQLite in the home (or PostgreSQL with --postgres /
--database-url). With `--processes N`, N `python main.py worker` subprocesses run them from the queue
in PostgreSQL and this process plays the app (benchmarks/city_workers.py). The database is a
throwaway cluster started like the tests' (tests/support/pg.py: initdb + pg_ctl as an unprivileged user, also
when run as root) unless `--database-url` names an empty one. The city is made through the admin
service (what `python main.py persona create` does); every persona is `auto`, its building's interval
is `--interval` seconds, and the first turns are spread evenly over one interval, so demand is
personas / interval pulses per second from the start; Chronicle is off for them (this measures
pulses). The clock runs the autonomous tick once a second. Prints sustained pulses/s against the
demand, failed pulses, p50/p95 pulse latency (queued → ended), the user's first-token latency idle and
while the city runs (and their ratio); each loaded send is followed, half a spacing later, by one sent
with the clock paused and the city quiet, so the interleaved ratio compares sends the machine's load
moved alike; resident memory of every process sampled over the run, the
load average beside it, database growth per 1,000 pulses. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.city_workers import (  # noqa: E402
    Sampler,
    Workers,
    backlog,
    cpu_seconds,
    db_now,
    libpq,
    postgres_cpu,
    queue_figures,
)
from benchmarks.scratch import scratch  # noqa: E402
from saiverse.heap import settle  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.pulse import PulseHandle  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


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
    ap.add_argument("--minutes", type=float, default=10.0, help="how long the city runs (default 10)")
    ap.add_argument("--duration", type=int, help="the same in seconds (wins over --minutes)")
    ap.add_argument("--workers", type=int, default=8, help="in-process pulse workers ($SAIVERSE_PULSE_WORKERS)")
    ap.add_argument("--processes", type=int, default=0, help="`main.py worker` processes (0: pulses in-process)")
    ap.add_argument("--concurrency", type=int, default=4, help="pulses each worker process runs at once")
    ap.add_argument("--user-sends", type=int, default=10, help="user messages idle and again under load")
    ap.add_argument("--home", help="data home (default: a temp dir)")
    ap.add_argument("--postgres", action="store_true", help="the city in a throwaway PostgreSQL cluster")
    ap.add_argument("--database-url", help="an empty PostgreSQL database (postgresql+psycopg://…) instead")
    args = ap.parse_args()
    args.duration = args.duration or int(args.minutes * 60)
    if args.processes < 0 or args.concurrency < 1 or args.personas < 1 or args.duration < 10:
        ap.error("--processes ≥ 0, --concurrency ≥ 1, --personas ≥ 1 and a run of ≥ 10 s")
    if args.database_url:
        if not args.database_url.startswith("postgresql+psycopg://"):
            ap.error("--database-url must be postgresql+psycopg://…")
        os.environ["SAIVERSE_DATABASE_URL"] = args.database_url
        return run(args)
    if args.postgres or args.processes:
        from tests.support.pg import running_cluster

        with running_cluster() as cluster:
            cluster.admin("CREATE DATABASE city")
            os.environ["SAIVERSE_DATABASE_URL"] = cluster.url("city")
            args.pg_data = cluster.directory / "data"
            return run(args)
    return run(args)


def quiet_chronicle(m: SAIVerseManager, ids: list[str]) -> None:
    """Chronicle off for the city's personas: every worker process would otherwise summarise them too."""
    from sqlalchemy import bindparam, text

    with m.db.engine.begin() as conn:
        conn.execute(text("UPDATE ai SET CHRONICLE_ENABLED = 0 WHERE AIID IN :ids").bindparams(
            bindparam("ids", expanding=True)), {"ids": ids})


def run(args: argparse.Namespace) -> int:
    """The benchmark itself, on whatever store the environment names."""
    os.environ["SAIVERSE_PULSE_WORKERS"] = str(args.workers)
    os.environ.setdefault("SAIVERSE_DEFAULT_MODEL", "offline")
    url = os.environ.get("SAIVERSE_DATABASE_URL", "")
    home = Path(args.home or scratch("saiverse-city-"))
    os.environ["SAIVERSE_PULSE_WORKERS_REMOTE"] = "1" if args.processes else "0"
    m = SAIVerseManager(load_settings(home))
    m.chronicle_worker.stop()  # the offline model summarises too; this measures pulses alone
    if m.world.personas() and any(p.persona_id.startswith("c000-") for p in m.world.personas()):
        print("the database already holds a benchmark city: give an empty one", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    ids = make_city(m, args.personas, args.interval)
    quiet_chronicle(m, ids)
    settle()  # as the app does once it serves (saiverse/heap.py)
    print(f"city: {len(ids)} personas in {time.perf_counter() - t0:.1f} s; home {home}", flush=True)
    workers = None
    if args.processes:
        workers = Workers(args.processes, args.concurrency, home, url)
        print(f"{args.processes} worker processes × {args.concurrency}: pids {[p.pid for p in workers.procs]}",
              flush=True)
    try:
        return measure(args, m, workers, url)
    finally:
        if workers is not None:
            workers.stop()
        m.close()


def measure(args: argparse.Namespace, m: SAIVerseManager, workers: Workers | None, url: str) -> int:
    for i in range(2):  # warm-up: the first pulse of a process loads the playbooks and the model
        first_token(m, f"はじめまして {i}")
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
    ids = ids_of(m)
    for i, pid in enumerate(ids):
        m.auto_turns.claim([(pid, 0)], now - timedelta(seconds=args.interval * (i + 1) / len(ids)))
    stop, paused = threading.Event(), threading.Event()
    submitted = [0]

    def clock() -> None:
        while not stop.wait(1.0):
            if paused.is_set():
                continue
            try:
                for h in m.autonomous_tick():
                    submitted[0] += 1
                    if workers is None:
                        h.drain_to(lambda events, h=h: ended(h, events))
            except Exception as exc:  # noqa: BLE001 - counted, and the clock goes on like the ticker's
                with lock:
                    statuses[f"tick:{type(exc).__name__}"] = statuses.get(f"tick:{type(exc).__name__}", 0) + 1

    size0 = db_bytes(m)
    pg_data = getattr(args, "pg_data", None)
    cpu0 = (cpu_seconds(), workers.cpu() if workers else 0.0, postgres_cpu(pg_data))
    sampler = Sampler(workers).start()
    m.autonomous = True
    window_start = db_now(url) if workers else None
    start = time.perf_counter()
    threading.Thread(target=clock, daemon=True).start()
    loaded: list[float] = []
    paused_idle: list[float] = []
    queue = psycopg.connect(libpq(url), autocommit=True) if workers is not None else None
    user_status: list[str] = []
    spacing = args.duration / (args.user_sends + 1)
    for i in range(args.user_sends):
        time.sleep(max(0.0, start + spacing * (i + 1) - time.perf_counter()))
        took, status = first_token(m, f"混んでいる? {i}")
        loaded.append(took)
        user_status.append(status)
        # Interleaved idle: the clock paused until the city is quiet, then the same send. Beside the
        # loaded send in time, the machine's load moves both alike (the ratio's denominator).
        time.sleep(max(0.0, start + spacing * (i + 1.5) - time.perf_counter()))
        paused.set()
        quiet_until = time.perf_counter() + 30
        while (m.pulses.busy() or (queue is not None and backlog(queue))) and time.perf_counter() < quiet_until:
            time.sleep(0.02)
        paused_idle.append(first_token(m, f"静かになった? {i}")[0])
        paused.clear()
    time.sleep(max(0.0, args.duration - (time.perf_counter() - start)))
    if queue is not None:
        queue.close()
    stop.set()
    m.autonomous = False
    elapsed = time.perf_counter() - start
    sampler.stop()
    cpu1 = (cpu_seconds(), workers.cpu() if workers else 0.0, postgres_cpu(pg_data))
    if workers is not None:
        q = queue_figures(url, window_start, db_now(url))
        latencies, done, stat = q["latencies"], q["ended"], q["statuses"]
        extra = {"queue_wait_p50_ms": round(pct(q["waits"], 0.5) * 1000, 1),
                 "queue_wait_p95_ms": round(pct(q["waits"], 0.95) * 1000, 1),
                 "backlog_at_end": q["backlog_at_end"], "user_queue_wait_s": q["user_queue_wait_s"],
                 "queue_tables_kb_per_1000_pulses": round(q["queue_tables_bytes"] / 1024 / max(done, 1) * 1000, 1),
                 "workers_alive_at_end": workers.alive()}
    else:
        with lock:
            done = sum(v for k, v in statuses.items() if not k.startswith("tick:"))
            stat = dict(statuses)
        extra = {}
    with lock:
        stat.update({k: v for k, v in statuses.items() if k.startswith("tick:")})
    figures: dict[str, Any] = {
        "store": m.db.engine.dialect.name, "processes": args.processes,
        "concurrency": args.concurrency if workers else args.workers,
        "personas": args.personas, "interval_s": args.interval, "duration_s": round(elapsed, 1),
        "demand_per_s": round(args.personas / args.interval, 2), "submitted": submitted[0],
        "ended": done, "sustained_per_s": round(done / elapsed, 2), "statuses": stat,
        "pulse_p50_ms": round(pct(latencies, 0.5) * 1000, 1), "pulse_p95_ms": round(pct(latencies, 0.95) * 1000, 1),
        **extra,
        "user_first_token_idle_ms": round(statistics.median(idle) * 1000, 1),
        "user_first_token_loaded_ms": round(statistics.median(loaded) * 1000, 1),
        "user_first_token_paused_ms": round(statistics.median(paused_idle) * 1000, 1),
        "user_ratio": round(statistics.median(loaded) / statistics.median(idle), 2),
        "user_ratio_interleaved": round(statistics.median(loaded) / statistics.median(paused_idle), 2),
        "user_loaded_p90_ms": round(pct(loaded, 0.9) * 1000, 1),
        "user_loaded_max_ms": round(max(loaded) * 1000, 1), "user_statuses": user_status,
        **sampler.summary(),
        "db_growth_kb_per_1000_pulses": round((db_bytes(m) - size0) / 1024 / max(done, 1) * 1000, 1),
        "threads": threading.active_count(),
        # CPU ms per ended pulse, this run's user sends and ticks included (postgres: a local cluster only)
        "cpu_ms_per_pulse_app_workers_postgres": [round((b - a) * 1000 / max(done, 1), 1)
                                                  for a, b in zip(cpu0, cpu1, strict=True)],
    }
    print(f"demand {figures['demand_per_s']}/s  sustained {figures['sustained_per_s']}/s  "
          f"({figures['ended']} pulses in {figures['duration_s']} s, statuses {figures['statuses']})")
    print(f"pulse latency p50 {figures['pulse_p50_ms']} ms  p95 {figures['pulse_p95_ms']} ms")
    print(f"user first token: idle {figures['user_first_token_idle_ms']} ms, loaded "
          f"{figures['user_first_token_loaded_ms']} ms (x{figures['user_ratio']}); interleaved with the city "
          f"paused and quiet: {figures['user_first_token_paused_ms']} ms → x{figures['user_ratio_interleaved']}")
    print(f"load average (1 min) min/median/max {figures['load1_min_med_max']}; app RSS MiB "
          f"{figures['app_rss_mb_start_third_end']}; workers {figures.get('worker_rss_mb_start_third_end', '-')}; "
          f"db growth {figures['db_growth_kb_per_1000_pulses']} KiB per 1,000 pulses; CPU ms per pulse (app, "
          f"workers, postgres) {figures['cpu_ms_per_pulse_app_workers_postgres']}")
    print(json.dumps(figures, ensure_ascii=False), flush=True)
    return 0


def ids_of(m: SAIVerseManager) -> list[str]:
    """The benchmark city's personas (made by make_city), in order."""
    return sorted(p.persona_id for p in m.world.personas() if p.persona_id[:1] == "c" and "-" in p.persona_id)


if __name__ == "__main__":
    sys.exit(main())
