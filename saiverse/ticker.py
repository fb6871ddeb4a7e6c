"""The background ticker: fires due schedules and autonomous turns while the app runs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from saiverse.pulse import PulseHandle

log = logging.getLogger(__name__)

EventSink = Callable[[list[dict[str, Any]]], None]
"""Receives the events of pulses and resumed runs the ticker started (the UI's refresh hook)."""


class Ticker:
    """Every `interval` seconds: `tick()` (the manager's due schedules, then autonomous turns).

    The pulses it starts run on the pulse pool; their events are always drained (handed to
    `on_events`, or dropped, when each pulse ends — no thread per pulse), so nothing piles up.
    A round that raises is logged and the next round runs as usual: the ticker never dies.
    `start()` also resumes, once, the production runs a killed process left behind (`resume`, given
    an event callback). `chores` (the daily backup) run after every round, and once at start, on
    their own thread: a slow one never delays a schedule, and a round never starts them again
    while they still run.
    """

    def __init__(self, tick: Callable[[], list[PulseHandle]], resume: Callable[[Callable[[dict[str, Any]], None]], Any],
                 *, interval: float = 15.0, on_events: EventSink | None = None,
                 chores: Sequence[Callable[[], Any]] = ()) -> None:
        self._tick = tick
        self._resume = resume
        self._chores = tuple(chores)
        self._chores_busy = threading.Lock()
        self.interval = interval
        self.on_events = on_events
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="saiverse-ticker", daemon=True)
            self._thread.start()
            threading.Thread(target=self.resume_productions, name="saiverse-resume", daemon=True).start()
            self.run_chores()

    def resume_productions(self) -> None:
        """Production runs a killed process left behind carry on from their last checkpoint."""
        events: list[dict[str, Any]] = []
        try:
            self._resume(events.append)
        except Exception:  # noqa: BLE001 - a broken run must not stop the app; it stays listed
            log.exception("resuming interrupted production runs failed")
        if self.on_events and events:
            self.on_events(events)

    def stop(self) -> None:
        self._stop.set()

    def tick(self) -> list[PulseHandle]:
        """One round; returns the pulses it started (their events are drained in the background)."""
        handles = self._tick()
        for h in handles:
            h.drain_to(self._drained)
        return handles

    def _drained(self, events: list[Any]) -> None:
        if self.on_events and events:
            self.on_events(events)

    def run_chores(self) -> threading.Thread | None:
        """Start the chores on their own thread unless they are still running; returns that thread."""
        if not self._chores or not self._chores_busy.acquire(blocking=False):
            return None
        thread = threading.Thread(target=self._do_chores, name="saiverse-chores", daemon=True)
        thread.start()
        return thread

    def _do_chores(self) -> None:
        try:
            for chore in self._chores:
                try:
                    chore()
                except Exception:  # noqa: BLE001 - a failed chore (a full disk) must not stop the app
                    log.exception("ticker chore failed")
        finally:
            self._chores_busy.release()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - a bad round (the database busy) must not stop the ticker
                log.exception("ticker round failed; the next round tries again")
            try:
                self.run_chores()
            except Exception:  # noqa: BLE001 - nor may a chore that cannot even start
                log.exception("starting the ticker's chores failed")
