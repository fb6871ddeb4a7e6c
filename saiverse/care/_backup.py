"""Backups: one `.zip` that holds a whole world, taken while the app may be running.

What goes in (README, "Backup and restore"): a consistent snapshot of `saiverse.db` and of
`checkpoints.db` made with SQLite's online backup API (one read transaction, so writers carry on
and the copy is one moment of the database; a PostgreSQL city's two files come from one read-only
snapshot of its database, saiverse/care/_pgcopy.py), every file the snapshot's rows name — item files with
their `.summary.txt` sidecars, production bundles, avatars — `settings.json` with every API key
removed, and `manifest.json`: the format, app and schema versions, counts per kind and the size
and sha256 of every other entry. Files are chosen from the snapshot, not from the folders, so a
restored world has no file its rows do not name.

The archive is created mode 600 under a temporary name and renamed into place when complete, so a
half-written backup never looks like a backup; the snapshot folder and the temporary archive are
claimed while in use, and what a killed backup left is removed by the next one (saiverse/care/_debris.py).
An archive is never written inside the home's file folders (`image/`, `documents/`, …). A key never
goes into an archive: `.env` files are never read, and `settings.json` is rewritten without its
secret fields.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from database.engine import is_postgres
from saiverse import __version__
from saiverse.care._debris import Claim, remove_backup_debris, work_name
from saiverse.care._home_safety import link_out_of_home
from saiverse.disk import ITEM_DIRS
from saiverse.errors import UserError
from saiverse.locks import HomeLock
from saiverse.settings import SAVED_SETTINGS_FILE, SECRET_KEYS, read_saved_settings
from saiverse.world import SUMMARY_SUFFIX, UnsafePathError, committed_copy, resolve_in_home, staged_name

FORMAT = "saiverse-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DB_ENTRY = "saiverse.db"
CHECKPOINTS_ENTRY = "checkpoints.db"
SETTINGS_ENTRY = SAVED_SETTINGS_FILE
FILE_DIRS = (*ITEM_DIRS, "icons")
"""Top-level folders an archive may hold files under (item files, bundles, avatars)."""
AUDIO_DIR = "audio"
"""The spoken audio cache (saiverse/voice/_cache.py): archived only when asked (`with_audio`; the setting
`voice_in_backups`, `backup --with-audio`), as it can be made again and may be large."""
ARCHIVED_DIRS = (*FILE_DIRS, AUDIO_DIR)
"""Every top-level folder an archive may hold (what a restore accepts)."""
STORED_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".zip", ".pdf", ".mp3", ".webm", ".ogg", ".m4a", ".aac")
"""Already compressed: stored as they are rather than deflated again."""
CHUNK = 1 << 20
COUNTS: dict[str, str] = {
    "buildings": "SELECT count(*) FROM building",
    "personas": "SELECT count(*) FROM ai",
    "items": "SELECT count(*) FROM item",
    "pictures": "SELECT count(*) FROM item WHERE TYPE = 'picture'",
    "documents": "SELECT count(*) FROM item WHERE TYPE = 'document'",
    "messages": "SELECT count(*) FROM saimemory",
    "history_lines": "SELECT count(*) FROM building_history",
    "chronicle_entries": "SELECT count(*) FROM chronicle_entry",
    "memopedia_pages": "SELECT count(*) FROM memopedia_page",
    "schedules": "SELECT count(*) FROM schedule",
    "production_runs": "SELECT count(*) FROM production_run",
    "playbooks": "SELECT count(*) FROM playbooks",
}
"""Kinds counted in the manifest; a table an older schema lacks is left out."""

ProgressFn = Callable[[int, int, str], None]
"""(bytes done, bytes in all, what is being done) — the UI's gr.Progress, a CLI bar."""


class BackupError(UserError):
    """A backup that cannot be made (no world, a damaged database, a target that exists)."""


@dataclass(frozen=True)
class BackupResult:
    """A finished backup: where it is and what its manifest says."""

    path: Path
    """The archive."""
    manifest: dict[str, Any]
    """Its manifest (format, versions, counts, files)."""

    @property
    def size(self) -> int:
        """Bytes of the archive."""
        return self.path.stat().st_size

    def to_dict(self) -> dict[str, Any]:
        m = self.manifest
        return {"path": str(self.path), "size": self.size, "schema_version": m["schema_version"],
                "app_version": m["app_version"], "created_at": m["created_at"], "kind": m.get("kind", "manual"),
                "counts": m["counts"], "files": len(m["files"]), "missing": m.get("missing", [])}


@dataclass
class _Entry:
    """One file to archive: its name in the zip and where it is now."""

    name: str
    path: Path
    size: int = 0


