"""Facts about this machine that several parts check (a file's sha256, whether a process lives), and the
one way the app makes a folder in the home: private, its missing parents too."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from portable import pid_alive as pid_alive  # lives beside the other per-system code; named here too


def sha256_of(path: Path) -> str:
    """The hex sha256 of the file at `path`, read in 1 MiB blocks (a model file is gigabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
