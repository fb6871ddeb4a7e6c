"""An exclusive file lock, the one lock that holds across threads' descriptors and processes alike.

The primitive is portable.py's (`flock` on POSIX, `LockFileEx` on Windows). The system drops the
lock when its process dies, so a kill -9 never leaves anything locked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from portable import lock, open_lock, unlock


@contextmanager
def locked(path: Path, *, create: bool = False) -> Iterator[None]:
    """Hold an exclusive lock on `path`: a lock file (made 0600 when `create`) or an existing folder.

    A folder leaves no file behind; a lock file must never be a file that holds data (closing a
    descriptor of a SQLite database would drop SQLite's own locks)."""
    fd = open_lock(path, create=create)
    try:
        lock(fd)
        yield
    finally:
        unlock(fd)
        os.close(fd)


@contextmanager
def tried_lock(fd: int, *, then_shared: bool = False) -> Iterator[bool]:
    """Try an exclusive lock on the open descriptor `fd` without waiting; yields whether it was taken.

    With `then_shared` the descriptor holds a shared lock before and after: a taken lock goes back
    to shared on leaving, and a refused try takes the shared lock again at once (a refused change
    of kind gives up the lock held, portable.py `lock`), waiting only while another process holds
    the lock exclusively. Without it a taken lock is given up on leaving."""
    if not lock(fd, wait=False):
        if then_shared:
            lock(fd, shared=True)
        yield False
        return
    try:
        yield True
    finally:
        if then_shared:
            lock(fd, shared=True)
        else:
            unlock(fd)


@contextmanager
def locked_within(path: Path, seconds: float, *, every: float = 0.025) -> Iterator[bool]:
    """Try an exclusive lock on the existing folder or file `path` for up to `seconds`; yields whether
    it was taken (and holds it until the block ends)."""
    fd = open_lock(path)
    try:
        deadline = time.monotonic() + seconds
        while not lock(fd, wait=False):
            if time.monotonic() >= deadline:
                yield False
                return
            time.sleep(every)
        try:
            yield True
        finally:
            unlock(fd)
    finally:
        os.close(fd)