@dataclass
class _Plan:
    """What one archive will hold."""

    entries: list[_Entry] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(e.size for e in self.entries)


def snapshot_sqlite(source: Path, target: Path) -> None:
    """Copy a live SQLite database into `target` with the online backup API, as one moment in time.

    All pages are copied in one step, i.e. inside one read transaction: in WAL mode writers are
    not blocked, and a copy made step by step would restart whenever another connection writes.
    The copy is left in rollback-journal mode, a single self-contained file.
    """
    if not os.path.lexists(target):  # 0600 before SQLite opens it: a snapshot holds memories (issue 34)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    src = sqlite3.connect(source, timeout=30)
    try:
        dest = sqlite3.connect(target)
        try:
            src.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
    finally:
        src.close()


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in a database (database/migrate.py), 0 if none."""
    from database.migrate import current_version

    return current_version(conn)


def count_rows(conn: sqlite3.Connection) -> dict[str, int]:
    """The manifest's counts of an open database (kinds its schema lacks are left out)."""
    counts: dict[str, int] = {}
    for kind, sql in COUNTS.items():
        try:
            counts[kind] = int(conn.execute(sql).fetchone()[0])
        except sqlite3.OperationalError:
            continue  # an older schema without this table
    return counts


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def referenced_files(conn: sqlite3.Connection) -> list[str]:
    """Every home-relative path the database names: item files, bundles and avatars."""
    names: list[str] = []
    if "FILE_PATH" in _columns(conn, "item"):
        for file_path, state_json in conn.execute(
                "SELECT FILE_PATH, STATE_JSON FROM item WHERE FILE_PATH IS NOT NULL AND FILE_PATH != ''"):
            names.append(file_path)
            try:
                state = json.loads(state_json or "{}")
            except ValueError:
                state = {}
            if isinstance(state, dict) and isinstance(state.get("bundle"), str):
                names.append(state["bundle"])
    if "AVATAR_IMAGE" in _columns(conn, "ai"):
        names += [r[0] for r in conn.execute("SELECT AVATAR_IMAGE FROM ai WHERE AVATAR_IMAGE IS NOT NULL "
                                              "AND AVATAR_IMAGE != ''")]
    return names


def document_states(db: Path) -> dict[str, dict[str, Any]]:
    """FILE_PATH → STATE_JSON of every text document in a snapshot (its committed version and sha256)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT FILE_PATH, STATE_JSON FROM item WHERE TYPE = 'document' "
                            "AND FILE_PATH IS NOT NULL").fetchall()
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()
    states: dict[str, dict[str, Any]] = {}
    for file_path, state_json in rows:
        try:
            state = json.loads(state_json or "{}")
        except ValueError:
            continue
        if isinstance(state, dict) and "version" in state:
            states[file_path] = state
    return states


def _plan_files(home: Path, names: Iterable[str], plan: _Plan,
                states: dict[str, dict[str, Any]] | None = None) -> None:
    """Item files (with sidecars) and avatars that exist and stay inside the home; the rest is `missing`.

    A document whose save committed but was not renamed in yet is archived as its committed version
    (saiverse/world/_doc_versions.py), under its own name.
    """
    seen: set[str] = set()
    for raw in names:
        try:
            path = resolve_in_home(home, raw)
        except (UnsafePathError, ValueError):
            plan.missing.append(raw)
            continue
        rel = path.relative_to(home.resolve()).as_posix()
        if rel.split("/", 1)[0] not in FILE_DIRS:
            plan.missing.append(raw)  # only the file folders are archived (and restored)
            continue
        sidecar = path.with_name(path.name + SUMMARY_SUFFIX)
        state = (states or {}).get(raw)
        if state is not None and committed_copy(path, state) != path:
            path = committed_copy(path, state)
            staged_summary = staged_name(sidecar, int(state["version"]))
            sidecar = staged_summary if staged_summary.is_file() else sidecar
        for name, candidate in ((rel, path), (rel + SUMMARY_SUFFIX, sidecar)):
            if name in seen:
                continue
            seen.add(name)
            if candidate.is_file():
                plan.entries.append(_Entry(name, candidate, candidate.stat().st_size))
            elif name == rel:
                plan.missing.append(rel)


def _plan_audio(home: Path, plan: _Plan) -> None:
    """The audio cache's files (`audio/<aa>/<sha256>.wav`), none through a link."""
    root = home / AUDIO_DIR
    if not root.is_dir() or root.is_symlink():
        return
    for sub in sorted(root.iterdir()):
        if not sub.is_dir() or sub.is_symlink():
            continue
        for path in sorted(sub.glob("*.wav")):
            if path.is_file() and not path.is_symlink():
                plan.entries.append(_Entry(f"{AUDIO_DIR}/{sub.name}/{path.name}", path, path.stat().st_size))


