"""The clean-close stamp: proof that a SQLite file is exactly the one SAIVerse itself closed cleanly,
so its open may skip SQLite's full integrity check (docs/ARCHITECTURE.md, "Storage": "The clean-close
stamp").

`PRAGMA quick_check` reads every page: ~0.1–0.6 s of CPU per 100 MB at every open. It is there to refuse
a damaged file before anything writes to it. A file this app closed cleanly and nobody touched since
needs no such reading; anything else still gets it.

The protocol (all stamp reads, writes and removals happen under the migration lock, the file lock on
the database's folder, database/migrate.py):

- **Close** (`CleanCloseDatabase.dispose`, database/clean_engine.py): the engine's connections
  are closed, then — only when the lock is free within half a second — the sentinel connection too, and a stamp
  is written only if neither `-wal` nor `-shm` is left beside the file. SQLite deletes both when the
  *last* connection of any process closes, after checkpointing everything into the file; so their
  absence proves that no other connection (another process's, a worker's, a CLI command's) has the
  file open and that the `-wal` holds nothing. The stamp (`<db>-closed`, 0600, temp + fsync +
  rename) records the file's size, mtime, ctime, inode and device, its page size, the header's
  change counter and page count, and SHA-256 hashes of the first page (the header, the schema root)
  and of the last page.
- **Open** (`take`, in `migrate()`; and `CleanCloseDatabase.__init__`): the stamp is read and
  removed — one use only — before the first write. The check is skipped only when the `-wal` is
  absent or empty, there is no `-shm` (no connection open, none ended uncleanly; and the file is not
  opened here while one of this process may hold SQLite's locks on it) and every recorded fact
  matches the file now.
- **While open**: a `CleanCloseDatabase` holds one extra read connection (the sentinel), opened
  under the lock, from its start to its close. A process closing meanwhile therefore always finds
  a `-shm` and writes no stamp; a process that took the lock before finds its stamp removed here.
  A connection the engine opens after its close removes any stamp again before it is used.

What changes the facts (and so brings the check back): any write through the file system, even
with the mtime put back by `os.utime` (that sets the ctime, which no program can set back), a
`chmod`, a rename over the file, a copy or restore (another inode), a truncation or an extension,
a kill -9 (no stamp is written; a stamp from before is gone since the open), a non-empty `-wal`.
What it cannot see: a bit that rots on the disk itself, below the file system, in a page other than
the first and the last (the size, the times and the two hashes stay the same). The daily backup
checks a snapshot of every page (saiverse/care/_backup.py) and the full check runs at every open
that follows a kill, a crash or a foreign write.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from database.locking import locked, locked_within
from portable import O_BINARY, O_NOFOLLOW, O_NONBLOCK, POSIX_MODES, fsync_path

log = logging.getLogger(__name__)
STAMP_SUFFIX = "-closed"
FORMAT = 1
SQLITE_MAGIC = b"SQLite format 3\x00"
FACTS = ("size", "mtime_ns", "ctime_ns", "ino", "dev", "page_size", "change_counter", "page_count",
         "first_page_sha256", "last_page_sha256")
"""What a stamp records and an open compares, in the order a mismatch is named."""


_distrusted: set[Path] = set()
_checks_run = 0


def integrity_checks_run() -> int:
    """How many full integrity checks of a whole file this process ran at opens (tests, benchmarks)."""
    return _checks_run


def check_unless_closed_cleanly(db: Path, check: Callable[[Path], None],
                                lock: Callable[[Path], AbstractContextManager[None]]) -> None:
    """`check(db)` — the full integrity check of database/migrate.py — unless the stamp proves `db` is the
    file SAIVerse closed cleanly. The stamp is used up here, under `lock` (the migration lock), before
    anything may write to the file; the log says why the check ran or was skipped."""
    global _checks_run
    with lock(db):
        why = take(db)
    if not db.exists() or db.stat().st_size == 0:
        return
    if why is None:
        log.info("%s: closed cleanly by SAIVerse and unchanged since; integrity check skipped", db)
        return
    log.info("%s: integrity check (PRAGMA quick_check) runs: %s", db, why)
    _checks_run += 1
    check(db)


def distrust(db: Path) -> None:
    """Damage was seen in `db` (the daily backup's check of its snapshot): remove its stamp, and write
    none for it from this process, so the next open runs the full check and refuses the file."""
    db = Path(db).resolve()
    _distrusted.add(db)
    stamp_path(db).unlink(missing_ok=True)


def distrusted(db: Path) -> bool:
    """Whether this process saw damage in `db` (no stamp may be written for it)."""
    return Path(db).resolve() in _distrusted


def stamp_path(db: Path) -> Path:
    """Where the clean-close stamp of `db` lives: beside it, in the data home (`saiverse.db-closed`)."""
    return db.with_name(db.name + STAMP_SUFFIX)


def _temp_path(db: Path) -> Path:
    return db.with_name(f".{db.name}{STAMP_SUFFIX}.tmp")


def facts(db: Path) -> dict[str, Any] | None:
    """The facts of `db` a stamp records; None when it is no (complete) SQLite file."""
    try:
        with db.open("rb") as fh:
            before = os.fstat(fh.fileno())
            head = fh.read(100)
            if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
                return None
            page_size = int.from_bytes(head[16:18], "big")
            page_size = 65536 if page_size == 1 else page_size
            fh.seek(0)
            first = fh.read(page_size)
            fh.seek(max(0, before.st_size - page_size))
            last = fh.read(page_size)
            after = os.fstat(fh.fileno())
    except OSError:
        return None
    if (after.st_size, after.st_mtime_ns, after.st_ctime_ns) != (before.st_size, before.st_mtime_ns,
                                                                 before.st_ctime_ns):
        return None  # changing while read: no fact to trust
    return {
        "size": before.st_size, "mtime_ns": before.st_mtime_ns, "ctime_ns": before.st_ctime_ns,
        "ino": before.st_ino, "dev": before.st_dev, "page_size": page_size,
        "change_counter": int.from_bytes(head[24:28], "big"), "page_count": int.from_bytes(head[28:32], "big"),
        "first_page_sha256": hashlib.sha256(first).hexdigest(), "last_page_sha256": hashlib.sha256(last).hexdigest(),
    }


def differences(recorded: dict[str, Any], now: dict[str, Any] | None) -> list[str]:
    """The facts that differ between a stamp and the file now (all of them when it is unreadable)."""
    if now is None:
        return list(FACTS)
    return [name for name in FACTS if recorded.get(name) != now.get(name)]


def side_file(db: Path, suffix: str) -> Path:
    return db.with_name(db.name + suffix)


def _wal_bytes(db: Path) -> int:
    try:
        return side_file(db, "-wal").stat().st_size
    except FileNotFoundError:
        return 0


def _read_small(path: Path) -> str | None:
    """The text of a regular file of at most 4 KiB, never through a link (None for anything else: a
    link, a FIFO, a device, a huge file — a stamp is none of these)."""
    fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_BINARY)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:
            return None
        return os.read(fd, 4097).decode("utf-8", "replace")
    finally:
        os.close(fd)


def take(db: Path) -> str | None:
    """Read and remove the stamp of `db` (the caller holds the migration lock); None when it proves
    the file is the one SAIVerse closed cleanly, else why the full check must run (one phrase)."""
    stamp, temp = stamp_path(db), _temp_path(db)
    temp.unlink(missing_ok=True)  # a stamp a kill interrupted before its rename
    try:
        text = _read_small(stamp)
    except FileNotFoundError:
        return "no clean-close stamp (the last session did not close cleanly, or the file is new here)"
    except OSError as exc:
        return f"the clean-close stamp cannot be read ({exc.strerror or exc})"
    finally:
        stamp.unlink(missing_ok=True)  # one use: whatever follows may write to the file
    if text is None:
        return "the clean-close stamp is not a small regular file"
    try:
        recorded = json.loads(text)
    except ValueError:
        return "the clean-close stamp is not readable"
    if not isinstance(recorded, dict) or recorded.get("format") != FORMAT:
        return "the clean-close stamp is of another format"
    wal = _wal_bytes(db)
    if wal:
        return f"its -wal holds {wal} bytes"
    if side_file(db, "-shm").exists():
        return "its -shm exists (a connection is open, or one ended without closing)"
    changed = differences(recorded, facts(db))
    if changed:
        return f"the file changed since SAIVerse closed it ({', '.join(changed)})"
    return None


def write_stamp(db: Path) -> bool:
    """Write the stamp of `db` now (the caller holds the lock and has seen no -wal/-shm)."""
    now = facts(db)
    if now is None or distrusted(db):
        return False
    temp, stamp = _temp_path(db), stamp_path(db)
    data = json.dumps({"format": FORMAT, "database": db.name, "pid": os.getpid(), **now}).encode()
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | O_NOFOLLOW | O_BINARY, 0o600)
    try:
        if POSIX_MODES:  # an old temp file keeps its mode through O_CREAT
            os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    if facts(db) != now:  # written to meanwhile (a connection this lock does not order): no stamp
        temp.unlink(missing_ok=True)
        return False
    os.replace(temp, stamp)
    fsync_path(db.parent)
    return True


@contextmanager
def folder_lock(db: Path, *, wait: bool) -> Iterator[bool]:
    """The migration lock (database/migrate.py). Without `wait` it is tried for half a second at most
    (another process closing holds it for milliseconds; a migration far longer) and yields whether it
    was taken."""
    if wait:
        with locked(db.parent):
            yield True
        return
    with locked_within(db.parent, 0.5) as taken:
        yield taken
