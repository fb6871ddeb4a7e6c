"""The background ticker: fires due schedules and autonomous turns while the app runs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager
    from saiverse.pulse_controller import PulseHandle

log = logging.getLogger(__name__)


class Ticker:
    """Every `interval` seconds: `fire_due_schedules`, then `autonomous_tick`.

    The pulses it starts run on the persona workers; their events are drained here so nothing
    blocks, and `on_events` (the UI's refresh hook) hears about them.
    """

    def __init__(self, manager: SAIVerseManager, *, interval: float = 15.0,
                 on_events: Callable[[list[dict]], None] | None = None) -> None:
        self.manager = manager
        self.interval = interval
        self.on_events = on_events
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="saiverse-ticker", daemon=True)
            self._thread.start()
            threading.Thread(target=self._resume_productions, name="saiverse-resume", daemon=True).start()

    def _resume_productions(self) -> None:
        """Production runs a killed process left behind carry on from their last checkpoint."""
        events: list[dict] = []
        try:
            self.manager.production.resume_interrupted(events.append)
        except Exception:  # noqa: BLE001 - a broken run must not stop the app; it stays listed
            log.exception("resuming interrupted production runs failed")
        if self.on_events and events:
            self.on_events(events)

    def stop(self) -> None:
        self._stop.set()

    def tick(self) -> list[PulseHandle]:
        """One round; returns the pulses it started (their events are drained in the background)."""
        handles = self.manager.fire_due_schedules() + self.manager.autonomous_tick()
        for h in handles:
            threading.Thread(target=self._drain, args=(h,), daemon=True).start()
        return handles

    def _drain(self, handle: PulseHandle) -> None:
        events = list(handle.events())
        if self.on_events:
            self.on_events(events)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - a bad round must not stop the ticker
                log.exception("ticker round failed")
