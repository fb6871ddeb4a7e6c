"""A world in one file on the command line: `backup`, `restore`.

Backup and restore never open the world (no migration, no seeding): a backup is of the home as it
is, a restore writes only into an empty folder (and, for a PostgreSQL city, an empty database).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import words
from cli._frame import add_json, command, print_json, settings

if TYPE_CHECKING:  # the parser is built from this module: the work's imports wait until a command runs
    from saiverse.care import ProgressFn


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


def backup(args: argparse.Namespace) -> int:
    """write the whole world into one .zip (while the app may run)

    Default: `<home>/backups/saiverse-manual-<time>.zip`, kept until removed."""
    st = settings(args)
    from saiverse.care import BackupStore, create_backup
    from saiverse.disk import human_size

    with_audio = bool(args.with_audio or st.voice_in_backups)
    progress, close = terminal_progress("backup")
    try:
        if args.out:
            result = create_backup(st.home, st.db_path, Path(args.out), checkpoints_path=st.checkpoints_path,
                                   progress=progress, database_url=st.database_url, with_audio=with_audio)
        else:
            store = BackupStore(st.home, st.db_path, checkpoints_path=st.checkpoints_path,
                                database_url=st.database_url, with_audio=lambda: with_audio)
            result = store.create("manual", progress=progress)
    finally:
        close()
    if args.json:
        print_json(result.to_dict())
        return 0
    counts = ", ".join(f"{k} {v}" for k, v in result.manifest["counts"].items())
    print(words.say("out_backup_written", path=result.path, size=human_size(result.size),
                    schema=result.manifest["schema_version"]))
    print(f"  {counts}")
    for missing in result.manifest.get("missing", []):
        print(words.say("out_backup_missing", path=missing))
    return 0


def restore(args: argparse.Namespace) -> int:
    """rebuild a world from a backup archive in an empty home (--home DIR)"""
    from saiverse.care import restore_backup

    progress, close = terminal_progress("restore")
    try:
        st = settings(args)
        result = restore_backup(Path(args.file), st.home, progress, database_url=st.database_url)
    finally:
        close()
    if args.json:
        print_json(result.to_dict())
        return 0
    migrated = words.say("out_restored_migrated", before=result.schema_before) \
        if result.schema_before != result.schema_after else ""
    print(words.say("out_restored", home=result.home, schema=result.schema_after, migrated=migrated))
    print("  " + ", ".join(f"{k} {v}" for k, v in result.counts.items()))
    if st.database_url.startswith("postgresql+psycopg://"):
        print(words.say("out_restored_pg", home=result.home))
        return 0
    print(words.say("out_start_with", home=result.home))
    return 0


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    p = command(sub, backup)
    p.add_argument("--out", help="the archive to write (default: <home>/backups/saiverse-manual-<time>.zip)")
    p.add_argument("--with-audio", action="store_true",
                   help="hold the spoken audio cache (<home>/audio) too (default: the setting voice_in_backups, off)")
    add_json(p, "print what was written as one JSON object")

    p = command(sub, restore)
    p.add_argument("file", help="the backup archive (.zip)")
    add_json(p, "print what was restored as one JSON object")
