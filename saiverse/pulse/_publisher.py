"""A worker's side of a pulse: its events published on the pulse's channel, and the job's liveness lock.

The events go out as saiverse/pulse/_remote.py describes (NOTIFY, a large one through EVENTS_TABLE).
The liveness lock is why a slow worker's job is never taken for a dead one's: `recover_stalled`
(saiverse/pulse/_queue.py) gives a job whose worker stopped sending heartbeats back to the queue only
when nobody holds `(ALIVE_KEY, job id)` — PostgreSQL drops a session's advisory locks when its
connection goes, so a killed worker's jobs are free at once, and a starved but living one keeps its own.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from saiverse.pulse._remote import EVENTS_TABLE, NOTIFY_LIMIT, channel
from sea.events import Event

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)


ALIVE_KEY = 0x5A1F
"""First key of the advisory lock `(ALIVE_KEY, job id)` a worker holds while it runs a job: the job's
owner is alive for as long as its session is (saiverse/pulse/_queue.py `recover_stalled`)."""


def alive_key(job_id: int) -> int:
    """The lock's second key (an int4; procrastinate's job ids are bigint)."""
    return job_id & 0x7FFFFFFF


class EventPublisher:
    """A worker's side: one pulse's events, in order, on its channel, on a connection of `pool` held for
    the pulse. `followed=False` (schedules and autonomous turns: no app listens, QueuedPulses.submit)
    publishes nothing. With `job_id` the connection also holds the job's liveness lock (`ALIVE_KEY`)
    until `close`, followed or not."""

    def __init__(self, pool: Any, pulse_id: str, *, followed: bool = True, job_id: int | None = None) -> None:
        self.pulse_id = pulse_id
        self._pool = pool
        self._followed = followed
        self._job_id = job_id
        self._conn: psycopg.Connection | None = pool.getconn() if followed or job_id is not None else None
        if self._conn is not None and job_id is not None:
            try:
                self._conn.execute("SELECT pg_advisory_lock(%s, %s)", (ALIVE_KEY, alive_key(job_id)))
            except BaseException:
                self._pool.putconn(self._conn)
                raise

    @property
    def conn(self) -> psycopg.Connection:
        """The publisher's autocommit connection (saiverse/pulse/_usergate.py announces on it too)."""
        if self._conn is None or not self._followed:
            raise RuntimeError("an unfollowed pulse's publisher publishes nothing")
        return self._conn

    def publish(self, ev: Event | dict[str, Any]) -> None:
        if self._conn is None or not self._followed:
            return
        payload = json.dumps(ev, ensure_ascii=False, default=str)
        if len(payload.encode()) > NOTIFY_LIMIT:
            row = self._conn.execute(f"INSERT INTO {EVENTS_TABLE} (pulse_id, payload) VALUES (%s, %s) RETURNING id",
                                     (self.pulse_id, payload)).fetchone()
            payload = json.dumps({"ref": row[0]})  # type: ignore[index]
        self._conn.execute("SELECT pg_notify(%s, %s)", (channel(self.pulse_id), payload))

    def close(self) -> None:
        if self._conn is not None:
            if self._job_id is not None:
                try:
                    self._conn.execute("SELECT pg_advisory_unlock(%s, %s)", (ALIVE_KEY, alive_key(self._job_id)))
                except Exception:  # noqa: BLE001 - a broken connection: the pool discards it, the lock goes with it
                    log.debug("a job's liveness lock could not be given back", exc_info=True)
            self._pool.putconn(self._conn)  # a broken connection is discarded by the pool
            self._conn = None
