"""Subprocesses the tests and benchmarks start (workers, apps, model servers): waiting until one
serves, stopping them."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterable
from typing import Any

import httpx


def wait_serving(proc: subprocess.Popen, url: str, *, timeout: float, output: Callable[[], str],  # type: ignore[type-arg]
                 every: float = 0.1, verify: Any = True) -> None:
    """Poll `url` until it answers 200. Fails with the end of `output()` (the process's log) if the
    process exits first, or after `timeout` s. `verify`: httpx's (an SSLContext trusting a test certificate)."""
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, f"{proc.args[:3]} exited: {output()[-3000:]}"
        try:
            if httpx.get(url, timeout=5, verify=verify).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{url}: no HTTP 200 within {timeout:.0f} s"
        time.sleep(every)


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
