"""An exclusive `flock`, the one lock that holds across threads' descriptors and processes alike.

The kernel drops a flock when its process dies, so a kill -9 never leaves anything locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def flocked(path: Path, *, create: bool = False) -> Iterator[None]:
    """Hold an exclusive flock on `path`: a lock file (made 0600 when `create`) or an existing folder.

    A folder leaves no file behind; a lock file must never be a file that holds data (closing a
    descriptor of a SQLite database would drop SQLite's own locks)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if create else os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextmanager
def tried_flock(fd: int, *, after: int = fcntl.LOCK_UN) -> Iterator[bool]:
    """Try an exclusive flock on the open descriptor `fd` without waiting; yields whether it was taken.

    On leaving, a taken lock is given up with `after`: unlocked, or (`fcntl.LOCK_SH`) back to shared.
    A try that fails takes `after` again before yielding: Linux converts a flock by first removing the
    one held, so a refused LOCK_EX|LOCK_NB leaves the descriptor with no lock at all (flock(2), "Converting
    a lock"). A process whose share of the home lock vanished so was invisible to the next opener's
    start-up repair, which then renamed and removed the staged files of its saves in flight (issue 34)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if after != fcntl.LOCK_UN:
            fcntl.flock(fd, after)  # waits only while another process holds it exclusively (its repair)
        yield False
        return
    try:
        yield True
    finally:
        fcntl.flock(fd, after)


@contextmanager
def flocked_within(path: Path, seconds: float, *, every: float = 0.025) -> Iterator[bool]:
    """Try an exclusive flock on the existing folder or file `path` for up to `seconds`; yields whether
    it was taken (and holds it until the block ends)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        deadline = time.monotonic() + seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(every)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
