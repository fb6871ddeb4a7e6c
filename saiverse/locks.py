"""Locks that hold across threads and processes: one per document, one shared per data home.

Two app processes (the UI and a CLI command, say) may edit the same document. A read-change-write
cycle must therefore hold a lock that both see: `item_lock` is a `threading.Lock` (threads of this
process) plus an exclusive file lock on `home/.locks/<key>.lock` (other processes; portable.py). The
system drops it when its process dies, so a kill -9 never leaves a document locked.

`HomeLock` is held *shared* by every process that has the home open. Start-up repair
(saiverse/care/_repair.py) only runs when it can take it *exclusively*, i.e. when no other process is
in the middle of a write whose temp files repair would otherwise mistake for debris.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from database.locking import locked, tried_lock
from portable import lock, open_lock, unlock
from saiverse.disk import private_folder

LOCK_DIR = ".locks"
_thread_locks: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()


def _lock_file(home: Path, key: str) -> Path:
    # Hash the key: an id from a model or a URL must never become a path of its own choosing.
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    folder = private_folder(home / LOCK_DIR)
    return folder / f"{digest}.lock"


@contextmanager
def item_lock(home: Path, key: str) -> Iterator[None]:
    """Hold the lock named `key` (e.g. an item id) in this home against threads and processes."""
    path = _lock_file(home, key)
    with _registry_lock:
        tlock = _thread_locks.setdefault(str(path), threading.Lock())
    with tlock, locked(path, create=True):
        yield


@contextmanager
def item_lock_free(home: Path, key: str) -> Iterator[bool]:
    """Take the lock named `key` without waiting; yields whether it was free (and holds it until the block
    ends). Start-up repair asks this before it touches a document's staged files: a writer holds the
    document's lock from staging to renaming (saiverse/world/_items.py), so a held lock means a live save."""
    path = _lock_file(home, key)
    with _registry_lock:
        tlock = _thread_locks.setdefault(str(path), threading.Lock())
    if not tlock.acquire(blocking=False):
        yield False
        return
    try:
        fd = open_lock(path, create=True)
        try:
            with tried_lock(fd) as free:
                yield free
        finally:
            os.close(fd)
    finally:
        tlock.release()


class HomeLock:
    """A shared lock on the data home for the life of a process; exclusive only for repair."""

    def __init__(self, home: Path) -> None:
        folder = private_folder(home / LOCK_DIR)
        self._fd = open_lock(folder / "home.lock", create=True)
        lock(self._fd, shared=True)

    @contextmanager
    def alone(self) -> Iterator[bool]:
        """Yield True while this is the only process with the home open (exclusive), else False.

        Either way the shared lock is held again after (database/locking.py `tried_lock`)."""
        with tried_lock(self._fd, then_shared=True) as alone:
            yield alone

    def close(self) -> None:
        if self._fd >= 0:
            unlock(self._fd)  # at once (Windows frees a closed handle's locks only in its own time)
            os.close(self._fd)
            self._fd = -1
