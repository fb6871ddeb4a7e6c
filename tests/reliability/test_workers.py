"""Background workers that survive: the pulse pool's order and exclusivity, and no silent deaths.

The pulse pool (saiverse/pulse/_pool.py) runs a user's job before every waiting autonomous one,
never two jobs of one persona at once, keeps a worker free of autonomous jobs, pauses running
autonomous jobs at their safe points while a user's job runs, and outlives a job that raises. The ticker, the Chronicle worker and `handle_user_input` survive a database that
refuses (SQLAlchemy's pool timeout, raised where the real one would be): logged, retried on the
next round, an `error` event for the user — never a dead thread or an exception in the caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout

from saiverse.manager import SAIVerseManager
from saiverse.memory import ChronicleWorker
from saiverse.pulse._pool import PulsePool
from saiverse.ticker import Ticker
from tests.support.models import MakeManager

WAIT = 30.0
"""How long a test waits for something that should happen at once (a liveness bound, not a timing)."""


class Jobs:
    """Records the order jobs ran in; a job named in `hold` waits for `release`."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.started = {name: threading.Event() for name in ("hold", "hold2")}
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.overlap: list[str] = []
        self._active: set[str] = set()

    def run(self, payload: tuple[str, str]) -> None:
        persona, name = payload
        with self.lock:
            if persona in self._active:
                self.overlap.append(persona)
            self._active.add(persona)
            self.order.append(name)
        if name in self.started:
            self.started[name].set()
            assert self.release.wait(WAIT)
        if name == "boom":
            raise RuntimeError("a job that raises")
        with self.lock:
            self._active.discard(persona)


def _wait_for(cond: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(WAIT * 20)):
        if cond():
            return
        done.wait(0.05)
    raise AssertionError("condition never became true")


def test_user_job_before_every_waiting_autonomous_job() -> None:
    jobs = Jobs()
    pool = PulsePool(jobs.run, workers=1, reserved=0)
    try:
        pool.put("x", 1, ("x", "hold"))  # occupies the only worker
        assert jobs.started["hold"].wait(WAIT)
        for i in range(5):
            pool.put(f"a{i}", 2, (f"a{i}", f"auto{i}"))
        pool.put("s", 1, ("s", "schedule"))
        pool.put("u", 0, ("u", "user"))
        jobs.release.set()
        _wait_for(lambda: len(jobs.order) == 8)
        assert jobs.order == ["hold", "user", "schedule", "auto0", "auto1", "auto2", "auto3", "auto4"]
    finally:
        pool.shutdown(wait=WAIT)


def test_autonomous_jobs_leave_a_worker_for_the_user() -> None:
    jobs = Jobs()
    pool = PulsePool(jobs.run, workers=2, reserved=1)
    try:
        pool.put("a", 2, ("a", "hold"))
        assert jobs.started["hold"].wait(WAIT)
        pool.put("b", 2, ("b", "auto-b"))  # must wait: the second worker is kept for users
        pool.put("u", 0, ("u", "hold2"))
        assert jobs.started["hold2"].wait(WAIT)  # the user's job runs beside the autonomous one
        assert jobs.order == ["hold", "hold2"]
        jobs.release.set()
        _wait_for(lambda: len(jobs.order) == 3)
        assert jobs.order[-1] == "auto-b"
    finally:
        jobs.release.set()
        pool.shutdown(wait=WAIT)


def test_no_autonomous_job_starts_while_a_user_job_runs() -> None:
    """On few cores a user's reply competes with no new autonomous turn (benchmarks/city.py)."""
    jobs = Jobs()
    pool = PulsePool(jobs.run, workers=4, reserved=1)
    try:
        pool.put("u", 0, ("u", "hold"))
        assert jobs.started["hold"].wait(WAIT)
        pool.put("a", 2, ("a", "auto-a"))
        pool.put("s", 1, ("s", "schedule"))  # a schedule is not held back
        _wait_for(lambda: "schedule" in jobs.order)
        assert "auto-a" not in jobs.order  # two workers are free, yet the autonomous turn waits
        jobs.release.set()
        _wait_for(lambda: "auto-a" in jobs.order)
    finally:
        jobs.release.set()
        pool.shutdown(wait=WAIT)