def _settings_without_keys(home: Path) -> bytes | None:
    """settings.json minus every secret field (None when nothing else is saved)."""
    saved = {k: v for k, v in read_saved_settings(home).items() if k not in SECRET_KEYS}
    return json.dumps(saved, ensure_ascii=False, indent=2).encode("utf-8") if saved else None


def _zipinfo(name: str, size: int, mtime: float | None = None) -> zipfile.ZipInfo:
    stamp = datetime.fromtimestamp(mtime) if mtime else datetime.now()
    info = zipfile.ZipInfo(name, date_time=(max(stamp.year, 1980), stamp.month, stamp.day, stamp.hour,
                                            stamp.minute, stamp.second))
    info.compress_type = zipfile.ZIP_STORED if name.lower().endswith(STORED_SUFFIXES) else zipfile.ZIP_DEFLATED
    info.file_size = size
    info.external_attr = 0o600 << 16
    return info


class _Writer:
    """Writes entries into an open zip, hashing what it writes; reports progress in bytes."""

    def __init__(self, zf: zipfile.ZipFile, total: int, progress: ProgressFn | None) -> None:
        self.zf, self.total, self.progress, self.done = zf, total, progress, 0
        self.files: list[dict[str, Any]] = []

    def add_file(self, entry: _Entry) -> None:
        # One open handle: a document renamed over meanwhile is read whole, in its old or new version.
        with entry.path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            info = _zipinfo(entry.name, size, os.fstat(fh.fileno()).st_mtime)
            h = hashlib.sha256()
            written = 0
            with self.zf.open(info, "w", force_zip64=size > (1 << 30)) as out:
                for chunk in iter(lambda: fh.read(CHUNK), b""):
                    h.update(chunk)
                    out.write(chunk)
                    written += len(chunk)
                    self._advance(len(chunk), entry.name)
        self.files.append({"name": entry.name, "size": written, "sha256": h.hexdigest()})

    def add_bytes(self, name: str, data: bytes) -> None:
        self.zf.writestr(_zipinfo(name, len(data)), data)
        self.files.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})

    def _advance(self, n: int, what: str) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total, what)


def _check_snapshot(path: Path) -> tuple[int, dict[str, int], list[str]]:
    """(schema version, counts, referenced files) of a snapshot; a damaged one is refused."""
    conn = sqlite3.connect(path)
    try:
        result = conn.execute("PRAGMA quick_check").fetchone()
        problem = None if result and result[0] == "ok" else (result[0] if result else "no answer")
        if problem is None:
            return schema_version(conn), count_rows(conn), referenced_files(conn)
    except sqlite3.DatabaseError as exc:
        problem = str(exc)
    finally:
        conn.close()
    raise BackupError(f"the database is damaged (SQLite: {problem}); no backup was written and the existing "
                      "backups were kept")


def _check_out(home: Path, out: Path) -> None:
    """Refuse an archive inside the home's file folders (only the home itself and `backups/` may hold one)."""
    real = out.resolve()  # as far as it exists: a link on the way is followed
    if not real.is_relative_to(home):
        return
    rel = real.relative_to(home)
    if len(rel.parts) > 1 and rel.parts[0] != "backups":
        raise BackupError(f"{out} is inside {home / rel.parts[0]}, which holds the world's own files; write the "
                          f"backup to {home / 'backups'} or outside the home. Nothing was written.")


