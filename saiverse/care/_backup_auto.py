"""Automatic backups under `<home>/backups/`: daily while the app runs, before a migration, before a delete.

Each is a full archive (saiverse/care/_backup.py) named `saiverse-<kind>-<YYYYMMDD-HHMMSS>[-<label>].zip`.
The newest `keep` of each automatic kind are kept (SAIVERSE_BACKUP_KEEP, default 7) — per kind, so a
run of deletions never pushes the daily backups out, nor the other way round. Backups made by hand
(`manual`) are never removed. The daily one is due when the newest daily backup is a day old, so a
restarted app does not back up again at every start.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saiverse.care._backup import BackupResult, ProgressFn, create_backup

if TYPE_CHECKING:
    from database.migrate import MigrationReport
    from saiverse.settings import Settings

log = logging.getLogger(__name__)
KINDS = ("manual", "daily", "migration", "delete")
"""Why a backup was made; every kind but `manual` is rotated."""
DAILY = timedelta(days=1)
_NAME = re.compile(r"^saiverse-(?P<kind>[a-z]+)-(?P<stamp>\d{8}-\d{6})(?:-(?P<n>\d+))?(?:-(?P<label>[A-Za-z0-9_.-]+))?"
                   r"\.zip$")


@dataclass(frozen=True)
class BackupEntry:
    """One archive in the backups folder."""

    path: Path
    kind: str
    created: datetime
    label: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "name": self.path.name, "kind": self.kind,
                "created": self.created.isoformat(timespec="seconds"), "label": self.label, "size": self.size}


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.-")[:40]


class BackupStore:
    """The backups folder of one home: make, list and rotate archives."""

    def __init__(self, home: Path, db_path: Path, *, checkpoints_path: Path | None = None,
                 keep: Callable[[], int] = lambda: 7, lock_home: bool = True, database_url: str | None = None,
                 with_audio: Callable[[], bool] = lambda: False) -> None:
        self.home = home
        self.db_path = db_path
        self.checkpoints_path = checkpoints_path
        self.keep = keep
        """How many of each automatic kind to keep (read at each rotation: the setting may change)."""
        self.folder = home / "backups"
        self.lock_home = lock_home
        self.database_url = database_url
        """A PostgreSQL city's URL: its rows are read from there (None: the SQLite file `db_path`)."""
        """Take the home's shared lock while backing up (False in the app, which holds it already)."""
        self.with_audio = with_audio
        """Whether archives hold the spoken audio cache too (the setting `voice_in_backups`; read at each backup)."""
        self._lock = threading.Lock()

    def _new_path(self, kind: str, label: str, now: datetime) -> Path:
        base = f"saiverse-{kind}-{now.strftime('%Y%m%d-%H%M%S')}"
        suffix = f"-{_label(label)}" if _label(label) else ""
        path, n = self.folder / f"{base}{suffix}.zip", 1
        while path.exists():
            path, n = self.folder / f"{base}-{n}{suffix}.zip", n + 1
        return path

    def create(self, kind: str = "manual", label: str = "", *, progress: ProgressFn | None = None,
               now: datetime | None = None) -> BackupResult:
        """A new archive of `kind` in the folder; older ones of an automatic kind beyond `keep` go."""
        if kind not in KINDS:
            raise ValueError(f"unknown backup kind {kind!r} ({', '.join(KINDS)})")
        with self._lock:  # one backup at a time in this process (the daily one may meet a delete's)
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            result = create_backup(self.home, self.db_path, self._new_path(kind, label, now or datetime.now()),
                                   checkpoints_path=self.checkpoints_path, kind=kind, progress=progress,
                                   lock_home=self.lock_home, database_url=self.database_url,
                                   with_audio=self.with_audio())
            if kind != "manual":
                self.rotate(kind)
        log.info("backup written: %s", result.path)
        return result

    def list(self) -> list[BackupEntry]:
        """Every archive in the folder, newest first."""
        if not self.folder.is_dir():
            return []
        out = []
        for path in self.folder.glob("saiverse-*.zip"):
            m = _NAME.match(path.name)
            if not m or m.group("kind") not in KINDS:
                continue
            try:
                size = path.stat().st_size
            except OSError:
                continue  # removed by a rotation meanwhile
            created = datetime.strptime(m.group("stamp"), "%Y%m%d-%H%M%S")
            out.append(BackupEntry(path, m.group("kind"), created, m.group("label") or "", size))
        return sorted(out, key=lambda e: (e.created, e.path.name), reverse=True)

    def rotate(self, kind: str) -> list[Path]:
        """Remove the archives of `kind` beyond the newest `keep`; returns what was removed."""
        if kind == "manual":
            return []
        keep = max(1, int(self.keep()))
        removed = [e.path for e in self.list() if e.kind == kind][keep:]
        for path in removed:
            path.unlink(missing_ok=True)
        return removed

    def daily_due(self, now: datetime | None = None) -> bool:
        """Whether the newest daily backup is a day old (or there is none)."""
        now = now or datetime.now()
        newest = next((e for e in self.list() if e.kind == "daily"), None)
        return newest is None or now - newest.created >= DAILY

    def daily_if_due(self, now: datetime | None = None) -> BackupResult | None:
        """Take the daily backup when it is due (the ticker calls this); None when it was not."""
        if not self.daily_due(now):
            return None
        return self.create("daily", now=now)

    def before_migration(self, db_path: Path, version: int) -> Path:
        """database/migrate.py's `before_change` hook: the whole world, as it was, before the schema changes."""
        return self.create("migration", f"v{version}").path

    def path_of(self, name: str) -> Path:
        """An archive of this folder by its file name (never a path elsewhere)."""
        if "/" in name or "\\" in name or not _NAME.match(name):
            raise ValueError(f"{name!r} is not a backup of this home")
        path = self.folder / name
        if not path.is_file():
            raise ValueError(f"there is no backup {name!r} in {self.folder}")
        return path


def migrate_home(settings: Settings) -> MigrationReport:
    """Bring the home's database to the current schema, the whole world backed up first (as when
    the app opens it). Raises MigrationError when the database cannot be migrated."""
    from database.migrate import migrate

    store = BackupStore(settings.home, settings.db_path, checkpoints_path=settings.checkpoints_path,
                        keep=lambda: settings.backup_keep)
    return migrate(settings.db_path, before_change=store.before_migration)
