"""`python main.py move --to sqlite`: a PostgreSQL city's world back into its home's SQLite file.

The way back of `move --to postgresql+psycopg://…` (saiverse/care/_move.py). The city is read from one
snapshot of its database (saiverse/care/_pgcopy.py: REPEATABLE READ, read only) into a new SQLite file
made by the SQLite migration steps, so SQLite's recall index is filled as the SAIMemory rows go in;
every table's rows are counted on both sides, and the production checkpoints follow into
`checkpoints.db`. The item files are already under the home and stay where they are.

The file is written under a hidden name holding this process's id and renamed to `saiverse.db` only
when complete: a kill leaves no world file (the next move removes the leftover). The home must hold no
`saiverse.db` (a world is never overwritten; a `checkpoints.db` left without one is replaced by the
city's checkpoints, when it has any), and no other process may have the home open. The
PostgreSQL database is left as it was: after the move, start the app without SAIVERSE_DATABASE_URL.
Writes other processes make to the city after the snapshot stay in PostgreSQL only, so stop its apps
and workers first.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from database.engine import is_postgres
from portable import fsync_path
from saiverse.care._debris import Claim, work_name
from saiverse.care._home_safety import link_out_of_home
from saiverse.care._move import MoveReport
from saiverse.care._pgcopy import masked, snapshot_pg
from saiverse.disk import pid_alive
from saiverse.errors import UsageError
from saiverse.settings import Settings

SQLITE_TARGET = "sqlite"
"""`move --to sqlite`: the way back into the home's SQLite file."""
_TEMP = re.compile(r"^\.(saiverse|checkpoints)\.db\.(?P<pid>\d+)-[0-9a-f]{8}\.tmp(-journal|-wal|-shm)?$")


def _remove_leftovers(home: Path) -> None:
    for path in home.iterdir():
        m = _TEMP.match(path.name)
        if m and path.is_file() and not path.is_symlink() and not pid_alive(int(m.group("pid"))):
            path.unlink(missing_ok=True)


def move_back(settings: Settings) -> MoveReport:
    """Copy the PostgreSQL city of `settings` into `<home>/saiverse.db` (see the module doc)."""
    from saiverse.locks import HomeLock

    url = settings.database_url
    if not is_postgres(url):
        raise UsageError("this home's world is already in SQLite; `move --to sqlite` copies a PostgreSQL city "
                         "(SAIVERSE_DATABASE_URL=postgresql+psycopg://…) back into the home")
    home = settings.home
    dest = home / "saiverse.db"
    if os.path.lexists(dest):
        raise UsageError(f"{dest} already exists (the world from before a move to PostgreSQL?); move --to sqlite "
                         "writes only into a home without a world file, so no world is ever overwritten: move it and "
                         "its checkpoints.db away first")
    if not home.is_dir():
        raise UsageError(f"{home} is not a folder: the home of a PostgreSQL city holds its item files")
    problem = link_out_of_home(home)
    if problem:
        raise UsageError(problem)
    lock = HomeLock(home)
    try:
        with lock.alone() as alone:
            if not alone:
                raise UsageError("another SAIVerse process has this home open (is the app running?); close it first")
            _remove_leftovers(home)
            return _write(home, dest, url)
    finally:
        lock.close()


def _write(home: Path, dest: Path, url: str) -> MoveReport:
    db = Claim(home / work_name(".saiverse.db.", ".tmp"), folder=False)
    ck = Claim(home / work_name(".checkpoints.db.", ".tmp"), folder=False)
    db.release()
    ck.release()
    try:
        _version, counts = snapshot_pg(url, db.path, ck.path)
        conn = sqlite3.connect(db.path)
        try:
            ok = conn.execute("PRAGMA integrity_check").fetchone()
            conn.execute("PRAGMA journal_mode=WAL")  # as the app keeps the home's database
        finally:
            conn.close()
        if not ok or ok[0] != "ok":
            raise UsageError(f"the copy did not check out (SQLite: {ok[0] if ok else '?'}); nothing was kept")
        fsync_path(db.path)
        if ck.path.stat().st_size > 0:
            fsync_path(ck.path)
            os.replace(ck.path, home / "checkpoints.db")
        if os.path.lexists(dest):  # made meanwhile by something else: never overwritten
            raise UsageError(f"{dest} appeared while copying; nothing was kept")
        os.rename(db.path, dest)  # the move happens here: before it, there is no world file
        fsync_path(home)
    finally:
        for path in (db.path, ck.path):
            path.unlink(missing_ok=True)
            for side in ("-wal", "-shm", "-journal"):
                Path(f"{path}{side}").unlink(missing_ok=True)
    return MoveReport(f"{dest} (from {masked(url)})", counts)
