"""Start-up benchmark: `python main.py` to the first HTTP 200, and resident memory after 3 s idle,
against a bare `gr.Blocks` app with one `Chatbot`, interleaved.

    python benchmarks/startup.py [--runs 3] [--bare-without-ipython | --bare-lean]

Each run starts the real app on a free loopback port with a fresh data home (first run: migrate
and seed), then the bare Gradio app, then the real app again on the same home (a normal start),
then the bare app again: pairs, so load from other processes falls on both alike. Bytecode is
cached as Python does by default (only the very first start compiles the app's modules). Prints
min / median of each and the ratios (normal start / bare, its CPU time / bare, idle RSS / bare). The last line is one
JSON object. `python main.py` refuses Gradio's optional IPython import and the editor stubs Gradio
rewrites at each import (ui/_gradio_compat.py), and holds full collections until it serves (saiverse/heap.py);
`--bare-without-ipython` has the bare app refuse IPython too (what a machine without IPython shows),
`--bare-lean` all three: what the app's own work costs.
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

import psutil

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of the process and its direct children, in MiB (psutil: every system alike)."""
    total = 0.0
    try:
        procs = [psutil.Process(pid), *psutil.Process(pid).children()]
    except psutil.NoSuchProcess:
        return total
    for proc in procs:
        try:
            total += proc.memory_info().rss / 1_048_576
        except psutil.NoSuchProcess:
            pass
    return total


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used so far (its own threads)."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


BARE_APP = """
import sys
if sys.argv[2:] == ["no-ipython"]:
    sys.modules["IPython"] = None  # as python main.py does: Gradio's notebook magics are not loaded
heap = None
if sys.argv[2:3] == ["lean"]:  # as python main.py: ui/_gradio_compat.py and saiverse/heap.py, each loaded alone
    import importlib.util

    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    load("_lean", sys.argv[3]).lean_gradio()
    heap = load("_heap", sys.argv[4])
    heap.hold_full_collections()
import gradio as gr
with gr.Blocks() as demo:
    gr.Chatbot()
    gr.Textbox()
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), prevent_thread_lock=True)
if heap is not None:
    heap.settle()
demo.block_thread()
"""


def start_once(home: Path, *, bare: bool = False, bare_ipython: bool = True, bare_lean: bool = False
               ) -> tuple[float, float, float]:
    """(seconds to HTTP 200, CPU seconds the process used until then, resident MiB after 3 s idle)."""
    port = free_port()
    env = {**os.environ, "SAIVERSE_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False"}
    # A start as Python runs by default: modules compiled once and their bytecode cached. With
    # PYTHONDONTWRITEBYTECODE set (as on some development machines) every start would compile the
    # app's ~300 modules again, while the bare app's gradio comes precompiled with its install.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    bare_argv = [sys.executable, "-c", BARE_APP, str(port)] + (
        ["lean", str(ROOT / "ui" / "_gradio_compat.py"), str(ROOT / "saiverse" / "heap.py")] if bare_lean
        else [] if bare_ipython else ["no-ipython"])
    argv = bare_argv if bare else [sys.executable, str(ROOT / "main.py"), "--port", str(port)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=home)
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
            if time.perf_counter() - t0 > 180:
                raise RuntimeError("no HTTP 200 within 180 s")
        elapsed = time.perf_counter() - t0
        cpu = cpu_s(proc.pid)
        time.sleep(3)  # idle
        return elapsed, cpu, rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _stats(values: list[float]) -> str:
    return f"min {min(values):.2f}, median {statistics.median(values):.2f}"


def _run_pair(home: Path, args: argparse.Namespace, first: list[float], again: list[float], bare: list[float],
              rss: list[float], bare_rss: list[float], cpu: list[float], bare_cpu: list[float]) -> None:
    """One run: the home's first start, then bare, ours (a normal start), bare — each of ours between two bare."""
    home.mkdir(mode=0o700)
    t, _c, r = start_once(home)
    first.append(t)
    rss.append(r)
    for ours in (False, True, False):  # bare, ours (normal start), bare: each of ours between two bare
        t, c, r = start_once(home, bare=not ours, bare_ipython=not args.bare_without_ipython,
                             bare_lean=args.bare_lean)
        (again if ours else bare).append(t)
        (cpu if ours else bare_cpu).append(c)
        (rss if ours else bare_rss).append(r)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bare-without-ipython", action="store_true",
                    help="the bare app skips Gradio's IPython import too, as python main.py does (what a "
                         "machine without IPython installed would show)")
    ap.add_argument("--bare-lean", action="store_true",
                    help="the bare app does to its process what python main.py does: IPython and the editor "
                         "stubs Gradio rewrites at each import refused (ui/_gradio_compat.py), full collections held "
                         "until it serves (saiverse/heap.py) — the app's own cost alone")
    args = ap.parse_args()
    first, again, bare, rss, bare_rss, cpu, bare_cpu = [], [], [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="saiverse-start-") as root:  # every run's home, removed at the end
        for run in range(args.runs):
            _run_pair(Path(root) / f"home-{run}", args, first, again, bare, rss, bare_rss, cpu, bare_cpu)
    med = statistics.median
    figures = {
        "first_start_s": round(med(first), 2),
        "start_min_s": round(min(again), 2),
        "start_s": round(med(again), 2),
        "bare_start_min_s": round(min(bare), 2),
        "bare_start_s": round(med(bare), 2),
        "start_ratio": round(med(again) / med(bare), 2),
        "start_cpu_s": round(med(cpu), 2),
        "bare_start_cpu_s": round(med(bare_cpu), 2),
        "start_cpu_ratio": round(med(cpu) / med(bare_cpu), 2),
        "idle_rss_mb": round(med(rss), 1),
        "bare_idle_rss_mb": round(med(bare_rss), 1),
        "rss_ratio": round(med(rss) / med(bare_rss), 2),
        "runs": args.runs,
        "bare_without_ipython": args.bare_without_ipython,
        "bare_lean": args.bare_lean,
    }
    print(f"first start (migrate + seed) to HTTP 200: {_stats(first)} s")
    print(f"normal start to HTTP 200:                {_stats(again)} s")
    print(f"bare gr.Blocks + Chatbot to HTTP 200:    {_stats(bare)} s   ratio {figures['start_ratio']}x")
    print(f"CPU time to HTTP 200:                    {_stats(cpu)} s, bare {_stats(bare_cpu)} s   "
          f"ratio {figures['start_cpu_ratio']}x")
    print(f"resident memory after 3 s idle:          median {figures['idle_rss_mb']} MiB, bare "
          f"{figures['bare_idle_rss_mb']} MiB   ratio {figures['rss_ratio']}x")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
