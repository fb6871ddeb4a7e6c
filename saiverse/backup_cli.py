"""The CLI commands that care for a world: `backup`, `restore`, `persona delete`, `building delete`.

main.py parses the arguments and hands them here. Backup and restore never open the world (no
migration, no seeding): a backup is of the home as it is, a restore writes only into an empty folder.
Deleting opens the world, and only while no other process has the home open — a running app's
pulses could otherwise still write for a persona being deleted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # main.py builds its parser from this module: the work's imports wait until a command runs
    from saiverse.backup import ProgressFn
    from saiverse.settings import Settings

PrintJson = Callable[[Any], None]


def add_parsers(sub: Any, add_home: Callable[[argparse.ArgumentParser], None]) -> None:
    """The subcommands of this module, on main.py's subparsers (`add_home` adds its --home flag)."""
    from saiverse.admin_cli import add_create_options

    p = sub.add_parser("backup", help="write the whole world into one .zip (while the app may run)")
    add_home(p)
    p.add_argument("--out", help="the archive to write (default: <home>/backups/saiverse-manual-<time>.zip)")
    p.add_argument("--json", action="store_true", help="print what was written as one JSON object")

    p = sub.add_parser("restore", help="rebuild a world from a backup archive in an empty home (--home DIR)")
    add_home(p)
    p.add_argument("file", help="the backup archive (.zip)")
    p.add_argument("--json", action="store_true", help="print what was restored as one JSON object")

    for noun, what in (("persona", "a persona (a backup keeps its memory)"), ("building", "an empty building")):
        p = sub.add_parser(noun, help=f"{noun} administration: create one, or delete {what}")
        add_home(p)
        p.add_argument("action", choices=["create", "delete"])
        p.add_argument("id", nargs="?", help=f"the {noun} id (delete; optional for persona create)")
        add_create_options(p, noun)
        if noun == "building":
            p.add_argument("--move-to", metavar="ID", help="the building that takes the deleted building's items")
        p.add_argument("--json", action="store_true", help="print what was done as one JSON object")


def terminal_progress(label: str) -> tuple[ProgressFn | None, Callable[[], None]]:
    """A byte-counting tqdm bar on stderr when it is a terminal (else no progress), and its closer."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=0, desc=label, unit="B", unit_scale=True, file=sys.stderr, leave=False, mininterval=0.2)

    def progress(done: int, total: int, _what: str) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return progress, bar.close


def backup_command(settings: Settings, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`backup [--out FILE]`: one archive of the home (default: `<home>/backups/`, kept until removed)."""
    from saiverse.backup import create_backup
    from saiverse.backup_auto import BackupStore, human_size

    progress, close = terminal_progress("backup")
    try:
        if args.out:
            result = create_backup(settings.home, settings.db_path, Path(args.out),
                                   checkpoints_path=settings.checkpoints_path, progress=progress)
        else:
            store = BackupStore(settings.home, settings.db_path, checkpoints_path=settings.checkpoints_path)
            result = store.create("manual", progress=progress)
    finally:
        close()
    if args.json:
        print_json(result.to_dict())
        return 0
    counts = ", ".join(f"{k} {v}" for k, v in result.manifest["counts"].items())
    print(f"backup written: {result.path} ({human_size(result.size)}, schema {result.manifest['schema_version']})")
    print(f"  {counts}")
    for missing in result.manifest.get("missing", []):
        print(f"  missing (named by the database, not on disk): {missing}")
    return 0


def restore_command(settings: Settings, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`restore FILE --home DIR`: the archive's world in DIR, which must be empty or new."""
    from saiverse.backup_restore import restore_backup

    progress, close = terminal_progress("restore")
    try:
        result = restore_backup(Path(args.file), settings.home, progress)
    finally:
        close()
    if args.json:
        print_json(result.to_dict())
        return 0
    migrated = f" (migrated from schema {result.schema_before})" if result.schema_before != result.schema_after \
        else ""
    print(f"restored into {result.home}: schema {result.schema_after}{migrated}")
    print("  " + ", ".join(f"{k} {v}" for k, v in result.counts.items()))
    print(f"start it with: python main.py --home {result.home}")
    return 0


def delete_command(manager: Any, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`persona delete ID` / `building delete ID [--move-to ID]` through the admin rules."""
    from saiverse.errors import UsageError

    if not args.id:
        raise UsageError(f"{args.command} delete needs the {args.command} id")
    with manager.home_lock.alone() as alone:
        if not alone:
            raise UsageError("another SAIVerse process has this home open (is the app running?); delete from its "
                             "ペルソナ / ワールド tab, or close it and run this again")
        if args.command == "persona":
            report = manager.admin.delete_persona(args.id)
        else:
            report = manager.admin.delete_building(args.id, move_to=args.move_to)
    if args.json:
        print_json(report.to_dict())
        return 0
    print(f"deleted {report.kind} {report.name} ({report.id})")
    if report.items_moved:
        print(f"  {report.items_moved} items moved to {report.moved_to}")
    if report.removed:
        print("  removed: " + ", ".join(f"{table} {n}" for table, n in report.removed.items()))
    print(f"  backup taken before the delete: {report.backup}")
    return 0
