"""The bounded pulse executor: a fixed pool of workers for every persona (docs/ARCHITECTURE.md, "Pulse").

A city of a thousand personas must not become a thousand threads (and a thousand database
connections). Jobs wait per persona in a priority heap (user > schedule > auto, FIFO within a
priority); a shared "ready" heap orders the personas that have work and are not running by the best
job each one waits with. A worker takes the best ready persona's best job, so:

- a persona runs one pulse at a time (it leaves the ready heap while it runs);
- a user's pulse is taken before every waiting schedule or autonomous one;
- autonomous pulses never occupy the last worker (`reserved`), so a user's pulse never waits
  behind a full pool of autonomous turns — only behind its own persona's running pulse;
- while a user's pulse runs, no autonomous pulse starts, and those running pause at their next safe
  point (`yield_to_users`: between nodes and between streamed chunks, where a pulse holds no
  transaction) until it ends, for at most `MAX_YIELD` per safe point;
- while a user's pulse runs, the interpreter switches threads every `USER_SWITCH_INTERVAL` instead
  of every 5 ms (`sys.setswitchinterval`, restored after): pulses are Python on one interpreter, and
  the user's pulse gives up the GIL at every database call and event; each time, it waited for a
  running autonomous turn to hand the GIL back, up to a switch interval. Measured interleaved on a
  busy city (benchmarks/RESULTS-city.md): a user's first token at median 11.8 ms with 0.5 ms against
  43.8 ms with 5 ms (idle: 5–7 ms).

A worker survives whatever the job raises (logged) and goes on with the next one.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

USER_PRIORITY = 0
"""The priority of a user's pulse (PRIORITY["user"] in saiverse/pulse/_controller.py)."""
AUTO_PRIORITY = 2
"""The priority of an autonomous pulse (PRIORITY["auto"] in saiverse/pulse/_controller.py)."""
USER_SWITCH_INTERVAL = 0.0005
"""Seconds between the interpreter's thread switches while a user's pulse runs in this process."""
_SWITCH = {"users": 0, "default": sys.getswitchinterval()}
_SWITCH_LOCK = threading.Lock()


def _user_pulses_here(delta: int) -> None:
    """Count users' pulses running in this process (every pool); the switch interval follows the count."""
    with _SWITCH_LOCK:
        if _SWITCH["users"] == 0 and delta > 0:
            _SWITCH["default"] = sys.getswitchinterval()
        _SWITCH["users"] += delta
        sys.setswitchinterval(USER_SWITCH_INTERVAL if _SWITCH["users"] > 0 else _SWITCH["default"])


@contextmanager
def user_turn() -> Iterator[None]:
    """A user's message being handled in this process, from before its pulse is queued (the message
    stored, the building read) to its last event: the short switch interval for all of it."""
    _user_pulses_here(+1)
    try:
        yield
    finally:
        _user_pulses_here(-1)


MAX_YIELD = 10.0
"""Seconds an autonomous pulse waits at one safe point for users' pulses to end before going on."""
HOLD_LIMIT = 60.0
"""Seconds a hold (`PulsePool.hold`) stands at most when nobody ends it."""
HOLD_RECHECK = 1.0
"""Seconds between a waiting worker's looks at a standing hold's deadline."""


@dataclass(order=True)
class PoolJob:
    """One waiting pulse: ordered by (priority, submission order)."""

    priority: int
    seq: int
    persona_id: str = field(compare=False)
    payload: Any = field(compare=False)


