"""One app server per data home: the second start is refused, naming the first (docs/ARCHITECTURE.md, "Serving").

Two windows' servers on one home would both take the daily backup, both run the autonomous ticker
and both believe they know where the user stands. The server therefore holds an exclusive file lock
(portable.py) on `<home>/.locks/server.lock` for as long as it runs, and writes into that file its
pid, address and port. A second start cannot take the lock; it reads the file and refuses with one
line saying which process on which port has the home open. The system drops the lock when the process dies, so a
kill -9 never leaves a home that cannot be opened (the stale pid and port in the file are then
simply overwritten).

A city in PostgreSQL is the exception: several app processes (on one or several machines) may serve
it, so no server holds its home; what one of them alone may do — the daily backup, a production
run — is claimed city-wide as it comes (saiverse/claims.py), autonomous turns are claimed in the
database, and each browser session keeps its own building.

CLI commands (`chat`, `backup`, …) do not take this lock: they work beside a running app, as
saiverse/locks.py describes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from database.engine import is_postgres
from portable import lock, open_lock, unlock
from saiverse.disk import private_folder
from saiverse.errors import UserError

LOCK_NAME = "server.lock"
"""The lock file under `<home>/.locks/`."""


class HomeInUseError(UserError):
    """Another SAIVerse app already serves this data home."""


class ServerLock:
    """The exclusive claim of one app server on a data home; `release()` (or exit) gives it up."""

    def __init__(self, home: Path, *, host: str, port: int, database_url: str = "") -> None:
        self._fd = -1
        self.path = Path(home) / ".locks" / LOCK_NAME
        if is_postgres(database_url):
            # A PostgreSQL city may be served by several app processes at once: the work only one of
            # them may do is claimed city-wide as it comes (saiverse/claims.py), not by holding the home.
            return
        folder = self.path.parent
        try:
            private_folder(folder)
            self._fd = open_lock(self.path, create=True)
        except OSError as exc:  # the home is a file, a device, read-only…
            raise UserError(f"cannot use {home} as the data home: {exc.strerror or exc}; give a folder of your "
                            "own with --home") from exc
        if not lock(self._fd, wait=False):
            holder = _holder(self._fd)
            os.close(self._fd)
            self._fd = -1
            raise HomeInUseError(_in_use_message(Path(home), holder)) from None
        self._record({"pid": os.getpid(), "host": host, "port": port})

    def _record(self, info: dict[str, Any]) -> None:
        data = json.dumps(info).encode()
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)  # not os.pwrite: Windows has none
        os.write(self._fd, data)

    def update_port(self, host: str, port: int) -> None:
        """Record the address really bound (a port may be chosen only at launch)."""
        if self._fd >= 0:
            self._record({"pid": os.getpid(), "host": host, "port": port})

    def release(self) -> None:
        """Give the home up (the file stays; its content is stale once nobody holds the lock)."""
        if self._fd >= 0:
            os.ftruncate(self._fd, 0)
            unlock(self._fd)
            os.close(self._fd)
            self._fd = -1


def _holder(fd: int) -> dict[str, Any]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)  # not os.pread: Windows has none
        raw = os.read(fd, 4096)
        info = json.loads(raw.decode()) if raw else {}
    except (OSError, ValueError):
        info = {}
    return info if isinstance(info, dict) else {}


def _in_use_message(home: Path, holder: dict[str, Any]) -> str:
    port, host, pid = holder.get("port"), holder.get("host") or "127.0.0.1", holder.get("pid")
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else f"[{host}]" if ":" in str(host) else host
    where = f" at http://{shown}:{port}/" if port else ""
    who = f" (process {pid})" if pid else ""
    return (f"another SAIVerse app has the data home {home} open{where}{who}; use that window, or stop it "
            "before starting another (a second --home serves a second world)")
