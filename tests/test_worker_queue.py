"""The pulse workers' queue beyond one pulse, on a real PostgreSQL cluster (tests/support/pg.py).

Users first across worker processes (saiverse/pulse/_usergate.py): a user's pulse announced on the
`saiverse_users` channel by another worker holds this worker's autonomous pulses (a schedule still
runs) until it is announced ended; a hold whose worker never says `end` (killed) expires, sooner for a
pulse an app queued that no worker started. And the
queue's tables do not grow for ever: finished jobs are pruned (saiverse/pulse/_queue.py).
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
            announce(conn, "p1", "start")
            _wait_for(pool.users_busy, "the hold")
            pool.put("a", AUTO_PRIORITY, "auto")
            pool.put("s", 1, "schedule")
            _wait_for(lambda: "schedule" in ran, "the schedule ran")
            assert ran == ["schedule"]  # two workers are free, yet the autonomous pulse gives way
            announce(conn, "someone-else", "end")  # an end never started here changes nothing
            announce(conn, "p1", "end")
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
            announce(conn, "p2", "start")  # and its worker is killed: no `end` ever comes
        _wait_for(lambda: len(calls) == 2, "the hold expired")
        assert calls == [("p2", True), ("p2", False)]
        assert not pool.users_busy()
    finally:
        gate.close()
        pool.shutdown(wait=WAIT)


def test_a_queued_users_pulse_holds_until_a_worker_takes_it_over(pg_url: str) -> None:
    pool = PulsePool(lambda _p: None, workers=2, reserved=1)
    gate = UserGate(pg_url, pool.hold, ttl=WAIT * 4, queued_ttl=0.5)
    try:
        assert gate.listening.wait(WAIT)
        with psycopg.connect(libpq_url(pg_url), autocommit=True) as conn:
            announce(conn, "q1", "queued")  # an app queued it, and no worker ever starts it
            _wait_for(pool.users_busy, "the queued pulse's hold")
            _wait_for(lambda: not pool.users_busy(), "the queued pulse's shorter hold expired")
            announce(conn, "q2", "queued")
            announce(conn, "q2", "start")  # a worker took it: the hold is a running pulse's now
            _wait_for(pool.users_busy, "the started pulse's hold")
            time.sleep(1.0)  # twice the queued hold
            assert pool.users_busy()
            announce(conn, "q2", "end")
            _wait_for(lambda: not pool.users_busy(), "the end released it")
    finally:
        gate.close()
        pool.shutdown(wait=WAIT)


def test_finished_jobs_leave_the_queue(pg_url: str) -> None:
    """`saiverse.prune_jobs` (saiverse/pulse/_queue.py): a job that succeeded two days ago goes, one that
    succeeded now stays, one that failed two days ago stays (kept a week)."""
    import asyncio

    from saiverse.pulse._queue import build_app, prune
    from saiverse.pulse._remote import RUN_PULSE, ensure_schema

    ensure_schema(pg_url)
    app = build_app(pg_url)
    with app.open():
        ids = [app.configure_task(name=RUN_PULSE).defer(pulse_id=f"p{i}") for i in range(3)]
    with psycopg.connect(libpq_url(pg_url), autocommit=True) as conn:
        for job_id, status in zip(ids, ("succeeded", "succeeded", "failed"), strict=True):
            conn.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", (job_id,))
            conn.execute("UPDATE procrastinate_jobs SET status = %s WHERE id = %s", (status, job_id))
        conn.execute("UPDATE procrastinate_events SET at = now() - interval '2 days' WHERE job_id = ANY(%s)",
                     ([ids[0], ids[2]],))

        async def run() -> None:
            async with app.open_async():
                await prune(app)

        asyncio.run(run())
        left = conn.execute("SELECT id FROM procrastinate_jobs ORDER BY id").fetchall()
    assert [r[0] for r in left] == [ids[1], ids[2]]
