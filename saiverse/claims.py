"""Claims on the whole city: the one process, of all that serve it, that does a piece of work.

Several processes may have a city open at once: the app and a CLI command on one SQLite home, or
several app processes and workers, on several machines, on one PostgreSQL city (docs/ARCHITECTURE.md,
"Several processes"). Some work must be done by exactly one of them at a time — a production run
(resuming one another process is running would run it twice) or the daily backup. A claim is that
"exactly one", without a lease to renew and without a stale owner after a crash:

- SQLite city: a non-blocking exclusive file lock (portable.py) on `<home>/.locks/<hash>.lock`; the
  system drops it when the process dies (the city lives on one machine, like its database file).
- PostgreSQL city: a session-level advisory lock (`pg_try_advisory_lock`) on a connection of its
  own held for as long as the claim; the server drops it when that connection or its process
  dies, on whatever machine.

`claim()` never waits: it yields False when another holder has the work, and the caller skips it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from database.engine import is_postgres, libpq_url
from database.locking import tried_lock
from portable import O_BINARY, O_NOFOLLOW
from saiverse.disk import private_folder

CLAIM_PREFIX = "claim-"
"""Lock files of claims under `<home>/.locks/` start with this (the rest is a hash of the key)."""

_held: set[tuple[str, str]] = set()
_held_lock = threading.Lock()


@contextmanager
def claim(home: Path, database_url: str, key: str) -> Iterator[bool]:
    """Hold the city-wide claim `key` if nobody holds it; yields whether this caller has it.

    Re-entrant within a process only by refusal: a second `claim()` of a key this process holds
    yields False, like one from another process, so a caller never runs the same work twice."""
    mine = (str(home), key)
    with _held_lock:
        if mine in _held:
            taken = False
        else:
            _held.add(mine)
            taken = True
    if not taken:
        yield False
        return
    try:
        holder = _pg_claim(database_url, key) if is_postgres(database_url) else _file_claim(home, key)
        with holder as got:
            yield got
    finally:
        with _held_lock:
            _held.discard(mine)


def claimed(home: Path, database_url: str, key: str, work: Callable[[], Any]) -> Callable[[], Any]:
    """`work` as done only by the process holding the claim `key` (elsewhere a call does nothing)."""
    def run() -> Any:
        with claim(home, database_url, key) as mine:
            return work() if mine else None
    return run


@contextmanager
def _file_claim(home: Path, key: str) -> Iterator[bool]:
    folder = private_folder(Path(home) / ".locks")
    # A hash: a run id or any other key never becomes a file name of its own choosing.
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    fd = os.open(folder / f"{CLAIM_PREFIX}{digest}.lock", os.O_RDWR | os.O_CREAT | O_NOFOLLOW | O_BINARY, 0o600)
    try:
        with tried_lock(fd) as mine:
            yield mine
    finally:
        os.close(fd)


@contextmanager
def _pg_claim(database_url: str, key: str) -> Iterator[bool]:
    import psycopg  # only a PostgreSQL city needs it

    with psycopg.connect(libpq_url(database_url), autocommit=True) as conn:
        row = conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (f"saiverse.{key}",)).fetchone()
        got = bool(row and row[0])
        try:
            yield got
        finally:
            if got and not conn.closed:
                conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (f"saiverse.{key}",))
