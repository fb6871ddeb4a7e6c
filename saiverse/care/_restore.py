"""Restore: a backup archive (saiverse/care/_backup.py) becomes a world again, in an empty home.

Nothing is written until the whole archive has been checked: it must be a zip with our manifest,
every entry name must be one a backup writes (no absolute paths, no `..`, no links — a zip-slip
entry is refused), the entries must be exactly those the manifest lists, and every entry's size and
sha256 must match. Then the files are extracted into a hidden folder beside the target (hashed
again as they are written), the database's integrity is checked — and that it is the SAIVerse database
the manifest describes, not an upstream or foreign one —, an archive from an older schema is
migrated, and only then does the folder become the home (one rename). The staging folder is claimed
while in use; one a killed restore left is removed by the next restore into the same target, and
when the app starts on that home (saiverse/care/_debris.py). A refusal or a failure
leaves the target as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from portable import O_BINARY
from saiverse.care._backup import (
    ARCHIVED_DIRS,
    CHECKPOINTS_ENTRY,
    CHUNK,
    DB_ENTRY,
    FILE_DIRS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SETTINGS_ENTRY,
    ProgressFn,
    count_rows,
    schema_version,
)
from saiverse.care._debris import Claim, remove_restore_debris, work_name
from saiverse.disk import private_folder
from saiverse.errors import UserError
from saiverse.inputs import InputError, open_regular
from words import say

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TOP_FILES = (DB_ENTRY, CHECKPOINTS_ENTRY, SETTINGS_ENTRY)
"""Restored with mode 600: they hold the world's memories and settings."""


class RestoreError(UserError):
    """An archive that cannot be restored, or a target that is not an empty home; nothing was written."""


@dataclass(frozen=True)
class RestoreResult:
    """A restored world: where, from which schema, and its counts against the manifest's."""

    home: Path
    schema_before: int
    schema_after: int
    counts: dict[str, int]
    """Counted in the restored database."""
    manifest: dict[str, Any] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"home": str(self.home), "schema_before": self.schema_before, "schema_after": self.schema_after,
                "counts": self.counts, "manifest_counts": self.manifest.get("counts", {}),
                "created_at": self.manifest.get("created_at"), "app_version": self.manifest.get("app_version")}


def check_entry_name(name: str) -> str:
    """`name` if a backup could have written it; RestoreError otherwise (zip-slip, links, odd paths)."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise RestoreError(f"the archive entry {name!r} is not a relative path; the archive was refused")
    parts = PurePosixPath(name).parts
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts) or name.endswith("/"):
        raise RestoreError(f"the archive entry {name!r} leaves its folder or is hidden; the archive was refused")
    if name in _TOP_FILES or name == MANIFEST:
        return name
    if len(parts) < 2 or parts[0] not in ARCHIVED_DIRS:
        raise RestoreError(f"the archive entry {name!r} is not part of a SAIVerse backup; the archive was refused")
    return name


def _read_manifest(zf: zipfile.ZipFile, archive: Path) -> dict[str, Any]:
    foreign = f"{archive.name} is not a SAIVerse backup"
    try:
        raw = zf.read(MANIFEST)
    except KeyError:
        raise RestoreError(f"{foreign} (it has no {MANIFEST}); nothing was written") from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RestoreError(f"{foreign} ({MANIFEST} is not JSON: {exc}); nothing was written") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RestoreError(f"{foreign} (its manifest is not one of ours); nothing was written")
    if not _is_int(manifest.get("format_version")) or manifest["format_version"] > FORMAT_VERSION:
        raise RestoreError(f"{archive.name} was written by a newer SAIVerse (backup format "
                           f"{manifest.get('format_version')!r}); upgrade SAIVerse to restore it")
    from database.migrate import LATEST_VERSION

    version = manifest.get("schema_version")
    if not _is_int(version) or version < 1:
        raise RestoreError(f"{archive.name}: the manifest has no usable schema_version; nothing was written")
    if version > LATEST_VERSION:
        raise RestoreError(f"{archive.name} holds schema version {version}, newer than this SAIVerse knows "
                           f"({LATEST_VERSION}); upgrade SAIVerse to restore it")
    files = manifest.get("files")
    if not isinstance(files, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str) and _is_int(f.get("size")) and f["size"] >= 0
            and isinstance(f.get("sha256"), str) and _SHA256.match(f["sha256"]) for f in files):
        raise RestoreError(f"{archive.name}: the manifest's file list is damaged; nothing was written")
    names = [f["name"] for f in files]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise RestoreError(f"{archive.name}: the manifest lists {twice!r} twice; the archive was refused and "
                           "nothing was written")
    return manifest


def _is_int(value: object) -> bool:
    """An integer, and not a bool (JSON `true` is not a version)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _copy_checked(src: IO[bytes], expected: dict[str, Any], sink: IO[bytes] | None) -> None:
    """Read an entry (into `sink` if given), refusing it when its bytes are not what the manifest says."""
    h = hashlib.sha256()
    size = 0
    limit = int(expected["size"])
    while chunk := src.read(CHUNK):
        size += len(chunk)
        if size > limit:
            break  # more bytes than announced: never inflate past the manifest's size
        h.update(chunk)
        if sink is not None:
            sink.write(chunk)
    if size != limit or h.hexdigest() != expected["sha256"]:
        raise RestoreError(f"the archive entry {expected['name']!r} is damaged (its checksum does not match the "
                           "manifest); the archive was refused and nothing was written")


