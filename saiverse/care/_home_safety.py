"""What the app may touch in a data home, checked before anything is written there.

The home is a person's only copy of their world, and start-up repair, backup, restore and import
all walk it. Three rules hold for every walk (docs/ARCHITECTURE.md, "Storage"):

- a folder of the home that is a symbolic link to somewhere outside the real home (`image/` kept
  on another disk, say) is **refused** with a message naming it: the app never reads, moves or
  deletes through it, and tells the user to replace the link by a folder;
- a walk never follows a link (`own_files`), and only regular files are ever moved or removed;
- a file is moved (orphans) only when its name is one this app gives (`is_own_name`), and only to a
  place inside the real home.

`check_home` also refuses homes that cannot be ours before anything is created: a path that is not
a folder (`/dev/null`), a pseudo file system (`/proc/self`), a folder inside an upstream SAIVerse
home, a database of another program, and a 0-byte `saiverse.db` beside a world's files.
`tighten` makes a home private: the folder 0700, the database and its side files 0600 (where the system
has such modes: portable.py `POSIX_MODES`). Which file systems belong to the kernel is portable.py's
`PSEUDO_ROOTS`.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from database.foreign import foreign_database_problem
from database.migrate import UpstreamDatabaseError, is_upstream_database, upstream_refusal
from portable import O_BINARY, POSIX_MODES, PSEUDO_ROOTS
from saiverse.disk import ITEM_DIRS
from saiverse.disk import link_out_of_home as link_out_of_home  # below llm/ too, which checks it (saiverse/disk.py)
from saiverse.errors import UserError

log = logging.getLogger(__name__)
UPSTREAM_DB = Path("user_data") / "database" / "saiverse.db"
OWN_NAME = re.compile(r"^\d{8}_\d{6}_[0-9A-Za-z]+\.[0-9A-Za-z]{1,5}(\.summary\.txt)?$")
"""`YYYYMMDD_HHMMSS_<id>.<ext>` (saiverse/world/_media.py `new_file_name`), with its sidecar."""
OWN_TEMP = re.compile(r"^\..+\.tmp$")
"""A hidden `.<file>.<…>.tmp` beside a media file: only this app writes those in its media folders."""
DB_SIDE_SUFFIXES = ("", "-wal", "-shm", "-journal")


class HomeRefused(UserError):
    """A data home the app will not open or write; the message names the thing and says why."""


def _is_inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _upstream_above(home: Path) -> Path | None:
    """The upstream SAIVerse home that `home` lies inside (or is), if any."""
    for folder in (home, *home.parents):
        if (folder / UPSTREAM_DB).is_file():
            return folder
    return None


def _media_files(home: Path) -> int:
    return sum(1 for sub in ITEM_DIRS if (home / sub).is_dir()
               for _ in own_files(home / sub))


def check_home(home: Path, db_path: Path) -> None:
    """Refuse a home the app must not create or open (see the module docstring); writes nothing."""
    home = Path(home)
    real = home.resolve()
    for root in PSEUDO_ROOTS:
        if _is_inside(real, root):
            raise HomeRefused(f"{home} is under {root}, a file system of the kernel, not a folder for a world; "
                              "choose another --home. Nothing was written.")
    if os.path.lexists(home) and not home.is_dir():
        raise HomeRefused(f"{home} is not a folder; choose a folder for --home (a new one is created). "
                          "Nothing was written.")
    if home.is_dir() and not os.access(home, os.W_OK | os.X_OK):
        raise HomeRefused(f"{home} is not writable for this user; SAIVerse needs to write its world there. "
                          "Nothing was written.")
    problem = link_out_of_home(home) if home.is_dir() else None
    if problem:
        raise HomeRefused(problem)
    upstream = _upstream_above(real)
    if upstream is not None and upstream != real and not _ours(db_path):
        raise UpstreamDatabaseError(upstream_refusal(f"{home} (inside the upstream home {upstream})", upstream))
    if db_path.is_file():
        _check_database(home, db_path)


def _ours(db_path: Path) -> bool:
    """Whether `db_path` is a database of this app (it has `schema_version`)."""
    if not db_path.is_file() or db_path.stat().st_size == 0:
        return False
    try:
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            return conn.execute("SELECT 1 FROM sqlite_master WHERE name='schema_version'").fetchone() is not None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def _check_database(home: Path, db_path: Path) -> None:
    size = db_path.stat().st_size
    if size == 0:
        files = _media_files(home)
        if files:
            raise HomeRefused(
                f"{db_path} is empty (0 bytes) although the home holds {files} item files: the database looks "
                "damaged, so SAIVerse did not open the home and moved nothing. Restore it from a backup "
                f"(python main.py restore <archive> --home <new folder>; archives are in {home / 'backups'}) or "
                "move the empty file away.")
        return
    try:
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            if is_upstream_database(conn):
                raise UpstreamDatabaseError(upstream_refusal(str(db_path), home.resolve()))
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return  # not SQLite at all, or damaged: the migration's checks name it
    problem = foreign_database_problem(db_path)
    if problem:
        raise HomeRefused(problem)


def own_files(root: Path) -> Iterator[Path]:
    """Regular files under `root`, never through a link (a linked file or folder is not walked)."""
    if root.is_symlink() or not root.is_dir():
        return
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            path = Path(folder) / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    yield path
            except OSError:
                continue


def is_own_name(name: str) -> bool:
    """Whether a media file name is one this app gives (a file it may set aside as an orphan)."""
    return bool(OWN_NAME.match(name))


def safe_destination(home: Path, target: Path) -> bool:
    """Whether `target` lies inside the real home with no link on the way (a move there stays inside)."""
    real_home = home.resolve()
    try:
        rel = target.parent.relative_to(real_home)
    except ValueError:
        return False
    folder = real_home
    for part in rel.parts:
        folder = folder / part
        if folder.is_symlink() or (os.path.lexists(folder) and not folder.is_dir()):
            return False
    return True


OWN_PRIVATE = ("settings.json", "checkpoints.db", ".locks", "models")
"""What the app makes in the home besides the database and the media folders: made private too (issue 34
found them 0644/0755). A folder is made 0700 and its regular files (one level, and `models/.pull/`) 0600."""


def _private(path: Path, mode: int) -> tuple[int, bool] | None:
    """Make one regular file or folder (never through a link) `mode`; (its old mode, changed) or None."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    kind_ok = stat.S_ISDIR(st.st_mode) if mode == 0o700 else stat.S_ISREG(st.st_mode)
    old = stat.S_IMODE(st.st_mode)
    if not kind_ok or not old & 0o077:
        return old, False
    os.chmod(path, mode)
    return old, True


