"""The city benchmark's worker-process half (benchmarks/city.py --processes N).

`python main.py worker --concurrency C` subprocesses (saiverse/pulse/_queue.py) take the pulses from
the queue in PostgreSQL; the benchmark process plays the app's part with
`SAIVERSE_PULSE_WORKERS_REMOTE=1`: its clock runs the autonomous tick, which defers each due persona's
turn as a job, and the user's messages are deferred and streamed back over LISTEN/NOTIFY exactly as
the app's chat does. An autonomous pulse is not followed by the process that deferred it, so its
figures are read from procrastinate's own tables: a job's `deferred` and last `succeeded`/`failed`
event give its latency, and jobs ending inside the run's window its throughput.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import psycopg

from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[1]
ENDED = ("succeeded", "failed", "cancelled", "aborted")


def rss_of(pid: int | None = None) -> float:
    """A process's resident set size (this process's without `pid`), in MiB (0 once it has gone)."""
    try:
        return psutil.Process(pid).memory_info().rss / 1_048_576
    except psutil.NoSuchProcess:
        return 0.0


def cpu_seconds(pid: int | None = None, *, children: bool = False) -> float:
    """User + system CPU time of a process (with `children`, also of its ended, waited-for children:
    psutil reads those on Linux only, elsewhere they count 0)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system + ((times.children_user + times.children_system) if children else 0.0)


def postgres_cpu(data_dir: Path | None) -> float:
    """CPU seconds of a local cluster: the postmaster, its ended backends, and those alive now."""
    if data_dir is None or not (data_dir / "postmaster.pid").exists():
        return 0.0
    master = int((data_dir / "postmaster.pid").read_text().split()[0])
    total = cpu_seconds(master, children=True)
    for proc in psutil.process_iter(["ppid"]):
        if proc.info["ppid"] == master:
            total += cpu_seconds(proc.pid)
    return total


def libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


class Workers:
    """N `python main.py worker` subprocesses on the city's database and home."""

    def __init__(self, count: int, concurrency: int, home: Path, url: str) -> None:
        self.procs: list[subprocess.Popen[str]] = []
        env = {**os.environ, "SAIVERSE_HOME": str(home), "SAIVERSE_DATABASE_URL": url,
               "SAIVERSE_PULSE_WORKERS_REMOTE": "0",
               # the worker's own pool keeps one slot free of autonomous turns (saiverse/pulse/_pool.py)
               "SAIVERSE_PULSE_WORKERS": str(max(8, concurrency + 1))}
        logs = home / "worker-logs"
        logs.mkdir(exist_ok=True)
        for i in range(count):
            out, err = logs / f"worker-{i}.out", open(logs / f"worker-{i}.log", "w")  # noqa: SIM115 - kept open
            with open(out, "w") as fh:
                proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "worker", "--concurrency",
                                         str(concurrency)], stdout=fh, stderr=err, text=True, env=env, cwd=str(ROOT))
            deadline = time.monotonic() + 180
            while not out.read_text().strip() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            line = out.read_text().splitlines()[0] if out.read_text().strip() else ""
            if not line.startswith("{") or json.loads(line).get("type") != "worker_started":
                tail = (logs / f"worker-{i}.log").read_text()[-2000:]
                raise RuntimeError(f"worker {i} did not start: {line!r}; its stderr ends:\n{tail}")
            self.procs.append(proc)

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.procs)

    def rss(self) -> list[float]:
        return [round(rss_of(p.pid), 1) for p in self.procs]

    def alive(self) -> int:
        return sum(1 for p in self.procs if p.poll() is None)

    def stop(self) -> None:
        stop_all(self.procs, timeout=60)


class Sampler:
    """Every `every` s: the load average and the RSS of this process and of each worker."""

    def __init__(self, workers: Workers | None, every: float = 5.0) -> None:
        self.workers, self.every = workers, every
        self.samples: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._run, daemon=True, name="bench-sampler")

    def start(self) -> Sampler:
        self._sample()
        self._thread.start()
        return self

    def _sample(self) -> None:
        self.samples.append({"t": round(time.perf_counter() - self._t0, 1), "load1": round(psutil.getloadavg()[0], 2),
                             "app_mb": round(rss_of(), 1),
                             "workers_mb": self.workers.rss() if self.workers else []})

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sample()

    def summary(self) -> dict[str, Any]:
        """RSS at the start, after the first third (warm-up) and at the end, per process; load min/median/max."""
        s = self.samples
        third = s[min(len(s) - 1, max(1, len(s) // 3))]
        loads = sorted(x["load1"] for x in s)
        out: dict[str, Any] = {
            "load1_min_med_max": [loads[0], loads[len(loads) // 2], loads[-1]],
            "app_rss_mb_start_third_end": [s[0]["app_mb"], third["app_mb"], s[-1]["app_mb"]],
        }
        if self.workers:
            out["worker_rss_mb_start_third_end"] = [[s[0]["workers_mb"][i], third["workers_mb"][i],
                                                     s[-1]["workers_mb"][i]] for i in range(len(self.workers.procs))]
        return out


def db_now(url: str) -> Any:
    with psycopg.connect(libpq(url), autocommit=True) as conn:
        return conn.execute("SELECT clock_timestamp()").fetchone()[0]  # type: ignore[index]


def backlog(conn: psycopg.Connection) -> int:
    """Pulse jobs waiting or running in the queue (on a kept autocommit connection: polled every 20 ms,
    a connection each time would fork a PostgreSQL backend each time, beside the send it waits for)."""
    return int(conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                            " AND status IN ('todo', 'doing')").fetchone()[0])  # type: ignore[index]


def queue_figures(url: str, start: Any, end: Any) -> dict[str, Any]:
    """Autonomous pulses from procrastinate's tables: those that ended in [start, end], their latency
    (deferred → ended) and wait (deferred → started), the backlog left, and the user's pulses' wait."""
    with psycopg.connect(libpq(url), autocommit=True) as conn:
        rows = conn.execute(
            """SELECT j.args->>'kind', j.status::text,
                      min(e.at) FILTER (WHERE e.type = 'deferred'),
                      min(e.at) FILTER (WHERE e.type = 'started'),
                      max(e.at) FILTER (WHERE e.type::text = ANY(%s))
               FROM procrastinate_jobs j JOIN procrastinate_events e ON e.job_id = j.id
               WHERE j.task_name = 'saiverse.run_pulse' GROUP BY j.id""", (list(ENDED),)).fetchall()
        queue_bytes = conn.execute(
            "SELECT pg_total_relation_size('procrastinate_jobs') + pg_total_relation_size('procrastinate_events')"
        ).fetchone()[0]  # type: ignore[index]
        backlog = conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                               " AND status IN ('todo', 'doing')").fetchone()[0]  # type: ignore[index]
    lat, wait, statuses, user_wait = [], [], {}, {"idle": [], "loaded": []}
    for kind, status, deferred, started, ended in rows:
        if kind == "user" and started and deferred:
            user_wait["idle" if deferred < start else "loaded"].append(round((started - deferred).total_seconds(), 3))
        if kind != "auto" or ended is None or not (start <= ended <= end):
            continue
        statuses[status] = statuses.get(status, 0) + 1
        lat.append((ended - deferred).total_seconds())
        if started:
            wait.append((started - deferred).total_seconds())
    return {"ended": sum(statuses.values()), "statuses": statuses, "latencies": lat, "waits": wait,
            "backlog_at_end": int(backlog), "queue_tables_bytes": int(queue_bytes), "user_queue_wait_s": user_wait}
