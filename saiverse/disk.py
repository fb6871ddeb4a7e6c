"""Files on this machine, as several packages need them: a path kept inside the data home, the one way the
app makes a folder in the home (private, its missing parents too), a size for people, a file's sha256,
whether a process lives, a file written whole or not at all.

Below `world/`, `llm/` and `care/`, which all use these and none of which should import another for them.
Every `FILE_PATH` goes through `resolve_in_home`: nothing outside `SAIVERSE_HOME` is ever read or written,
whatever a model, a playbook or an old database row says.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from portable import pid_alive as pid_alive  # lives beside the other per-system code; named here too
from saiverse.errors import UserError

ITEM_DIRS = ("image", "documents", "recordings")
"""Folders of item files: pictures, documents, audio items (saiverse/world/_item_audio.py). Backups, restore,
start-up repair and the importer walk exactly these (with `icons/` for avatars)."""
HOME_DIRS = (*ITEM_DIRS, "icons", "orphans", "backups", "models", ".locks")
"""Folders of a home the app writes into or walks: none of them may lead out of the home."""


def sha256_of(path: Path) -> str:
    """The hex sha256 of the file at `path`, read in 1 MiB blocks (a model file is gigabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class UnsafePathError(UserError, ValueError):
    """A file path that would leave the data home."""


def resolve_in_home(home: Path, file_path: str | os.PathLike[str]) -> Path:
    """Absolute path of `file_path` (relative to home, or absolute) if it stays inside `home`."""
    raw = str(file_path)
    if not raw or "\x00" in raw:
        raise UnsafePathError("empty or invalid file path")
    root = home.resolve()
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()  # follows symlinks, so a link pointing out is caught too
    if resolved != root and not resolved.is_relative_to(root):
        raise UnsafePathError(f"file path {raw!r} is outside the data home; refused")
    return resolved


def relative_to_home(home: Path, path: Path) -> str:
    """How a path is stored in `FILE_PATH`: relative to the home, with forward slashes."""
    return path.resolve().relative_to(home.resolve()).as_posix()


def human_size(size: int) -> str:
    """1234567 → '1.2 MB' (the CLI and the 設定 tab show archive sizes alike)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def private_folder(path: Path) -> Path:
    """Make `path` a folder 0700, and every missing folder above it 0700 too: `mkdir(mode=…, parents=True)`
    gives the parents the umask's mode, so a home first made by its `.locks/` or `models/` was 0755 and
    the start then said it "was readable by others" (issue 34)."""
    missing: list[Path] = []
    folder = Path(path)
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:
            pass  # another process made it meanwhile
    return Path(path)


def link_out_of_home(home: Path) -> str | None:
    """The refusal for a folder of `home` that is a link leading outside it (None when there is none)."""
    real_home = home.resolve()
    for name in HOME_DIRS:
        path = home / name
        if not os.path.lexists(path):
            continue
        target = path.resolve()
        if path.is_symlink() and not (target == real_home or target.is_relative_to(real_home)):
            return (f"{path} is a link to {target}, outside the data home. SAIVerse keeps every file inside its "
                    f"home and never reads, moves or deletes through such a link, so it did not open this home "
                    f"and changed nothing. Replace the link by a real folder (move the files into {path}) and "
                    "start again.")
        if not path.is_dir() and name != ".locks":
            return f"{path} is not a folder; SAIVerse needs it to be one. Nothing was changed."
    return None


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write via a temp file in the same directory and rename, so readers never see half a file."""
    tmp, final = stage_write(path, data)
    try:
        commit_staged(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def stage_write(path: Path, data: bytes | str) -> tuple[Path, Path]:
    """Write `data` to a synced temp file beside `path`; `commit_staged` renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp), path


def commit_staged(tmp: Path, path: Path) -> None:
    """Atomically replace `path` with a staged temp file."""
    os.replace(tmp, path)
