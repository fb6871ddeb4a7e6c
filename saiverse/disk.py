"""Two facts about this machine that several parts check: a file's sha256, whether a process lives."""

from __future__ import annotations

import hashlib
from pathlib import Path

from portable import pid_alive as pid_alive  # lives beside the other per-system code; named here too


def sha256_of(path: Path) -> str:
    """The hex sha256 of the file at `path`, read in 1 MiB blocks (a model file is gigabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
