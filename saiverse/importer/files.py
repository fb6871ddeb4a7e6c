"""Files of an import (item files, `.summary.txt` sidecars, avatars): found in the source, staged in the target.

Where upstream keeps an item's file (`FILE_PATH`, see `item_source`): relative to its home, or an
absolute path from an older install, of which the part from `documents/`, `image/` or `audio/` on is used,
else `documents/<name>` / `image/<name>` / `audio/<name>` by type. An avatar is found by the `user_data/icons/` part
of its (usually stale, absolute) path. Nothing outside the source home is ever read.

Copies go to temp names beside their final place in the target home and are renamed only after the
database commit (`FileStager.commit`); on failure they are removed (`abort`). If the process dies,
`recover_staged_files` (run by the next import and when the app starts) renames the temps whose rows
were committed and removes the others.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path, PurePosixPath

from sqlalchemy import text

from database import Database
from saiverse.disk import ITEM_DIRS, pid_alive
from saiverse.importer.source import inside
from saiverse.world import SUMMARY_SUFFIX, relative_to_home, resolve_in_home

MANIFEST_PREFIX = ".import-saiverse-"
SCRATCH_PREFIX = ".import-scratch-"
TYPE_DIRS = {"document": "documents", "picture": "image", "audio": "audio"}
"""Where upstream keeps each kind's files (its audio items under `audio/`, this app's spoken-audio cache here)."""


def _item_candidates(file_path: str, item_type: str) -> tuple[str, list[str]]:
    raw = file_path.replace("\\", "/").strip()
    candidates: list[str] = []
    if not _absolute(raw):
        candidates.append(raw)
    parts = raw.split("/")
    for marker in ("documents", "image", "audio"):
        if marker in parts:
            candidates.append("/".join(parts[parts.index(marker):]))
    if item_type in TYPE_DIRS:
        candidates.append(f"{TYPE_DIRS[item_type]}/{parts[-1]}")
    return raw, candidates


def _absolute(raw: str) -> bool:
    return PurePosixPath(raw).is_absolute() or (len(raw) > 1 and raw[1] == ":")


def item_source(home: Path, file_path: str, item_type: str) -> Path | None:
    """The source file of an upstream item (None when it cannot be found inside the source home)."""
    raw, candidates = _item_candidates(file_path, item_type)
    if not raw:
        return None
    for rel in candidates:
        found = inside(home, rel)
        if found is not None and found.is_file():
            return found
    return None


def why_not_found(home: Path, file_path: str, item_type: str) -> str:
    """Why `item_source` found nothing: "link" (a link in the home leads out of it, not followed),
    "outside" (an absolute path with no copy of the file inside the home; it is never read), or "missing"."""
    raw, candidates = _item_candidates(file_path, item_type)
    for rel in candidates:
        if inside(home, rel) is None and os.path.lexists(home / rel):
            return "outside" if ".." in PurePosixPath(rel).parts else "link"
    return "outside" if raw and (_absolute(raw) or ".." in PurePosixPath(raw).parts) else "missing"


def avatar_source(home: Path, avatar: str) -> Path | None:
    """An upstream avatar file, found by the `user_data/icons/` part of its stored path."""
    raw = avatar.replace("\\", "/").strip()
    marker = "user_data/icons/"
    rel = raw[raw.index(marker):] if marker in raw else raw
    if PurePosixPath(rel).is_absolute():
        return None
    found = inside(home, rel)
    return found if found is not None and found.is_file() else None




class FileStager:
    """Copies staged under temp names in the target home, renamed into place after the commit.

    A manifest naming the process and the temp-name token is written before the first copy, so if
    the process dies `recover_staged_files` can find the temps (`.<name>.import-<token>.tmp`).
    """

    def __init__(self, home: Path, token: str) -> None:
        self.home = home
        self.token = token
        self.pairs: list[tuple[Path, Path]] = []
        self.bytes = 0
        self._planned: set[Path] = set()
        self.manifest = home / f"{MANIFEST_PREFIX}{token}.json"
        tmp = self.manifest.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "token": token}), encoding="utf-8")
        os.replace(tmp, self.manifest)

    def free_path(self, rel: str) -> Path:
        """Where `rel` can go in the target: itself, or the same name with a suffix if that is taken."""
        final = resolve_in_home(self.home, rel)
        base, n = final, 0
        while final.exists() or final in self._planned or final.with_name(final.name + SUMMARY_SUFFIX).exists():
            n += 1
            final = base.with_name(f"{base.stem}_{self.token[:8]}{'' if n == 1 else n}{base.suffix}")
        self._planned.add(final)
        return final

    def copy(self, source: Path, final: Path) -> None:
        """Copy `source` byte for byte to a synced temp file beside `final`."""
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{final.name}{_temp_suffix(self.token)}")
        self.pairs.append((tmp, final))
        shutil.copyfile(source, tmp)
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        self.bytes += tmp.stat().st_size

    def relative(self, final: Path) -> str:
        return relative_to_home(self.home, final)

    def commit(self) -> None:
        for tmp, final in self.pairs:
            os.replace(tmp, final)
        self.manifest.unlink(missing_ok=True)

    def abort(self) -> None:
        for tmp, _final in self.pairs:
            tmp.unlink(missing_ok=True)
        self.manifest.unlink(missing_ok=True)


def _temp_suffix(token: str) -> str:
    return f".import-{token}.tmp"


def recover_staged_files(home: Path, db: Database) -> int:
    """Finish (or undo) the renames of an import that died after (or before) its commit; returns files renamed."""
    if not home.is_dir():
        return 0
    for folder in home.glob(f"{SCRATCH_PREFIX}*"):
        if folder.is_dir() and not pid_alive(_scratch_pid(folder)):
            shutil.rmtree(folder, ignore_errors=True)
    renamed = 0
    for manifest in sorted(home.glob(f"{MANIFEST_PREFIX}*.json")):
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            pid, token = int(data["pid"]), str(data["token"])
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            manifest.unlink(missing_ok=True)
            continue
        if pid != os.getpid() and pid_alive(pid):
            continue  # an import still running in another process
        referenced = _referenced(db)
        suffix = _temp_suffix(token)
        for top in (*ITEM_DIRS, "icons"):
            for tmp in (home / top).rglob(f".*{suffix}"):
                final = tmp.with_name(tmp.name[1:-len(suffix)])
                main = final.name.removesuffix(SUMMARY_SUFFIX)
                if relative_to_home(home, final.with_name(main)) in referenced:
                    os.replace(tmp, final)
                    renamed += 1
                else:
                    tmp.unlink(missing_ok=True)
        manifest.unlink(missing_ok=True)
    return renamed


def _scratch_pid(folder: Path) -> int:
    try:
        return int(folder.name[len(SCRATCH_PREFIX):].split("-")[0])
    except ValueError:
        return 0


def _referenced(db: Database) -> set[str]:
    with db.engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT FILE_PATH FROM item WHERE FILE_PATH IS NOT NULL "
            "UNION SELECT AVATAR_IMAGE FROM ai WHERE AVATAR_IMAGE IS NOT NULL"))
        return {str(r[0]) for r in rows}


def scratch_folder(home: Path, token: str) -> Path:
    """A private folder in the target home for copies of source databases with pending WAL content."""
    return home / f"{SCRATCH_PREFIX}{os.getpid()}-{token}"

