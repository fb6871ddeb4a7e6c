"""The app and its home on the command line: `serve`, `config`, `migrate`, `import-saiverse`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli._frame import add_bind, add_json, command, print_json, settings


def serve(args: argparse.Namespace) -> int:
    """start the UI (the default)"""
    # Gradio's notebook support (IPython: ~0.5 s of CPU and ~15 MiB on a machine that has it) and
    # its editor stubs rewritten at every import (~1 s of CPU): a server uses neither (ui/_gradio_compat.py,
    # README "Benchmarks"). Only `python main.py` refuses them, never an importer of ui/.
    from saiverse.heap import hold_full_collections
    from ui._gradio_compat import lean_gradio

    lean_gradio()
    hold_full_collections()  # until the window serves (saiverse/heap.py)
    _stop_on_sigterm()
    from ui.serve import launch

    return launch(settings(args))  # it prints where it listens and which model answers, and why


def _stop_on_sigterm() -> None:
    """SIGTERM (a service manager, `kill`) ends the app as Ctrl+C does: the window stops serving and
    the world closes cleanly, so its database is stamped and the next start skips the full integrity
    check (database/clean_close.py). Python's default would end the process without closing anything."""
    import signal

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def config(args: argparse.Namespace) -> int:
    """every setting, its value and where it came from (API keys masked)"""
    from saiverse.settings import describe

    rows = describe(settings(args))
    if args.json:
        print_json({r["name"]: {k: v for k, v in r.items() if k != "name"} for r in rows})
        return 0
    for r in rows:
        where = f"{r['source']} {r['where']}".strip()
        print(f"{r['name']:<26} {'' if r['value'] is None else r['value']!s:<40} {where}")
    print("(a persona's own model columns win over these for that persona)")
    return 0


def migrate(args: argparse.Namespace) -> int:
    """bring the database to the current schema"""
    from dataclasses import asdict

    if args.db:
        from database.migrate import migrate as migrate_file

        report = migrate_file(Path(args.db))
    else:  # the home's database: the whole world is backed up first, as when the app opens it
        from saiverse.care import migrate_home

        report = migrate_home(settings(args))
    print_json(asdict(report)) if args.json else print(report.describe())
    return 0


def import_saiverse(args: argparse.Namespace) -> int:
    """import an upstream SAIVerse data home (its folder or its saiverse.db)"""
    from saiverse.importer import Progress
    from saiverse.importer import import_saiverse as run_import

    report = run_import(Path(args.path), settings(args), merge=args.merge, progress=Progress(sys.stderr))
    print_json(report.to_dict()) if args.json else print(report.text(), flush=True)
    return 0


def move(args: argparse.Namespace) -> int:
    """copy this home's world between SQLite and PostgreSQL (--to URL, or --to sqlite to come back)"""
    from saiverse.care import move_back, move_home

    back = args.to == "sqlite"
    report = move_back(settings(args)) if back else move_home(settings(args), args.to)
    if args.json:
        print_json(report.to_dict())
        return 0
    print(f"moved {sum(report.counts.values())} rows in {len(report.counts)} tables into {report.target}")
    print("  " + ", ".join(f"{k} {v}" for k, v in report.counts.items() if v))
    if back:
        print("start the app without SAIVERSE_DATABASE_URL (remove it from the home's .env); the PostgreSQL "
              "database was left as it was")
    else:
        print("start the app on it with SAIVERSE_DATABASE_URL set to that URL (the item files stay in this home)")
    return 0


def worker(args: argparse.Namespace) -> int:
    """run pulses from the queue in PostgreSQL (a city in PostgreSQL only)"""
    from saiverse.manager import SAIVerseManager
    from saiverse.pulse import worker_command

    return worker_command(settings(args), args, print_json, lambda st: SAIVerseManager(st, seed=False, index=False))


def _concurrency(raw: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= 64:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number from 1 to 64")
    return int(raw)


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    add_bind(command(sub, serve))

    p = command(sub, import_saiverse)
    p.add_argument("path", help="the upstream home (holding user_data/database/saiverse.db) or that saiverse.db")
    p.add_argument("--merge", action="store_true",
                   help="add to a home that already holds a world (existing ids are kept, never overwritten)")
    add_json(p, "print the summary as JSON")

    p = command(sub, migrate)
    p.add_argument("--db", help="path of the SQLite file")
    add_json(p, "print what was done as one JSON object")

    p = command(sub, worker)
    p.add_argument("--concurrency", type=_concurrency, default=2, help="pulses this worker runs at once (default 2)")
    p.add_argument("--autonomous", action="store_true",
                   help="switch the city's 自律 on as this worker starts, and start autonomous turns from its tick")

    p = command(sub, move)
    p.add_argument("--to", required=True, metavar="URL|sqlite",
                   help="postgresql+psycopg://USER@HOST:PORT/DB (empty), or `sqlite`: a PostgreSQL city back into "
                        "this home's saiverse.db")
    add_json(p, "print what was copied as one JSON object")

    p = command(sub, config)
    add_bind(p)
    add_json(p, "print one JSON object")
