"""Users first across worker processes: while a user's pulse runs on any pulse worker, autonomous pulses
on every worker give way to it (docs/ARCHITECTURE.md, "Pulse workers").

Inside one process the pulse pool pauses autonomous pulses at their safe points while a user's pulse
runs (saiverse/pulse/_pool.py). Pulse workers are separate processes on the same cores, so the worker
that starts a user's pulse says so on the `saiverse_users` channel (NOTIFY `start <pulse id>`, and
`end <pulse id>` when it ends), and every worker listens on a connection of its own and holds its
pool's autonomous pulses (`PulsePool.hold`) while any such pulse runs. The app that queues a user's
pulse says `queued <pulse id>` first, so autonomous pulses already give way while the job is taken and
the pulse set up — the part of a user's wait that otherwise shared the worker with them — and says
`end` when it stops following. A worker killed mid-pulse never says `end`: a hold expires after
`HOLD_TTL` seconds (`QUEUED_TTL` for a pulse no worker has started), so autonomous turns never stop
for good.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from database.engine import libpq_url

if TYPE_CHECKING:  # loaded by a city in PostgreSQL only: an SQLite home's start never pays for it
    import psycopg

CHANNEL = "saiverse_users"
HOLD_TTL = 60.0
"""Seconds a user's pulse announced by another worker holds autonomous pulses at most."""
QUEUED_TTL = 10.0
"""Seconds a user's pulse that is queued, and not yet started by a worker, holds them at most."""
Announcement = Literal["queued", "start", "end"]
"""What is said of a user's pulse on the channel: queued by an app, started or ended on a worker."""
log = logging.getLogger(__name__)


def announce(conn: psycopg.Connection, pulse_id: str, what: Announcement) -> None:
    """Tell every worker that a user's pulse is queued, started or ended (on an autocommit connection)."""
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{what} {pulse_id}"))


class UserGate:
    """A worker's listener: `hold(pulse_id, on)` for each user's pulse started and ended on any worker."""

    def __init__(self, url: str, hold: Callable[[str, bool], None], *, ttl: float = HOLD_TTL,
                 queued_ttl: float = QUEUED_TTL) -> None:
        self.url, self._hold, self.ttl, self.queued_ttl = url, hold, ttl, queued_ttl
        self._held: dict[str, float] = {}
        self._stop = threading.Event()
        self.listening = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="user-gate")
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(libpq_url(self.url), autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0, stop_after=1):
                            self._seen(note.payload)
                        self._expire()
            except Exception:  # noqa: BLE001 - the database went away: users first is lost, not the worker
                log.exception("the users' channel failed; listening again in 5 s")
                self.listening.clear()
                self._release_all()
                self._stop.wait(5.0)
        self._release_all()

    def _seen(self, payload: str) -> None:
        what, _, pulse_id = payload.partition(" ")
        if not pulse_id:
            return
        if what in ("queued", "start"):
            ttl = self.ttl if what == "start" else min(self.ttl, self.queued_ttl)
            self._held[pulse_id] = max(self._held.get(pulse_id, 0.0), time.monotonic() + ttl)
            self._hold(pulse_id, True)
        elif what == "end" and self._held.pop(pulse_id, None) is not None:
            self._hold(pulse_id, False)

    def _expire(self) -> None:
        now = time.monotonic()
        for pulse_id in [p for p, until in self._held.items() if until <= now]:
            log.warning("user's pulse %s never said it ended (its worker died?): autonomous turns go on", pulse_id)
            del self._held[pulse_id]
            self._hold(pulse_id, False)

    def _release_all(self) -> None:
        for pulse_id in list(self._held):
            del self._held[pulse_id]
            self._hold(pulse_id, False)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5.0)
