"""A city in PostgreSQL with worker subprocesses (`python main.py worker`, saiverse/pulse/_queue.py), for the
pulse-worker tests of tests/reliability/: `City`, its fixture `city` (registered in tests/reliability/conftest.py),
`queued(city)` (a manager whose pulses go to the queue) and `wait_for`, bounded by `WAIT`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse._remote import REMOTE_ENV, QueuedPulses, libpq_url
from saiverse.settings import load_settings
from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[2]
KILLAT = Path(__file__).with_name("killat.py")
WAIT = 90.0
"""A liveness bound for things that should happen within a few ticks, not a timing."""


def wait_for(cond: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"never happened: {what}")


class City:
    """A city in PostgreSQL with worker subprocesses."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.workers: list[subprocess.Popen[str]] = []
        manager = SAIVerseManager(load_settings())  # migrates and seeds the world
        try:
            persona = manager.world.personas()[0]
            self.persona_id, self.building_id = persona.persona_id, persona.building_id
        finally:
            manager.close()

    def worker(self, *, kill: tuple[str, str] | None = None, concurrency: int = 2,
               autonomous: bool = False) -> subprocess.Popen[str]:
        argv = ["worker", "--concurrency", str(concurrency), *(["--autonomous"] if autonomous else [])]
        cmd = [sys.executable, str(KILLAT), *kill, "--", *argv] if kill else [sys.executable, str(ROOT / "main.py"),
                                                                            *argv]
        log = open(Path.cwd() / f"worker-{len(self.workers)}.log", "w")  # noqa: SIM115 - kept while it runs
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True,
                                env={**os.environ, REMOTE_ENV: "0"})
        line = proc.stdout.readline() if proc.stdout else ""
        assert json.loads(line)["type"] == "worker_started", line
        self.workers.append(proc)
        return proc

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(libpq_url(self.url), autocommit=True) as conn:
            return list(conn.execute(query, params).fetchall())  # type: ignore[arg-type]

    def memory(self, pulse_id: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.sql(
            "SELECT ROLE, CONTENT FROM saimemory WHERE PULSE_ID = %s ORDER BY ID", pulse_id)]

    def stop(self) -> None:
        stop_all(self.workers)


@pytest.fixture
def city(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[City]:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    monkeypatch.setenv("SAIVERSE_WORKER_HEARTBEAT", "0.5")  # a killed worker is noticed after 1.5 s
    monkeypatch.setenv("SAIVERSE_WORKER_TICK", "1")
    c = City(pg_url)
    try:
        yield c
    finally:
        c.stop()


def queued(city: City) -> tuple[SAIVerseManager, QueuedPulses]:
    os.environ[REMOTE_ENV] = "1"
    try:
        manager = SAIVerseManager(load_settings(), seed=False)
    finally:
        del os.environ[REMOTE_ENV]
    assert isinstance(manager.pulses, QueuedPulses)
    return manager, manager.pulses
