"""Pulse overhead benchmark: a `meta_user` pulse on the offline model, every write included,
against a bare LangGraph `StateGraph` of as many trivial nodes as the pulse runs, interleaved.

    python benchmarks/pulse.py [--pulses 1000] [--home DIR]

Each pulse is followed by one bare-graph run, so load from other processes on the machine falls on
both alike; the ratio of the medians is the figure that matters. Prints min / median / p95 of both
and the ratio, and the CPU time of each (process time, all threads: a loaded machine stretches a
pulse's two threads' wall time more than the one-thread bare graph, but not their CPU time); the
last line is one JSON object with the figures. Also reports resident memory
after 100 and after all pulses (a leak shows as growth between the two).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psutil  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402

from portable import peak_rss_mib  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def rss_mb() -> float:
    """Current resident set size, in MiB."""
    return psutil.Process().memory_info().rss / 1_048_576


class _S(TypedDict, total=False):
    n: int


def bare_graph(nodes: int):  # type: ignore[no-untyped-def]
    g = StateGraph(_S)
    for i in range(nodes):
        g.add_node(f"n{i}", lambda s: {"n": s.get("n", 0) + 1})
    g.add_edge(START, "n0")
    for i in range(nodes - 1):
        g.add_edge(f"n{i}", f"n{i + 1}")
    g.add_edge(f"n{nodes - 1}", END)
    return g.compile()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pulses", type=int, default=1000)
    ap.add_argument("--home", help="data home to use (default: a temp dir)")
    args = ap.parse_args()
    if args.home:
        return run(Path(args.home), args.pulses)
    with tempfile.TemporaryDirectory(prefix="saiverse-bench-") as home:  # removed at the end
        return run(Path(home), args.pulses)


def run(home: Path, pulses: int) -> int:
    """Open the home, warm up, then `pulses` pulses interleaved with the bare graph; prints the figures."""
    manager = SAIVerseManager(load_settings(home, default_model="offline"))
    texts = ["こんにちは", "おすすめの本は？", "今日はいい天気ですね", "猫の話をしよう", "ありがとう"]

    # warm up (graph compilation, caches)
    for t in texts:
        list(manager.handle_user_input("library", t, persona_id="mina"))

    last = list(manager.handle_user_input("library", texts[0], persona_id="mina"))[-1]
    record = manager.pulses.record(last["pulse_id"])
    nodes = len(record.trace) if record else 0
    graph = bare_graph(nodes)
    graph.invoke({"n": 0})
    pulse_ms: list[float] = []
    bare_ms: list[float] = []
    node_counts: list[int] = []
    rss_100 = 0.0
    pulse_cpu: list[float] = []
    bare_cpu: list[float] = []
    for i in range(pulses):
        c0, t0 = time.process_time(), time.perf_counter()
        events = list(manager.handle_user_input("library", texts[i % len(texts)], persona_id="mina"))
        c1, t1 = time.process_time(), time.perf_counter()
        graph.invoke({"n": 0})
        bare_ms.append((time.perf_counter() - t1) * 1000)
        bare_cpu.append((time.process_time() - c1) * 1000)
        pulse_ms.append((t1 - t0) * 1000)
        pulse_cpu.append((c1 - c0) * 1000)
        assert events[-1]["status"] == "ok", events
        record = manager.pulses.record(events[-1]["pulse_id"])
        node_counts.append(len(record.trace) if record else 0)
        if i + 1 == 100:
            rss_100 = rss_mb()
    rss_end = rss_mb()
    manager.close()
    if set(node_counts) != {nodes}:
        print(f"note: pulses ran {sorted(set(node_counts))} nodes; the bare graph has {nodes}")

    figures = {
        "pulses": pulses,
        "nodes_per_pulse": nodes,
        "pulse_min_ms": round(min(pulse_ms), 3),
        "pulse_p50_ms": round(statistics.median(pulse_ms), 3),
        "pulse_p95_ms": round(pct(pulse_ms, 0.95), 3),
        "bare_graph_min_ms": round(min(bare_ms), 3),
        "bare_graph_p50_ms": round(statistics.median(bare_ms), 3),
        "bare_graph_p95_ms": round(pct(bare_ms, 0.95), 3),
        "ratio_min": round(min(pulse_ms) / min(bare_ms), 2),
        "ratio_p50": round(statistics.median(pulse_ms) / statistics.median(bare_ms), 2),
        "pulse_cpu_p50_ms": round(statistics.median(pulse_cpu), 3),
        "bare_graph_cpu_p50_ms": round(statistics.median(bare_cpu), 3),
        "ratio_cpu_p50": round(statistics.median(pulse_cpu) / max(statistics.median(bare_cpu), 1e-6), 2),
        "rss_after_100_mb": round(rss_100, 1),
        "rss_after_all_mb": round(rss_end, 1),
        "rss_growth_pct": round((rss_end - rss_100) / rss_100 * 100, 1) if rss_100 else None,
        "max_rss_mb": round(peak_rss_mib() or 0.0, 1),
    }
    f = figures
    print(f"meta_user pulse (offline, all writes): min {f['pulse_min_ms']} ms, p50 {f['pulse_p50_ms']} ms, "
          f"p95 {f['pulse_p95_ms']} ms")
    print(f"bare StateGraph, {nodes} trivial nodes:  min {f['bare_graph_min_ms']} ms, p50 {f['bare_graph_p50_ms']} ms, "
          f"p95 {f['bare_graph_p95_ms']} ms")
    print(f"ratio (interleaved): min {f['ratio_min']}x, p50 {f['ratio_p50']}x; CPU time p50 {f['pulse_cpu_p50_ms']} vs "
          f"{f['bare_graph_cpu_p50_ms']} ms = {f['ratio_cpu_p50']}x (all threads)")
    print(f"RSS after 100: {f['rss_after_100_mb']} MiB, after {pulses}: {f['rss_after_all_mb']} MiB "
          f"({f['rss_growth_pct']}%)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
