"""Stopping subprocesses the tests and benchmarks started (workers, apps)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable


def stop_all(procs: Iterable[subprocess.Popen], *, timeout: float = 30.0) -> None:  # type: ignore[type-arg]
    """SIGTERM every process still running, then wait for each (`timeout` s), killing one that does not end."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
