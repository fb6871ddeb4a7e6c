"""Opening a data home: the checks before anything is written, the database, and start-up repair.

The manager's first steps (saiverse/manager.py), kept apart from its wiring: a home that cannot be
ours is refused before anything is created in it, the database is made private, backed up before a
migration and migrated (saiverse/store.py), and — when this process has the home alone — what a
killed process left (staged import files, half-done writes, open pulses) is finished or set aside.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from database.engine import Database, is_postgres
from saiverse.care import (
    BackupStore,
    RepairReport,
    check_home,
    create_private,
    make_home,
    remove_home_debris,
    repair_home,
    tighten,
)
from saiverse.importer.files import recover_staged_files
from saiverse.importer.source import refuse_upstream_home
from saiverse.locks import HomeLock
from saiverse.memory import SAIMemory
from saiverse.pulse import recover_open, remote_enabled
from saiverse.settings import SettingsStore
from saiverse.store import open_database
from saiverse.world import World

log = logging.getLogger(__name__)


@dataclass
class OpenedHome:
    """A home opened for one manager."""

    db: Database
    """The migrated database, its pool sized to the pulse workers."""
    backups: BackupStore
    """Backups under `<home>/backups/`: before a migration, a delete, and daily (the ticker)."""
    home_lock: HomeLock
    """Held while the manager is open; `alone()` says whether another process uses the home."""
    notices: list[str] = field(default_factory=list)
    """One line per thing start-up changed that the user should know (permissions made private)."""
    repair_report: RepairReport = field(default_factory=RepairReport)
    """What start-up repair finished or set aside (saiverse/care/_repair.py); empty when all was well."""


def open_home(store: SettingsStore) -> OpenedHome:
    """Check, make and migrate the home of `store.current`; nothing is created in a home that cannot be ours."""
    settings = store.current
    check_home(settings.home, settings.db_path)
    remote_enabled(settings)  # a bad SAIVERSE_PULSE_WORKERS_REMOTE is refused before any write
    make_home(settings.home)
    notices = tighten(settings.home, settings.db_path)
    backups = BackupStore(settings.home, settings.db_path, checkpoints_path=settings.checkpoints_path,
                          keep=lambda: store.current.backup_keep, lock_home=False,
                          database_url=settings.database_url, with_audio=lambda: store.current.voice_in_backups)
    if not is_postgres(settings.database_url):
        refuse_upstream_home(settings.home, settings.db_path)
        create_private(settings.db_path)  # a new database is 0600 from its first byte (its -wal/-shm follow)
    # The database's connections are sized to the pulse workers.
    db = open_database(settings, backups.before_migration, workers=settings.pulse_workers)
    return OpenedHome(db=db, backups=backups, home_lock=HomeLock(settings.home), notices=notices)


def recover(home: OpenedHome, store: SettingsStore, memory: SAIMemory, world: World) -> None:
    """When this process has the home alone: finish or set aside what a killed process left."""
    settings = store.current
    with home.home_lock.alone() as alone:
        if alone:
            recover_staged_files(settings.home, home.db)  # an import-saiverse killed between commit and renames
            home.repair_report = repair_home(settings.home, home.db)
            home.notices += remove_home_debris(settings.home)  # killed backups and restores of this home
            try:
                home.notices += recover_open(home.db, memory, world)  # pulses a kill cut short
            except SQLAlchemyError as exc:  # never keeps the app from starting; the next start tries again
                log.warning("open pulses could not be accounted for: %s", type(exc).__name__)
                home.notices.append("途中で止まったパルスの記録を書けませんでした。次の起動でもう一度試します。")
