"""Work folders of backup and restore, claimed while in use and removed by the next run if a kill left them.

A backup snapshots the database into `.backup-<pid>-<hex>/` beside the archive and writes the archive
as `.<name>.<pid>-<hex>.tmp` (renamed when complete: only a finished archive is ever named as a
backup). A restore extracts into `.<target>.restore-<pid>-<hex>/` beside the target. Each is `claim`ed:
created under a name holding the id of the process doing the work. The next run of the same command
— and the app's start, for its own home — removes a work folder or file only when (1) its name is
one of these, (2) the process its name records is gone, and (3) a folder holds only what a backup or
restore writes there. Anything else is left alone. (No `flock` here: the migration of a restored
database locks its folder, the staging folder itself, with one.) Names of older versions without a
process id are removed when the folder's contents are only ours.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import uuid
from pathlib import Path

from portable import O_BINARY
from saiverse.disk import ITEM_DIRS, pid_alive

log = logging.getLogger(__name__)
BACKUP_WORK = re.compile(r"^\.backup-(?:(?P<pid>\d+)-[0-9a-f]{8}|[A-Za-z0-9_]{8})$")
"""`.backup-<pid>-<hex>` (and `.backup-<8 chars>` of versions that did not record the process)."""
ARCHIVE_TEMP = re.compile(r"^\..+\.zip\.(?:(?P<pid>\d+)-)?[0-9a-f]{8}\.tmp$")
BACKUP_WORK_FILES = {f"{db}{side}" for db in ("saiverse.db", "checkpoints.db")
                     for side in ("", "-journal", "-wal", "-shm")}
"""A snapshot's files; a PostgreSQL city's checkpoints are written through SqliteSaver, in WAL mode until done."""
PENDING_RESTORE = re.compile(r"^\.restore-pending-(?P<pid>\d+)$")
"""The mark a restore into a PostgreSQL city leaves in the home until its rows commit (saiverse/care/_restore_pg.py)."""
RESTORE_FILES = {"saiverse.db", "checkpoints.db", "settings.json", *ITEM_DIRS, "icons",
                 *(f"{db}{side}" for db in ("saiverse.db", "checkpoints.db") for side in ("-journal", "-wal", "-shm"))}


class Claim:
    """A new work folder (mode 700) or file (mode 600, open for writing) of this process."""

    def __init__(self, path: Path, *, folder: bool) -> None:
        self.path = path
        self._fd = -1
        if folder:
            path.mkdir(mode=0o700)
        else:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)

    @property
    def fd(self) -> int:
        """The descriptor of a file claim, open for writing."""
        return self._fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def work_name(prefix: str, suffix: str = "") -> str:
    """`<prefix><pid>-<hex><suffix>`: a claimable name that records this process."""
    return f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:8]}{suffix}"




def _unclaimed(pid: str | None) -> bool:
    """The process a work name records is gone (a name without one: an older version's, long gone)."""
    return pid is None or not pid_alive(int(pid))


def _only(folder: Path, allowed: set[str]) -> bool:
    try:
        return all(p.name in allowed and not p.is_symlink() for p in folder.iterdir())
    except OSError:
        return False


def _remove(path: Path, removed: list[str]) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    removed.append(path.name)


def remove_backup_debris(folder: Path) -> list[str]:
    """Remove work folders and unfinished archives killed backups left in `folder`; their names."""
    removed: list[str] = []
    if not folder.is_dir() or folder.is_symlink():
        return removed
    for path in sorted(folder.iterdir()):
        mode = os.lstat(path).st_mode
        if (m := BACKUP_WORK.match(path.name)) and stat.S_ISDIR(mode):
            if _only(path, BACKUP_WORK_FILES) and _unclaimed(m.group("pid")):
                _remove(path, removed)
        elif (m := ARCHIVE_TEMP.match(path.name)) and stat.S_ISREG(mode):
            if _unclaimed(m.group("pid")):
                _remove(path, removed)
    return removed


def remove_restore_debris(target: Path) -> list[str]:
    """Remove staging folders killed restores into `target` left beside it; their names."""
    removed: list[str] = []
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.restore-(?:(?P<pid>\d+)-)?[0-9a-f]{{8}}$")
    parent = target.parent
    if not parent.is_dir():
        return removed
    # Names matched before any Path is made or sorted: the home's parent may be a crowded folder (/tmp).
    for name in sorted(n for n in os.listdir(parent) if pattern.match(n)):
        path = parent / name
        m = pattern.match(name)
        if m and stat.S_ISDIR(os.lstat(path).st_mode) and _only(path, RESTORE_FILES | _pending_marks(path)) \
                and _unclaimed(m.group("pid")):
            _remove(path, removed)
    return removed


def _pending_marks(folder: Path) -> set[str]:
    try:
        return {p.name for p in folder.iterdir() if PENDING_RESTORE.match(p.name)}
    except OSError:
        return set()


def remove_home_debris(home: Path) -> list[str]:
    """At start: what killed backups (in `<home>/backups/`) and restores into this home left; one line each."""
    notes = [f"removed an unfinished backup's work file {name} (a backup was stopped before it completed)"
             for name in remove_backup_debris(home / "backups")]
    notes += [f"removed {name} beside the home (a restore into it was stopped before it completed)"
              for name in remove_restore_debris(home)]
    for note in notes:
        log.warning("%s", note)
    return notes