def _tighten_one(home: Path, name: str) -> str | None:
    """One line when `home/name` (with its side files or the files in it) was made private."""
    path = home / name
    is_dir = os.path.isdir(path) and not os.path.islink(path)
    found = _private(path, 0o700 if is_dir else 0o600)
    if found is None:
        return None
    changed = found[1]
    inside = [path / f for f in (os.listdir(path) if is_dir else [])]
    if is_dir and (path / ".pull").is_dir() and not (path / ".pull").is_symlink():
        inside += [path / ".pull" / f for f in os.listdir(path / ".pull")]
    side = [] if is_dir else [path.with_name(path.name + s) for s in DB_SIDE_SUFFIXES[1:]]
    for item in inside + side:
        made = _private(item, 0o700 if os.path.isdir(item) and not os.path.islink(item) else 0o600)
        changed = changed or bool(made and made[1])
    if not changed:
        return None
    return f"{path} was readable by others ({found[0]:04o}); made it private ({'0700' if is_dir else '0600'})"


def tighten(home: Path, db_path: Path) -> list[str]:
    """Make the home private (folder 0700; database and its side files 0600; settings.json, checkpoints.db,
    `.locks/` and `models/` likewise, `OWN_PRIVATE`); one line per change made.

    On Windows modes mean nothing (every file looks readable by others there) and the home is left as
    its folder's access list has it: a folder in the user's profile is theirs alone."""
    notes: list[str] = []
    if not POSIX_MODES:
        return notes
    try:
        mode = stat.S_IMODE(home.stat().st_mode)
        if mode & 0o077:
            os.chmod(home, 0o700)
            notes.append(f"{home} was readable by others ({mode:04o}); made it private (0700)")
    except OSError as exc:
        notes.append(f"could not make {home} private: {exc}")
    for suffix in DB_SIDE_SUFFIXES:
        path = db_path.with_name(db_path.name + suffix)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or not (stat.S_IMODE(st.st_mode) & 0o077):
            continue
        try:
            os.chmod(path, 0o600)
            if suffix == "":
                notes.append(f"{path} was readable by others ({stat.S_IMODE(st.st_mode):04o}); made it private (0600)")
        except OSError as exc:
            notes.append(f"could not make {path} private: {exc}")
    for name in OWN_PRIVATE:
        try:
            note = _tighten_one(home, name)
        except OSError as exc:
            note = f"could not make {home / name} private: {exc}"
        if note:
            notes.append(note)
    for note in notes:
        log.warning("%s", note)
    return notes


def make_home(home: Path) -> None:
    """Create the home (0700) and its media folders; an existing home keeps its contents."""
    try:
        if not home.exists():
            home.mkdir(mode=0o700, parents=True)
        for sub in ITEM_DIRS:
            (home / sub).mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise HomeRefused(f"cannot create the data home {home} ({exc.strerror or exc}); choose a folder you can "
                          "write (--home DIR)") from exc


def create_private(path: Path) -> None:
    """Create an empty file with mode 0600 if there is none (SQLite gives its side files the same mode)."""
    if os.path.lexists(path):
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600))
    except FileExistsError:
        pass  # another process starting on the same new home made it first
