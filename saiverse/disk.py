"""Files on this machine, as several packages need them: a path kept inside the data home, a size for
people, a file's sha256, whether a process lives.

Below `world/`, `llm/` and `care/`, which all use these and none of which should import another for them.
Every `FILE_PATH` goes through `resolve_in_home`: nothing outside `SAIVERSE_HOME` is ever read or written,
whatever a model, a playbook or an old database row says.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from portable import pid_alive as pid_alive  # lives beside the other per-system code; named here too
from saiverse.errors import UserError


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