def test_a_running_autonomous_job_gives_way_to_a_user_job() -> None:
    """A running autonomous pulse pauses at its safe points while a user's pulse runs
    (saiverse/pulse/_controller.py YieldingToken reads `yield_to_users` between nodes)."""
    order: list[str] = []
    auto_started, user_started = threading.Event(), threading.Event()
    release, paused = threading.Event(), threading.Event()

    def run(payload: tuple[str, str]) -> None:
        persona, name = payload
        if name == "user":
            user_started.set()
            assert release.wait(WAIT)
            order.append("user ends")
        else:  # an autonomous pulse reaching a safe point while the user's pulse runs
            auto_started.set()
            assert user_started.wait(WAIT)
            paused.set()
            pool.yield_to_users(lambda: False, limit=WAIT)
            order.append("auto goes on")

    pool = PulsePool(run, workers=3, reserved=1)
    try:
        pool.put("a", 2, ("a", "auto"))
        assert auto_started.wait(WAIT)  # running before the user's job comes
        pool.put("u", 0, ("u", "user"))
        assert paused.wait(WAIT)
        threading.Event().wait(0.2)  # give a pool that did not pause the chance to run ahead
        assert order == []
        release.set()
        _wait_for(lambda: len(order) == 2)
        assert order == ["user ends", "auto goes on"]
        pool.yield_to_users(lambda: False, limit=WAIT)  # no user's pulse runs: returns at once
    finally:
        release.set()
        pool.shutdown(wait=WAIT)


def test_the_interpreter_switches_threads_often_while_a_user_job_runs() -> None:
    """The GIL is handed back to a user's pulse sooner while it runs (saiverse/pulse/_pool.py)."""
    import sys

    from saiverse.pulse._pool import USER_SWITCH_INTERVAL

    default = sys.getswitchinterval()
    seen: dict[str, float] = {}
    jobs = Jobs()

    def run(payload: tuple[str, str]) -> None:
        seen[payload[1]] = sys.getswitchinterval()
        jobs.run(payload)

    pool = PulsePool(run, workers=3, reserved=1)
    try:
        pool.put("a", 2, ("a", "auto"))
        _wait_for(lambda: "auto" in jobs.order)
        pool.put("u", 0, ("u", "hold"))
        assert jobs.started["hold"].wait(WAIT)
        assert sys.getswitchinterval() == USER_SWITCH_INTERVAL
        jobs.release.set()
        _wait_for(lambda: pool.running_count() == 0)
        assert seen == {"auto": default, "hold": USER_SWITCH_INTERVAL}
        assert sys.getswitchinterval() == default  # restored once no user's job runs
    finally:
        jobs.release.set()
        pool.shutdown(wait=WAIT)


def test_a_hold_nobody_ends_expires() -> None:
    """A hold whose owner never ends it (an abandoned send, a dead worker) stops autonomous turns for
    its deadline, not for good."""
    jobs = Jobs()
    jobs.release.set()
    pool = PulsePool(jobs.run, workers=2, reserved=1)
    try:
        pool.hold("abandoned", True, ttl=0.5)
        pool.put("a", 2, ("a", "auto"))
        threading.Event().wait(0.2)
        assert "auto" not in jobs.order and pool.users_busy()
        _wait_for(lambda: "auto" in jobs.order)  # the idle worker looked at the deadline again
        assert not pool.users_busy()
    finally:
        pool.shutdown(wait=WAIT)


def test_a_paused_autonomous_job_still_hears_its_cancel() -> None:
    started, release = threading.Event(), threading.Event()
    pool = PulsePool(lambda _p: (started.set(), release.wait(WAIT)), workers=2, reserved=1)
    try:
        pool.put("u", 0, "user")
        assert started.wait(WAIT)
        cancelled = threading.Event()
        threading.Timer(0.1, cancelled.set).start()
        pool.yield_to_users(cancelled.is_set, limit=WAIT)  # returns on the cancel, the user's job still runs
        assert cancelled.is_set() and not release.is_set()
    finally:
        release.set()
        pool.shutdown(wait=WAIT)