def _write(home: Path, db_path: Path, work: Path, tmp: Path, checkpoints_path: Path | None, kind: str,
           progress: ProgressFn | None, database_url: str | None = None, with_audio: bool = False) -> dict[str, Any]:
    """Snapshot the databases into `work` and write the archive to `tmp`; returns its manifest."""
    if progress is not None:
        progress(0, 1, DB_ENTRY)
    if database_url is not None and is_postgres(database_url):
        # A PostgreSQL city: one read-only snapshot becomes the same saiverse.db and checkpoints.db
        # a SQLite home's backup holds (saiverse/care/_pgcopy.py), so any backup restores anywhere.
        from saiverse.care._pgcopy import CopyError, snapshot_pg

        try:
            snapshot_pg(database_url, work / DB_ENTRY, work / CHECKPOINTS_ENTRY)
        except CopyError as exc:
            raise BackupError(f"{exc}; no backup was written") from exc
    else:
        try:
            snapshot_sqlite(db_path, work / DB_ENTRY)
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{db_path} cannot be read ({exc}); no backup was written") from exc
    try:
        version, counts, names = _check_snapshot(work / DB_ENTRY)
    except BackupError:
        if database_url is None or not is_postgres(database_url):
            from database.clean_close import distrust

            distrust(db_path)  # the next start checks the whole file again, and refuses it (database/clean_close.py)
        raise
    plan = _Plan(entries=[_Entry(DB_ENTRY, work / DB_ENTRY, (work / DB_ENTRY).stat().st_size)])
    checkpoints = checkpoints_path or home / CHECKPOINTS_ENTRY
    if (work / CHECKPOINTS_ENTRY).is_file():
        plan.entries.append(_Entry(CHECKPOINTS_ENTRY, work / CHECKPOINTS_ENTRY,
                                   (work / CHECKPOINTS_ENTRY).stat().st_size))
    elif checkpoints.is_file() and not (database_url is not None and is_postgres(database_url)):
        snapshot_sqlite(checkpoints, work / CHECKPOINTS_ENTRY)
        plan.entries.append(_Entry(CHECKPOINTS_ENTRY, work / CHECKPOINTS_ENTRY,
                                   (work / CHECKPOINTS_ENTRY).stat().st_size))
    _plan_files(home, names, plan, document_states(work / DB_ENTRY))
    if with_audio:
        _plan_audio(home, plan)
    archive = Claim(tmp, folder=False)
    with os.fdopen(os.dup(archive.fd), "wb") as fh:
        try:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
                writer = _Writer(zf, plan.total, progress)
                for entry in plan.entries:
                    try:
                        writer.add_file(entry)
                    except FileNotFoundError:  # removed since the snapshot (its item was deleted meanwhile)
                        plan.missing.append(entry.name)
                counts["files"] = sum(1 for f in writer.files if f["name"].split("/", 1)[0] in FILE_DIRS)
                settings = _settings_without_keys(home)
                if settings is not None:
                    writer.add_bytes(SETTINGS_ENTRY, settings)
                manifest = {
                    "format": FORMAT, "format_version": FORMAT_VERSION, "app_version": __version__,
                    "schema_version": version, "created_at": datetime.now().isoformat(timespec="seconds"),
                    "kind": kind, "counts": counts, "files": writer.files, "missing": plan.missing,
                }
                zf.writestr(_zipinfo(MANIFEST, 0), json.dumps(manifest, ensure_ascii=False, indent=1))
            fh.flush()
            os.fsync(fh.fileno())
        finally:
            archive.release()
    return manifest


def create_backup(home: Path, db_path: Path, out: Path, *, checkpoints_path: Path | None = None,
                  kind: str = "manual", progress: ProgressFn | None = None, lock_home: bool = True,
                  database_url: str | None = None, with_audio: bool = False) -> BackupResult:
    """Write the world under `home` into the new archive `out` (see the module docstring).

    `database_url` of a PostgreSQL city: its rows come from one snapshot of that database (the item
    files from `home`, as always); otherwise the world is the SQLite file `db_path`.

    `lock_home` holds the home's shared lock meanwhile (saiverse/locks.py), so a process starting
    on it does not tidy files away mid-read; a process that already holds it (the app) passes False.
    """
    home = home.expanduser().resolve()
    out = out.expanduser().absolute()
    _check_out(home, out)
    if database_url is not None and is_postgres(database_url):
        if not home.is_dir():
            raise BackupError(f"there is no home at {home} (a PostgreSQL city keeps its item files there); "
                              "no backup was written")
    elif not db_path.is_file():
        raise BackupError(f"there is no world to back up at {home} (no {db_path.name})")
    if out.exists():
        raise BackupError(f"{out} already exists; choose another file name (a backup never overwrites a file)")
    problem = link_out_of_home(home)
    if problem:
        raise BackupError(problem.replace("did not open this home", "wrote no backup"))
    try:
        out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        out = out.resolve()
        remove_backup_debris(out.parent)  # what a killed backup left here (saiverse/care/_debris.py)
        work = Claim(out.parent / work_name(".backup-"), folder=True)  # mode 700: snapshots hold memories
    except OSError as exc:
        raise BackupError(f"cannot write the backup to {out} ({exc.strerror or exc}); nothing was written") from exc
    lock = HomeLock(home) if lock_home else None
    tmp = out.with_name(work_name(f".{out.name}.", ".tmp"))
    try:
        manifest = _write(home, db_path, work.path, tmp, checkpoints_path, kind, progress, database_url, with_audio)
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise BackupError(f"cannot write the backup to {out} ({exc.strerror or exc}); nothing was written and "
                          "the existing backups were kept") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(work.path, ignore_errors=True)
        work.release()
        if lock is not None:
            lock.close()
    return BackupResult(out, manifest)
