"""Keeping a person's world safe: admin changes, deletion, backup, restore, repair.

Parts (private modules; import from here):
- `_admin`: Administration of the world from the UI tabs and the CLI: personas, buildings and …
- `_backup`: Backups: one `.zip` that holds a whole world, taken while the app may be running.
- `_backup_auto`: Automatic backups under `<home>/backups/`: daily while the app runs, before a …
- `_debris`: Work folders of backup and restore, claimed while in use and removed by the next run …
- `_delete`: The rows a deletion removes or moves (saiverse/care/_admin.py decides whether a …
- `_home_safety`: What the app may touch in a data home, checked before anything is written there.
- `_login`: The login that guards the app when it is reachable from other devices (README, "From …
- `_move`: `python main.py move --to postgresql+psycopg://…`: a SQLite home's world into an …
- `_move_back`: `python main.py move --to sqlite`: a PostgreSQL city's world back into its home's …
- `_pgcheckpoints`: Production checkpoints between the backends: PostgresSaver's tables ↔ a …
- `_pgcopy`: A world's rows between SQLite and PostgreSQL: the copies behind backup, restore and …
- `_repair`: Start-up repair: finish or undo what a killed process left in `image/` and `documents/`.
- `_restore`: Restore: a backup archive (saiverse/care/_backup.py) becomes a world again, in an …
- `_restore_pg`: Restore into a PostgreSQL city: any backup archive (of a SQLite home or of a …
- `_serverlock`: One app server per data home: the second start is refused, naming the first …
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.care._admin import AdminError as AdminError
    from saiverse.care._admin import AdminService as AdminService
    from saiverse.care._admin import DeleteHooks as DeleteHooks
    from saiverse.care._backup import ProgressFn as ProgressFn
    from saiverse.care._backup import create_backup as create_backup
    from saiverse.care._backup_auto import BackupStore as BackupStore
    from saiverse.care._backup_auto import human_size as human_size
    from saiverse.care._backup_auto import migrate_home as migrate_home
    from saiverse.care._debris import remove_home_debris as remove_home_debris
    from saiverse.care._home_safety import check_home as check_home
    from saiverse.care._home_safety import create_private as create_private
    from saiverse.care._home_safety import link_out_of_home as link_out_of_home
    from saiverse.care._home_safety import make_home as make_home
    from saiverse.care._home_safety import tighten as tighten
    from saiverse.care._login import DEFAULT_USER as DEFAULT_USER
    from saiverse.care._login import LOGIN_CLIENT as LOGIN_CLIENT
    from saiverse.care._login import Gate as Gate
    from saiverse.care._login import check_password as check_password
    from saiverse.care._login import clear_login as clear_login
    from saiverse.care._login import login_path as login_path
    from saiverse.care._login import read_login as read_login
    from saiverse.care._login import set_login as set_login
    from saiverse.care._move import move_home as move_home
    from saiverse.care._move_back import move_back as move_back
    from saiverse.care._repair import RepairReport as RepairReport
    from saiverse.care._repair import repair_home as repair_home
    from saiverse.care._restore import restore_backup as restore_backup
    from saiverse.care._restore_pg import UnfinishedRestore as UnfinishedRestore
    from saiverse.care._restore_pg import refuse_marked_sqlite_home as refuse_marked_sqlite_home
    from saiverse.care._restore_pg import settle_pending_restore as settle_pending_restore
    from saiverse.care._serverlock import ServerLock as ServerLock

_EXPORTS: dict[str, str] = {
    "migrate_home": "_backup_auto",
    "AdminError": "_admin",
    "AdminService": "_admin",
    "BackupStore": "_backup_auto",
    "DEFAULT_USER": "_login",
    "DeleteHooks": "_admin",
    "Gate": "_login",
    "LOGIN_CLIENT": "_login",
    "ProgressFn": "_backup",
    "RepairReport": "_repair",
    "ServerLock": "_serverlock",
    "check_home": "_home_safety",
    "check_password": "_login",
    "clear_login": "_login",
    "create_backup": "_backup",
    "create_private": "_home_safety",
    "human_size": "_backup_auto",
    "link_out_of_home": "_home_safety",
    "login_path": "_login",
    "make_home": "_home_safety",
    "move_home": "_move",
    "move_back": "_move_back",
    "read_login": "_login",
    "remove_home_debris": "_debris",
    "repair_home": "_repair",
    "restore_backup": "_restore",
    "settle_pending_restore": "_restore_pg",
    "refuse_marked_sqlite_home": "_restore_pg",
    "UnfinishedRestore": "_restore_pg",
    "set_login": "_login",
    "tighten": "_home_safety",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