def _open_archive(archive: Path) -> zipfile.ZipFile:
    """The archive as a zip, if it is a regular file: a FIFO would block the restore forever."""
    try:
        fh = open_regular(archive, say("what_archive"))
    except InputError as exc:
        raise RestoreError(say("in_restore_nothing", why=exc)) from exc
    try:
        return _OwnedZip(fh)
    except BaseException:
        fh.close()
        raise


class _OwnedZip(zipfile.ZipFile):
    """A zip over a file handle it owns: closing the zip closes the handle too."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._owned = fh
        super().__init__(fh)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._owned.close()


def verify_archive(archive: Path, progress: ProgressFn | None = None) -> dict[str, Any]:
    """Check every name and checksum of `archive` without writing anything; returns its manifest."""
    try:
        zf = _open_archive(archive)
    except FileNotFoundError:
        raise RestoreError(f"{archive} does not exist") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise RestoreError(f"{archive.name} is not a zip archive ({exc}); nothing was written") from exc
    with zf:
        manifest = _read_manifest(zf, archive)
        listed = {f["name"]: f for f in manifest["files"]}
        infos = zf.infolist()
        names = [i.filename for i in infos]
        for info in infos:
            check_entry_name(info.filename)
            if _is_link(info) or info.is_dir():
                raise RestoreError(f"the archive entry {info.filename!r} is a link or a folder; the archive was "
                                   "refused")
        if len(set(names)) != len(names):
            raise RestoreError(f"{archive.name} holds an entry twice; the archive was refused")
        for name in listed:
            check_entry_name(name)
        extra = sorted(set(names) - set(listed) - {MANIFEST})
        absent = sorted(set(listed) - set(names))
        if extra or absent:
            what = f"entries the manifest does not list: {', '.join(extra[:3])}" if extra else \
                f"entries the manifest lists are missing: {', '.join(absent[:3])}"
            raise RestoreError(f"{archive.name} does not match its manifest ({what}); nothing was written")
        if DB_ENTRY not in listed:
            raise RestoreError(f"{archive.name} holds no {DB_ENTRY}; nothing was written")
        total, done = sum(int(f["size"]) for f in listed.values()), 0
        for name, expected in listed.items():
            try:
                with zf.open(name) as src:
                    _copy_checked(src, expected, None)
            except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
                raise RestoreError(f"the archive entry {name!r} cannot be read ({exc}); the archive was refused "
                                   "and nothing was written") from exc
            done += int(expected["size"])
            if progress is not None:
                progress(done, total, name)
    return manifest


def _check_target(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise RestoreError(f"{target} is a file; restore into an empty folder (--home DIR)")
    if target.is_dir():
        inside = sorted(p.name for p in target.iterdir())
        if inside:
            shown = ", ".join(inside[:4]) + (" …" if len(inside) > 4 else "")
            raise RestoreError(f"{target} is not empty ({shown}); restore only into an empty or new folder "
                               "(--home DIR), so no world is ever overwritten")


def _extract(archive: Path, manifest: dict[str, Any], staging: Path, progress: ProgressFn | None) -> None:
    total, done = sum(int(f["size"]) for f in manifest["files"]), 0
    with _open_archive(archive) as zf:
        for expected in manifest["files"]:
            name = check_entry_name(expected["name"])
            dest = staging.joinpath(*PurePosixPath(name).parts)
            private_folder(dest.parent)  # every file of a home is private, as the app makes them (issue 34)
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
            with os.fdopen(fd, "wb") as sink, zf.open(name) as src:
                _copy_checked(src, expected, sink)  # hashed again: the file may have changed since verify
            done += int(expected["size"])
            if progress is not None:
                progress(done, total, name)


def _prepare_database(db: Path, manifest: dict[str, Any]) -> tuple[int, int, dict[str, int]]:
    """Integrity check, migration of an older schema; (schema before, after, counts)."""
    from database.migrate import MigrationError, is_upstream_database, migrate

    conn = sqlite3.connect(db)
    try:
        result = conn.execute("PRAGMA integrity_check").fetchone()
        upstream = is_upstream_database(conn)
        version = schema_version(conn)
    except sqlite3.DatabaseError as exc:
        raise RestoreError(f"the archive's {DB_ENTRY} cannot be read ({exc}); nothing was written") from exc
    finally:
        conn.close()
    if not result or result[0] != "ok":
        raise RestoreError(f"the archive's {DB_ENTRY} is damaged (SQLite: {result[0] if result else '?'}); "
                           "nothing was written")
    if upstream:
        raise RestoreError(f"the archive's {DB_ENTRY} is an upstream SAIVerse database (maha0525/SAIVerse), not a "
                           "backup of this app, so it was not restored and nothing was written. To bring such a city "
                           "over, run `python main.py import-saiverse <upstream home>` on the upstream home itself.")
    if version != manifest["schema_version"]:
        raise RestoreError(f"the archive's {DB_ENTRY} is not the SAIVerse database its manifest describes (schema "
                           f"version {version}, the manifest says {manifest['schema_version']}); it may be a "
                           "database of another program. Nothing was written.")
    try:
        report = migrate(db, backup=False)  # the archive itself is the backup of this database
    except MigrationError as exc:
        raise RestoreError(f"the archive's {DB_ENTRY} could not be brought to this schema: {exc}") from exc
    conn = sqlite3.connect(db)
    try:
        counts = count_rows(conn)
    finally:
        conn.close()
    return report.version_before, report.version_after, counts


def restore_into_home(archive: Path, target: Path, progress: ProgressFn | None = None) -> RestoreResult:
    """Rebuild the world of `archive` in `target`, an empty or new folder, as a SQLite home (see the module
    docstring; `restore_backup` in saiverse/care/_restore_pg.py chooses the backend)."""
    target = target.expanduser().resolve()
    archive = archive.expanduser().resolve()
    _check_target(target)
    manifest = verify_archive(archive, progress)
    need = sum(int(f["size"]) for f in manifest["files"])
    existing = next(p for p in (target, *target.parents) if p.exists())
    free = shutil.disk_usage(existing).free
    if need * 1.1 > free:
        raise RestoreError(f"not enough free space beside {target}: the world needs {need:,} bytes, "
                           f"{free:,} are free; nothing was written")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_restore_debris(target)  # what a killed restore into this target left (saiverse/care/_debris.py)
        claim = Claim(target.with_name(work_name(f".{target.name}.restore-")), folder=True)
    except OSError as exc:
        raise RestoreError(f"cannot write beside {target} ({exc.strerror or exc}); nothing was written") from exc
    staging = claim.path
    try:
        _extract(archive, manifest, staging, progress)
        before, after, counts = _prepare_database(staging / DB_ENTRY, manifest)
        counts["files"] = sum(1 for f in manifest["files"] if f["name"].split("/", 1)[0] in FILE_DIRS)
        _check_target(target)  # still empty: nothing appeared there meanwhile
        if target.is_dir():
            target.rmdir()
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        claim.release()
    return RestoreResult(target, before, after, counts, manifest)
