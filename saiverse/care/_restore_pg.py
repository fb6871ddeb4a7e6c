"""Restore into a PostgreSQL city: any backup archive (of a SQLite home or of a PostgreSQL city) becomes
the world of an empty PostgreSQL database, its files the contents of an empty home.

Everything a SQLite restore checks is checked first, the same way (saiverse/care/_restore.py): the
archive's names and checksums, the database's integrity and identity, a migration of an older schema —
all on the extracted `saiverse.db`, in a claimed work folder beside the target. Then two places must
change, the home and the database, and only the database has a transaction. So the database's commit
is the one moment the restore happens:

1. the files' staging folder gets a mark, `.restore-pending-<pid>`, and becomes the home (one rename);
2. in ONE PostgreSQL transaction the schema is made (saiverse/care/_pgcopy.py), every row copied and
   counted, the production checkpoints put; then it commits;
3. the mark is removed.

A kill before (2) commits leaves an empty database (PostgreSQL rolls the transaction back) and a
marked home; after, a full database and a marked home. Whoever meets a mark whose process is gone
decides by the database: a world there means the restore committed, and the mark is removed; none
means it did not, and the home is only what the killed restore wrote — the next restore into it
removes it and starts again, and the app refuses to open it (it would seed a new city among the
restored files), saying to run the restore again. The database must be empty (no table but
PostgresSaver's, empty) and is checked again inside the transaction, under the migration lock.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from database.migrate_pg import current_version_pg
from portable import O_BINARY
from saiverse.care._backup import CHECKPOINTS_ENTRY, DB_ENTRY, FILE_DIRS, ProgressFn
from saiverse.care._debris import PENDING_RESTORE, RESTORE_FILES, Claim, remove_restore_debris, work_name
from saiverse.care._pgcopy import (
    CopyError,
    fill_empty_pg,
    masked,
    pg_problem,
    reach,
)
from saiverse.care._restore import (
    RestoreError,
    RestoreResult,
    _check_target,
    _extract,
    _prepare_database,
    restore_into_home,
    verify_archive,
)
from saiverse.disk import pid_alive
from saiverse.errors import UserError


class UnfinishedRestore(UserError):
    """A home a killed restore into a PostgreSQL city left unfinished: not a world to open."""


def _marks(home: Path) -> list[tuple[Path, int]]:
    if not home.is_dir() or home.is_symlink():
        return []
    return [(p, int(m.group("pid"))) for p in home.iterdir() if (m := PENDING_RESTORE.match(p.name))]


def _has_world(engine: Engine, url: str) -> bool:
    with reach(engine, url) as conn:
        return current_version_pg(conn) > 0


def settle_pending_restore(home: Path, engine: Engine, url: str, *, remove_unfinished: bool) -> str | None:
    """Decide a mark a killed restore left in `home` (module doc); a note of what was done, or None.

    A committed restore's mark is removed. An uncommitted one's home is removed when
    `remove_unfinished` (the next restore into it), else UnfinishedRestore is raised (the app's start)."""
    for mark, pid in _marks(home):
        if pid != os.getpid() and pid_alive(pid):
            raise UnfinishedRestore(f"a restore into {home} is running (process {pid}); wait for it to finish")
        if _has_world(engine, url):
            mark.unlink(missing_ok=True)
            return f"a restore into {home} had completed before it was stopped; its mark was removed"
        if not remove_unfinished:
            raise UnfinishedRestore(
                f"a restore into {home} was stopped before its rows reached {masked(url)}; run "
                f"`python main.py restore <archive> --home {home}` again (it clears what the stopped one left)")
        allowed = RESTORE_FILES | {mark.name}
        if any(p.name not in allowed or p.is_symlink() for p in home.iterdir()):
            raise RestoreError(f"{home} holds more than a stopped restore wrote; restore into an empty folder")
        shutil.rmtree(home)
        return f"removed what a stopped restore left in {home}"
    return None


def refuse_marked_sqlite_home(home: Path) -> None:
    """A marked home opened without a PostgreSQL URL is refused: a new SQLite world would be seeded
    among the files of a restore whose rows went (or were going) to PostgreSQL."""
    for _mark, _pid in _marks(home):
        empty = home / "saiverse.db"
        if empty.is_file() and not empty.is_symlink() and empty.stat().st_size == 0:
            empty.unlink()  # the 0600 placeholder the app's start makes before opening: not a world
        raise UnfinishedRestore(f"{home} was being restored into a PostgreSQL database; start it with "
                                "SAIVERSE_DATABASE_URL set to that database (or restore again)")


def restore_backup(archive: Path, target: Path, progress: ProgressFn | None = None, *,
                   database_url: str | None = None) -> RestoreResult:
    """Rebuild the world of `archive` in `target`, an empty or new folder (saiverse/care/_restore.py).

    With the `database_url` of a PostgreSQL city, the rows go into that empty database and the files
    into `target` (this module); any archive restores into either backend. Here, beside both backends'
    restores, so that the SQLite one need not import this module back."""
    if database_url is not None and database_url.startswith("postgresql+psycopg://"):
        return restore_into_pg(archive.expanduser().resolve(), target.expanduser().resolve(), database_url, progress)
    return restore_into_home(archive, target, progress)


def restore_into_pg(archive: Path, target: Path, url: str, progress: ProgressFn | None = None) -> RestoreResult:
    """Rebuild the world of `archive` in the empty PostgreSQL database `url`, its files in the empty
    folder `target` (see the module doc). Raises RestoreError / CopyError; nothing is kept then."""
    from database import make_engine
    from saiverse.care._pgcheckpoints import setup_pg_checkpoints, sqlite_checkpoints_into_pg

    engine = make_engine(url, workers=1)
    try:
        settle_pending_restore(target, engine, url, remove_unfinished=True)
        _check_target(target)
        with reach(engine, url) as conn:
            problem = pg_problem(conn, url)
        if problem:
            raise RestoreError(f"{problem}; restore only into an empty database, so no city is ever overwritten")
        manifest = verify_archive(archive, progress)
        need = sum(int(f["size"]) for f in manifest["files"])
        existing = next(p for p in (target, *target.parents) if p.exists())
        if need * 1.1 > shutil.disk_usage(existing).free:
            raise RestoreError(f"not enough free space beside {target} for the world's {need:,} bytes; "
                               "nothing was written")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            remove_restore_debris(target)
            files = Claim(target.with_name(work_name(f".{target.name}.restore-")), folder=True)
            work = Claim(target.with_name(work_name(f".{target.name}.restore-")), folder=True)
        except OSError as exc:
            raise RestoreError(f"cannot write beside {target} ({exc.strerror or exc}); nothing was written") from exc
        try:
            return _restore(archive, target, engine, url, manifest, files.path, work.path, progress,
                            setup_pg_checkpoints, sqlite_checkpoints_into_pg)
        finally:
            shutil.rmtree(files.path, ignore_errors=True)
            shutil.rmtree(work.path, ignore_errors=True)
            files.release()
            work.release()
    finally:
        engine.dispose()


def _restore(archive: Path, target: Path, engine: Engine, url: str, manifest: dict[str, Any], staging: Path,
             work: Path, progress: ProgressFn | None, setup_checkpoints: Any, put_checkpoints: Any) -> RestoreResult:
    _extract(archive, manifest, staging, progress)
    for name in (DB_ENTRY, CHECKPOINTS_ENTRY):
        if (staging / name).exists():
            os.rename(staging / name, work / name)  # the rows go to PostgreSQL, not into the home
    before, after, counts = _prepare_database(work / DB_ENTRY, manifest)
    counts["files"] = sum(1 for f in manifest["files"] if f["name"].split("/", 1)[0] in FILE_DIRS)
    if (work / CHECKPOINTS_ENTRY).is_file():
        setup_checkpoints(url)  # PostgresSaver's empty tables: they cannot be made inside the transaction
    mark = staging / f".restore-pending-{os.getpid()}"
    fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
    os.fsync(fd)
    os.close(fd)
    _check_target(target)
    existed = target.is_dir()
    if existed:
        target.rmdir()
    os.rename(staging, target)
    try:
        with reach(engine, url) as conn:
            fill_empty_pg(conn, url, work / DB_ENTRY, work / CHECKPOINTS_ENTRY, put_checkpoints,
                          lambda problem: RestoreError(f"{problem} (written meanwhile); nothing was restored"))
            conn.commit()
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)  # the folder this restore renamed in, nothing else
        if existed:
            target.mkdir(mode=0o700, exist_ok=True)
        raise
    (target / mark.name).unlink()
    return RestoreResult(target, before, after, counts, manifest)


__all__ = ["CopyError", "UnfinishedRestore", "refuse_marked_sqlite_home", "restore_into_pg",
           "settle_pending_restore"]
