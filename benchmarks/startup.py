"""Start-up benchmark: `python main.py` to the first HTTP 200, and resident memory once idle.

    python benchmarks/startup.py [--runs 3]

Each run starts the real app on a free loopback port with a fresh data home (first run: migrate
and seed) and again on the same home (a normal start). The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    total = 0.0
    for p in [pid, *children(pid)]:
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1_048_576
        except OSError:
            pass
    return total


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def start_once(home: Path) -> tuple[float, float]:
    port = free_port()
    env = {**os.environ, "SAIVERSE_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=home)
    try:
        url = f"http://127.0.0.1:{port}/"
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"main.py exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                time.sleep(0.02)
            if time.perf_counter() - t0 > 60:
                raise RuntimeError("no HTTP 200 within 60 s")
        elapsed = time.perf_counter() - t0
        time.sleep(3)  # idle
        return elapsed, rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    first, again, rss = [], [], []
    for _ in range(args.runs):
        home = Path(tempfile.mkdtemp(prefix="saiverse-start-"))
        t, r = start_once(home)
        first.append(t)
        t2, r2 = start_once(home)
        again.append(t2)
        rss += [r, r2]
    figures = {
        "first_start_s": round(statistics.median(first), 2),
        "start_s": round(statistics.median(again), 2),
        "idle_rss_mb": round(max(rss), 1),
        "runs": args.runs,
    }
    print(f"first start (migrate + seed) to HTTP 200: {figures['first_start_s']} s")
    print(f"normal start to HTTP 200:                {figures['start_s']} s")
    print(f"resident memory idle after start:        {figures['idle_rss_mb']} MiB (max over runs)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
