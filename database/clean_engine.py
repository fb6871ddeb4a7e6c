"""`CleanCloseDatabase`: the home's `Database`, which removes the clean-close stamp when it opens and writes
it when it closes cleanly (the protocol: database/clean_close.py)."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

from database.clean_close import folder_lock, side_file, stamp_path, write_stamp
from database.engine import Database

log = logging.getLogger(__name__)
IN_FLIGHT_WAIT_S = 1.0
"""How long a clean close waits for connections still in use before it closes the pool (and stamps only
if they came back)."""


def sqlite_file(url: str) -> Path | None:
    """The file of a plain `sqlite:///PATH` URL (None for memory, URI options or another backend)."""
    if not url.startswith("sqlite:///"):
        return None
    rest = url[len("sqlite:///"):]
    if not rest or rest == ":memory:" or "?" in rest or rest.startswith("file:"):
        return None
    return Path(rest).resolve()


class CleanCloseDatabase(Database):
    """A `Database` on the home's SQLite file that removes the stamp at open and writes it at a clean close.

    Other backends, and URLs that are no plain file, behave exactly as `Database`."""

    def __init__(self, url: str, *, workers: int = 8) -> None:
        super().__init__(url, workers=workers)
        self.path = sqlite_file(url)
        self._sentinel: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.Lock()
        if self.path is None or not self.path.is_file():
            self.path = None
            return
        with folder_lock(self.path, wait=True):
            stamp_path(self.path).unlink(missing_ok=True)
            try:
                self._sentinel = sqlite3.connect(self.path, check_same_thread=False, timeout=5)
                # Read once, to the end (no read transaction stays open to hold back checkpoints): SQLite
                # then holds its shared lock and the -shm until this connection closes.
                self._sentinel.execute("SELECT count(*) FROM sqlite_master").fetchall()
            except sqlite3.Error as exc:  # without its sentinel this process never stamps: the next open checks
                log.warning("%s: no clean-close stamp this session (%s)", self.path, exc)
                if self._sentinel is not None:
                    self._sentinel.close()
                self._sentinel = None
        event.listen(self.engine, "connect", self._connected)

    def _checked_out(self) -> int:
        checkedout = getattr(self.engine.pool, "checkedout", None)
        return int(checkedout()) if callable(checkedout) else 0

    def _connected(self, _dbapi: Any, _record: Any) -> None:
        if self._closed and self.path is not None:
            # A thread that outlived close() opened a connection: what it writes is no longer stamped.
            # After the lock, so a stamp dispose() is writing right now goes too.
            try:
                with folder_lock(self.path, wait=False):
                    stamp_path(self.path).unlink(missing_ok=True)
            except OSError as exc:
                log.warning("%s: could not remove its clean-close stamp (%s)", self.path, exc)

    def dispose(self) -> None:
        """Close every connection; when this was the file's last user, stamp it as closed cleanly."""
        # A query still running in a thread close() does not join (the ticker's round) keeps its
        # connection past dispose(), and then no stamp is written: give it a moment to come back.
        deadline = time.monotonic() + IN_FLIGHT_WAIT_S
        while not self._closed and self._checked_out() and time.monotonic() < deadline:
            time.sleep(0.01)
        super().dispose()
        with self._lock:
            if self._closed or self.path is None or self._sentinel is None:
                self._closed = True
                return
            self._closed = True
            path, sentinel, self._sentinel = self.path, self._sentinel, None
            with folder_lock(path, wait=False) as taken:
                sentinel.close()
                if not taken:
                    log.info("%s: another process holds its folder's lock; no clean-close stamp", path)
                    return
                left = [s for s in ("-wal", "-shm") if side_file(path, s).exists()]
                if left:
                    log.info("%s: still open elsewhere (%s); no clean-close stamp", path, ", ".join(left))
                    return
                try:
                    if write_stamp(path):
                        log.info("%s: closed cleanly; the next open skips its full integrity check", path)
                except OSError as exc:  # a full disk: the next open checks, as without a stamp
                    stamp_path(path).unlink(missing_ok=True)
                    log.warning("%s: could not write its clean-close stamp (%s)", path, exc)
