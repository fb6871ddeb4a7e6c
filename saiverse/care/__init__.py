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
- `_tls`: https for the page (README, "From a phone"): the user's certificate and key, checked before …
"""

from __future__ import annotations

from saiverse.care._admin import AdminError, AdminService, DeleteHooks
from saiverse.care._backup import ProgressFn, create_backup
from saiverse.care._backup_auto import BackupStore, migrate_home
from saiverse.care._debris import remove_home_debris
from saiverse.care._home_safety import check_home, create_private, link_out_of_home, make_home, tighten
from saiverse.care._login import (
    DEFAULT_USER,
    LOGIN_CLIENT,
    Gate,
    check_password,
    clear_login,
    login_path,
    read_login,
    set_login,
)
from saiverse.care._move import move_home
from saiverse.care._move_back import move_back
from saiverse.care._repair import RepairReport, repair_home
from saiverse.care._restore_pg import (
    UnfinishedRestore,
    refuse_marked_sqlite_home,
    restore_backup,
    settle_pending_restore,
)
from saiverse.care._serverlock import ServerLock
from saiverse.care._tls import TLS_DIR, TlsError, TlsFiles, make_certificate, tls_files

__all__ = [
    "AdminError",
    "AdminService",
    "BackupStore",
    "DEFAULT_USER",
    "DeleteHooks",
    "Gate",
    "LOGIN_CLIENT",
    "ProgressFn",
    "RepairReport",
    "ServerLock",
    "TLS_DIR",
    "TlsError",
    "TlsFiles",
    "UnfinishedRestore",
    "check_home",
    "check_password",
    "clear_login",
    "create_backup",
    "create_private",
    "link_out_of_home",
    "login_path",
    "make_certificate",
    "make_home",
    "migrate_home",
    "move_back",
    "move_home",
    "read_login",
    "refuse_marked_sqlite_home",
    "remove_home_debris",
    "repair_home",
    "restore_backup",
    "set_login",
    "settle_pending_restore",
    "tighten",
    "tls_files",
]