class PulsePool:
    """`workers` threads running `run(payload)` for jobs of many personas, one job per persona at a time."""

    def __init__(self, run: Callable[[Any], None], *, workers: int, reserved: int = 1, name: str = "pulse") -> None:
        if workers < 1:
            raise ValueError("a pulse pool needs at least one worker")
        self.workers = workers
        self.reserved = min(reserved, workers - 1)
        """Workers kept free of autonomous pulses (for users and schedules)."""
        self._run = run
        self._mutex = threading.RLock()
        self._cond = threading.Condition(self._mutex)
        self._idle: list[threading.Condition] = []
        """Idle workers, each waiting on its own condition over the same lock, the last to fall idle
        last: a job goes to the worker that was busy most recently, whose stack and caches are warm.
        (One condition for all woke them oldest first: every pulse ran on the worker idle longest.)"""
        self._seq = itertools.count()
        self._pending: dict[str, list[PoolJob]] = {}
        self._ready: list[tuple[int, int, str]] = []
        self._running: dict[str, int] = {}
        """persona id → priority of the job it runs now."""
        self._closed = False
        self._holds: dict[str, float] = {}
        """Users' pulses running in other processes (saiverse/pulse/_usergate.py), or a user's message being
        handled here before its pulse is queued: held like one running here, until the deadline at most."""
        self._users_idle = threading.Event()
        """Set while no user's job runs (read without the lock at every safe point of every pulse)."""
        self._users_idle.set()
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    # ---- submitting -----------------------------------------------------------------------
    def put(self, persona_id: str, priority: int, payload: Any) -> None:
        """Queue a job for a persona."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the pulse pool is shut down")
            job = PoolJob(priority, next(self._seq), persona_id, payload)
            heap = self._pending.setdefault(persona_id, [])
            heapq.heappush(heap, job)
            if persona_id not in self._running and heap[0] is job:
                # The persona's best job changed: it enters the ready heap with it (older entries
                # for the persona are skipped when popped, see _take).
                heapq.heappush(self._ready, (job.priority, job.seq, persona_id))
                if self._idle:
                    self._idle.pop().notify()

    def waiting(self, persona_id: str) -> int:
        """How many jobs of a persona wait (not counting the one it runs)."""
        with self._cond:
            return len(self._pending.get(persona_id, ()))

    def yield_to_users(self, cancelled: Callable[[], bool], *, limit: float = MAX_YIELD) -> None:
        """An autonomous pulse's safe point: wait while a user's job runs (until it ends, the pulse is
        cancelled, or `limit` seconds passed); returns at once when none runs."""
        if self._users_idle.is_set():
            return
        deadline = time.monotonic() + limit
        while not self._users_idle.wait(0.05) and not cancelled() and time.monotonic() < deadline:
            if self._holds:
                with self._cond:
                    self._user_running()  # a hold past its deadline lets the pulse go on

    def hold(self, key: str, on: bool, *, ttl: float = HOLD_LIMIT) -> None:
        """A user's pulse `key` runs (on=True) or ended (False) in another process, or a user's message is
        being handled here: autonomous pulses wait for it as for one of this pool's own, `ttl` s at most."""
        with self._cond:
            if on:
                self._holds[key] = time.monotonic() + ttl
            else:
                self._holds.pop(key, None)
            if not self._user_running() and self._ready:
                # The hold kept waiting jobs back: now they may run. With nothing ready, waking every
                # idle worker would only send each back to sleep — and a user's turn ends its hold
                # here when it reads its pulse's start, which with events handed over in batches is
                # after the pulse: 8 workers woke to take the GIL from the caller after every pulse.
                self._wake_all()

    def users_busy(self) -> bool:
        """Whether a user's pulse runs, here or (held) elsewhere."""
        return not self._users_idle.is_set()

    def running_count(self) -> int:
        with self._cond:
            return len(self._running)

    def shutdown(self, *, wait: float = 0.0) -> None:
        """Stop taking jobs; workers end after their current job (waits up to `wait` s for them)."""
        with self._cond:
            self._closed = True
            self._wake_all()
        for t in self._threads:
            t.join(wait) if wait else None

    # ---- running --------------------------------------------------------------------------
    def _auto_running(self) -> int:
        return sum(1 for p in self._running.values() if p >= AUTO_PRIORITY)

    def _user_running(self) -> bool:
        """Whether a user's job runs or a hold stands (caller holds the lock); keeps `_users_idle` in step."""
        if self._holds:
            now = time.monotonic()
            for key in [k for k, until in self._holds.items() if until <= now]:
                log.warning("a user's hold %s outlived its deadline: autonomous pulses go on", key)
                del self._holds[key]
        busy = bool(self._holds) or any(p <= USER_PRIORITY for p in self._running.values())
        (self._users_idle.clear if busy else self._users_idle.set)()
        return busy

    def _take(self) -> PoolJob | None:
        """The best runnable job, or None (caller holds the lock)."""
        while self._ready:
            priority, seq, persona_id = self._ready[0]
            heap = self._pending.get(persona_id)
            if persona_id in self._running or not heap or (heap[0].priority, heap[0].seq) != (priority, seq):
                heapq.heappop(self._ready)  # a stale entry: the persona runs, or its best job changed
                continue
            if priority >= AUTO_PRIORITY and (self._auto_running() >= self.workers - self.reserved
                                              or self._user_running()):
                return None  # the rest of the pool stays free for a user's or a schedule's pulse
            heapq.heappop(self._ready)
            job = heapq.heappop(heap)
            if not heap:
                del self._pending[persona_id]
            self._running[persona_id] = job.priority
            if job.priority <= USER_PRIORITY:
                self._users_idle.clear()
                _user_pulses_here(+1)
            return job
        return None

    def _done(self, persona_id: str) -> None:
        with self._cond:
            if self._running.pop(persona_id, AUTO_PRIORITY) <= USER_PRIORITY:
                _user_pulses_here(-1)
            self._user_running()
            heap = self._pending.get(persona_id)
            if heap:
                heapq.heappush(self._ready, (heap[0].priority, heap[0].seq, persona_id))
            if self._ready:
                # A freed worker slot may let an autonomous job run. With nothing ready, waking every
                # idle worker would only send each back to sleep (on 2 cores, a pulse's worth of time).
                self._wake_all()

    def _wake_all(self) -> None:
        """Wake every idle worker (caller holds the lock)."""
        for idle in self._idle:
            idle.notify()
        self._idle.clear()

    def _work(self) -> None:
        mine = threading.Condition(self._mutex)
        while True:
            with self._cond:
                job = self._take()
                while job is None and not self._closed:
                    self._idle.append(mine)
                    try:
                        # While a hold stands, look again at its deadline: nothing else wakes a worker then.
                        mine.wait(HOLD_RECHECK if self._holds else None)
                    finally:
                        if mine in self._idle:  # timed out (a wake takes it off the list)
                            self._idle.remove(mine)
                    job = self._take()
                if job is None:
                    return
            try:
                self._run(job.payload)
            except BaseException:  # noqa: BLE001 - a worker outlives any job; the job reports its own end
                log.exception("pulse worker: a job of %s raised", job.persona_id)
            finally:
                self._done(job.persona_id)

    def drain_pending(self) -> list[Any]:
        """Remove and return every waiting job's payload (at shutdown, so each can be ended)."""
        with self._cond:
            jobs = [j for heap in self._pending.values() for j in heap]
            self._pending.clear()
            self._ready.clear()
        return [j.payload for j in sorted(jobs)]