def test_one_job_per_persona_and_a_raising_job_keeps_the_worker() -> None:
    jobs = Jobs()
    jobs.release.set()
    pool = PulsePool(jobs.run, workers=4, reserved=1)
    try:
        pool.put("p", 0, ("p", "boom"))
        for i in range(30):
            pool.put(f"p{i % 3}", i % 3, (f"p{i % 3}", f"job{i}"))
        _wait_for(lambda: len(jobs.order) == 31)
        assert jobs.overlap == []
        assert len([t for t in threading.enumerate() if t.name.startswith("pulse-") and t.is_alive()]) >= 4
        pool.put("p", 0, ("p", "after"))  # the worker that ran "boom" still takes jobs
        _wait_for(lambda: "after" in jobs.order)
    finally:
        pool.shutdown(wait=WAIT)


def test_ticker_survives_a_failing_round(caplog: pytest.LogCaptureFixture) -> None:
    rounds: list[int] = []
    second = threading.Event()

    def tick() -> list[Any]:
        rounds.append(1)
        if len(rounds) == 1:
            raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached")
        second.set()
        return []

    ticker = Ticker(tick, lambda emit: None, interval=0.05)
    ticker.start()
    try:
        assert second.wait(WAIT), "the ticker died after a failing round"
    finally:
        ticker.stop()
    assert "ticker round failed" in caplog.text


def test_chronicle_worker_survives_a_failing_round() -> None:
    calls: list[int] = []
    later = threading.Event()

    def personas() -> list[str]:
        calls.append(1)
        if len(calls) == 1:
            raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached")
        later.set()
        return []

    worker = ChronicleWorker(builder=None, personas=personas, interval=0.05)  # type: ignore[arg-type]
    worker.start()
    try:
        assert later.wait(WAIT), "the Chronicle worker died after a failing round"
        assert worker._thread is not None and worker._thread.is_alive()
    finally:
        worker.stop()


def test_user_input_never_raises_on_a_busy_database(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(*_a: Any, **_k: Any) -> Any:
        raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00")

    monkeypatch.setattr(manager.world, "add_history", busy)
    events = list(manager.handle_user_input("library", "こんにちは"))
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["kind"] == "busy"
    monkeypatch.undo()
    ends = [e for e in manager.handle_user_input("library", "もう一度") if e["type"] == "pulse_end"]
    assert ends and all(e["status"] == "ok" for e in ends)


def test_a_users_message_holds_autonomous_pulses_until_its_pulse_starts(make_manager: MakeManager) -> None:
    """From the message's first step, before it is stored and its pulse queued (saiverse/manager.py);
    at the pulse's start the pool holds them itself; a send with no pulse lets go too."""
    from tests.support.models import ScriptedModel

    held_while_answering: list[bool] = []

    class Watching(ScriptedModel):
        """Notes, as it answers in the pulse's worker, whether autonomous pulses are held."""

        def generate(self, request: Any) -> Any:
            held_while_answering.append(manager.pulses.users_first())
            return super().generate(request)

    manager = make_manager(Watching())
    busy: list[tuple[str, bool]] = []
    for ev in manager.handle_user_input("library", "こんにちは", persona_id="mina"):
        busy.append((ev["type"], manager.pulses.users_first()))
        if ev["type"] == "pulse_end":
            break
    assert busy[0] == ("user_message", True), busy
    # The pulse's own hold follows the message's: on at every model call of the pulse. (Its events may
    # reach this reader only at its end, in one batch: saiverse/pulse/_journal.py, EventChannel.)
    assert held_while_answering and all(held_while_answering), held_while_answering
    _wait_for(lambda: not manager.pulses.users_first())
    refused = list(manager.handle_user_input("nowhere", "こんにちは"))
    assert refused[-1]["type"] == "error" and not manager.pulses.users_first()


def test_a_users_whole_send_runs_with_the_short_switch_interval(manager: SAIVerseManager) -> None:
    """From before the pulse is queued (the message stored) to its last event (saiverse/manager.py)."""
    import sys

    from saiverse.pulse._pool import USER_SWITCH_INTERVAL

    default = sys.getswitchinterval()
    seen = [sys.getswitchinterval() for _ev in manager.handle_user_input("library", "こんにちは", persona_id="mina")]
    assert seen and set(seen) == {USER_SWITCH_INTERVAL}
    assert sys.getswitchinterval() == default
