"""Users first across worker processes (saiverse/pulse/_usergate.py), on a real PostgreSQL cluster (tests/pg.py).

A user's pulse announced on the `saiverse_users` channel by another worker holds this worker's
autonomous pulses (a schedule still runs) until it is announced ended; a hold whose worker never
says `end` (killed) expires.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg

from saiverse.pulse._pool import AUTO_PRIORITY, PulsePool
from saiverse.pulse._remote import libpq_url
from saiverse.pulse._usergate import UserGate, announce

WAIT = 30.0
"""A liveness bound for what should happen at once, not a timing."""


def _wait_for(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def test_a_users_pulse_on_another_worker_holds_autonomous_pulses(pg_url: str) -> None:
    ran: list[str] = []
    pool = PulsePool(ran.append, workers=3, reserved=1)
    gate = UserGate(pg_url, pool.hold, ttl=WAIT * 4)
    try:
        assert gate.listening.wait(WAIT)
        with psycopg.connect(libpq_url(pg_url), autocommit=True) as conn:
            announce(conn, "p1", started=True)
            _wait_for(pool.users_busy, "the hold")
            pool.put("a", AUTO_PRIORITY, "auto")
            pool.put("s", 1, "schedule")
            _wait_for(lambda: "schedule" in ran, "the schedule ran")
            assert ran == ["schedule"]  # two workers are free, yet the autonomous pulse gives way
            announce(conn, "someone-else", started=False)  # an end never started here changes nothing
            announce(conn, "p1", started=False)
            _wait_for(lambda: "auto" in ran, "the autonomous pulse ran after the user's ended")
        assert not pool.users_busy()
    finally:
        gate.close()
        pool.shutdown(wait=WAIT)


def test_a_hold_whose_worker_died_expires(pg_url: str) -> None:
    calls: list[tuple[str, bool]] = []
    lock = threading.Lock()
    pool = PulsePool(lambda _p: None, workers=2, reserved=1)

    def hold(key: str, on: bool) -> None:
        with lock:
            calls.append((key, on))
        pool.hold(key, on)

    gate = UserGate(pg_url, hold, ttl=0.5)
    try:
        assert gate.listening.wait(WAIT)
        with psycopg.connect(libpq_url(pg_url), autocommit=True) as conn:
            announce(conn, "p2", started=True)  # and its worker is killed: no `end` ever comes
        _wait_for(lambda: len(calls) == 2, "the hold expired")
        assert calls == [("p2", True), ("p2", False)]
        assert not pool.users_busy()
    finally:
        gate.close()
        pool.shutdown(wait=WAIT)
