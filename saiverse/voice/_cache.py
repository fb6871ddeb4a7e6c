"""Generated audio kept in the home, so a line already spoken is never generated again.

`<home>/audio/<aa>/<sha256>.wav`, keyed by engine, voice, speed, pitch, server URL and the spoken text
(the same line in the same voice is the same file). Folders 0700, files 0600; each file is written whole
or not at all (saiverse/disk.py `atomic_write`), so a kill mid-write leaves no half WAV that would then be
served forever. The cache is capped (`voice_cache_mb`, 設定): after each new file the oldest used files go
first until it fits again; a hit refreshes a file's time, so what is replayed stays.

Backups hold only what the world's rows name (saiverse/care/_backup.py), so the cache is not in them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path

from saiverse.disk import atomic_write, private_folder

AUDIO_DIR = "audio"
"""The cache's folder in the data home."""
SUFFIX = ".wav"


class AudioCache:
    """The home's audio files; one per (voice, text)."""

    def __init__(self, home: Path, cap_bytes: int) -> None:
        self.root = Path(home) / AUDIO_DIR
        self.cap_bytes = int(cap_bytes)
        """Largest total size; 0 keeps nothing once spoken (each new file prunes all older ones)."""
        self._prune_lock = threading.Lock()

    @staticmethod
    def key(parts: dict[str, object], text: str) -> str:
        """The file's name: sha256 of the voice's parts and the text."""
        blob = json.dumps({**parts, "text": text}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{SUFFIX}"

    def get(self, key: str) -> Path | None:
        """The cached file, its time refreshed (it was just used); None when not cached."""
        path = self.path(key)
        if not path.is_file() or path.is_symlink():
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        return path

    def put(self, key: str, data: bytes) -> Path:
        """Keep `data` as the file for `key` (whole or not at all, 0600), then prune to the cap."""
        path = self.path(key)
        private_folder(path.parent)
        atomic_write(path, data)
        os.chmod(path, 0o600)
        self.prune(keep=path)
        return path

    def files(self) -> list[tuple[float, int, Path]]:
        """(last used, size, path) of every cached file, oldest first."""
        out: list[tuple[float, int, Path]] = []
        if not self.root.is_dir():
            return out
        for sub in self.root.iterdir():
            if not sub.is_dir() or sub.is_symlink():
                continue
            for path in sub.glob(f"*{SUFFIX}"):
                with contextlib.suppress(OSError):
                    st = path.stat()
                    out.append((st.st_mtime, st.st_size, path))
        out.sort()
        return out

    def size(self) -> int:
        return sum(size for _t, size, _p in self.files())

    def prune(self, keep: Path | None = None) -> list[Path]:
        """Remove the oldest used files until the total fits the cap (`keep`, the file just made, stays);
        returns what was removed."""
        removed: list[Path] = []
        with self._prune_lock:
            files = self.files()
            total = sum(size for _t, size, _p in files)
            for _t, size, path in files:
                if total <= self.cap_bytes:
                    break
                if keep is not None and path == keep:
                    continue
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed.append(path)
                total -= size
        return removed

    def clear(self) -> int:
        """Remove every cached file; returns how many."""
        n = 0
        for _t, _s, path in self.files():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                n += 1
        return n
