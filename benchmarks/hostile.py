"""Hostile-input benchmark: how long each input that used to hang or blow up takes to be refused.

    python benchmarks/hostile.py [--runs 5]

In process, without the CLI's start-up: validating playbooks of 1,000 (the limit) and 14,000 nodes,
the expression bombs of issue 20, `document_search`'s matcher on catastrophic patterns, and opening a
FIFO. The issue's probe measured 26 s (14,000 nodes), > 60 s at 2.1 GB (the `set` bomb), forever (FIFO,
the patterns under `re`). Prints one line per case (median ms) and, last, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402


def _chain(n: int) -> dict[str, object]:
    return {"name": f"chain{n}", "nodes": [{"id": f"{i}", "type": "pass", "next": f"{i + 1}" if i < n - 1 else None}
                                           for i in range(n)]}


def _time(fn: Callable[[], object], runs: int) -> tuple[float, str]:
    times, outcome = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        try:
            value = fn()
            outcome = f"refused: {value[:70]}" if isinstance(value, str) else "ok"
        except Exception as exc:  # noqa: BLE001 - the refusal is what is measured
            outcome = f"{type(exc).__name__}: {str(exc)[:70]}"
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import regex

    from saiverse.inputs import open_regular
    from sea.expr import evaluate, syntax_problem
    from sea.playbook import load_playbook_file, parse_playbook
    from sea.validate import validate_playbook
    from tools.defs.document_search import _matching_lines

    work = scratch("sv-hostile-")
    big_text, ok_text = json.dumps(_chain(14_000)), json.dumps(_chain(1_000))
    line = "a" * 32 + "!"

    def validate(text: str) -> None:
        validate_playbook(parse_playbook(text), playbooks={}, tools=set())

    cases: dict[str, Callable[[], object]] = {
        "validate 1,000 nodes (accepted)": lambda: validate(ok_text),
        "validate 14,000 nodes (refused)": lambda: validate(big_text),
        "set str([[[0]*10000]*10000]*10000) at validation": lambda: syntax_problem("=str([[[0]*10000]*10000]*10000)"),
        "the same bomb from variables, at run time": lambda: evaluate("=str([[[0]*{n}]*{n}]*{n})", {"n": 10_000}),
        "1,990-deep unary minus at validation": lambda: syntax_problem("=" + "-" * 1990 + "1"),
    }
    if hasattr(os, "mkfifo"):  # FIFOs and /dev/zero are POSIX's; Windows has neither in its file system
        fifo = work / "pipe.json"
        os.mkfifo(fifo)
        cases["playbook file that is a FIFO"] = lambda: load_playbook_file(fifo)
        cases["upload / restore file that is a FIFO"] = lambda: open_regular(fifo)
        cases["playbook file /dev/zero"] = lambda: load_playbook_file("/dev/zero")
    for pattern in ("(a+)+$", "(a*)*b", "^(a|a?)+$", "(a|aa)+$"):
        compiled = regex.compile(pattern, regex.IGNORECASE)
        cases[f"document_search {pattern} on 'a'*32+'!'"] = \
            lambda c=compiled, p=pattern: _matching_lines(c, ["一行目", line, "三行目"], p)
    results = {}
    for name, fn in cases.items():
        ms, outcome = _time(fn, 1 if "aa" in name else args.runs)
        results[name] = {"median_ms": round(ms, 2), "outcome": outcome}
        print(f"{name:<52} {ms:10.2f} ms  {outcome}")
    print(json.dumps(results, ensure_ascii=False))


if __name__ == "__main__":
    main()
