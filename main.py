"""SAIVerse entry point: `python main.py` starts the UI; subcommands form the CLI (README, "Command line").

Every command takes `--home`, prints JSON where asked, and exits 0 on success, 1 when the work
failed (an `error` event, an unfinished run) and 2 with one readable line when the input was wrong
(saiverse/errors.py). Starting anything migrates the database and seeds the world on first run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from saiverse.cli_args import LIMIT, PORT, Parser, check_args, whole


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str), flush=True)


def _add_home(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    # On a subcommand the flag must not reset a value given before the subcommand name.
    p.add_argument("--home", help="data home (default: $SAIVERSE_HOME or ~/.saiverse)",
                   **({} if top else {"default": argparse.SUPPRESS}))


def _add_bind(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    keep = {} if top else {"default": argparse.SUPPRESS}
    p.add_argument("--host", help="interface to bind (default 127.0.0.1)", **keep)
    p.add_argument("--port", type=PORT, help="port (default $SAIVERSE_PORT or 7860)", **keep)


def _concurrency(raw: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= 64:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number from 1 to 64")
    return int(raw)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="main.py", description="SAIVerse: a city of AI personas.")
    _add_home(parser, top=True)
    _add_bind(parser, top=True)
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("serve", help="start the UI (the default)")
    _add_home(p)
    _add_bind(p)

    p = sub.add_parser("world", help="buildings with their items, personas with their building")
    _add_home(p)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("chat", help="send one user message; prints the pulse's events as JSON lines")
    _add_home(p)
    p.add_argument("--persona", help="only this persona answers")
    p.add_argument("--building", help="building id (default: where the user is)")
    p.add_argument("text", help="the message")

    p = sub.add_parser("memory", help="a persona's SAIMemory messages as JSON lines")
    _add_home(p)
    p.add_argument("--persona", required=True)
    p.add_argument("--search", help="recall search query")
    p.add_argument("--limit", type=LIMIT, default=200)
    p.add_argument("--json", action="store_true", help="print JSON lines (the default)")

    p = sub.add_parser("chronicle", help="a persona's Chronicle entries, newest first (--build writes what is due)")
    _add_home(p)
    p.add_argument("--persona", required=True)
    p.add_argument("--build", action="store_true", help="first write the entries that are due")
    p.add_argument("--level", type=whole(1, 100), help="only this level")
    p.add_argument("--limit", type=LIMIT, default=200)
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("memopedia", help="a persona's Memopedia pages, or one page with its history")
    _add_home(p)
    p.add_argument("--persona", required=True)
    p.add_argument("--page", help="title (or id) of the page to print")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("items", help="items of a building")
    _add_home(p)
    p.add_argument("--building", required=True)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("upload", help="add an image (picture item) or a PDF (document item) to a building")
    _add_home(p)
    p.add_argument("--building", required=True)
    p.add_argument("file")

    p = sub.add_parser("run-playbook", help="run one playbook (name or JSON file) as a persona; JSON-line events")
    _add_home(p)
    p.add_argument("playbook", help="playbook name or path of a JSON file")
    p.add_argument("--persona", required=True)
    p.add_argument("--building", help="building id (default: where the persona is)")
    p.add_argument("--args", default="{}", help="arguments as a JSON object")

    p = sub.add_parser("import-playbook", help="validate a playbook JSON file and store it")
    _add_home(p)
    p.add_argument("file", nargs="?")
    p.add_argument("--replace", action="store_true", help="allow the import to override a builtin of the same name")
    p.add_argument("--restore", metavar="NAME", help="remove the import that overrides builtin NAME")

    p = sub.add_parser("validate-playbook", help="validate a playbook JSON file without storing it")
    _add_home(p)
    p.add_argument("file")

    p = sub.add_parser("playbooks", help="list playbooks")
    _add_home(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("tool", help="run one tool as a persona; prints its result as JSON")
    _add_home(p)
    p.add_argument("name")
    p.add_argument("--persona", required=True)
    p.add_argument("--building")
    p.add_argument("--args", default="{}", help="arguments as a JSON object")

    p = sub.add_parser("production", help="production runs: list, resume, show")
    _add_home(p)
    p.add_argument("action", choices=["list", "resume", "show"])
    p.add_argument("run_id", nargs="?", help="run id (resume, show)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("history", help="a building's history lines, oldest first (speaker, text, time)")
    _add_home(p)
    p.add_argument("--building", required=True)
    p.add_argument("--limit", type=LIMIT, default=200, help="the latest N lines (default 200)")
    p.add_argument("--json", action="store_true", help="print JSON lines")

    p = sub.add_parser("import-saiverse", help="import an upstream SAIVerse data home (its folder or its saiverse.db)")
    _add_home(p)
    p.add_argument("path", help="the upstream home (holding user_data/database/saiverse.db) or that saiverse.db")
    p.add_argument("--merge", action="store_true",
                   help="add to a home that already holds a world (existing ids are kept, never overwritten)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")

    p = sub.add_parser("migrate", help="bring the database to the current schema")
    _add_home(p)
    p.add_argument("--db", help="path of the SQLite file")
    p.add_argument("--json", action="store_true", help="print what was done as one JSON object")

    from saiverse.backup_cli import add_parsers

    add_parsers(sub, _add_home)  # backup, restore, persona delete, building delete
    from saiverse.login_cli import add_parser as add_password_parser

    add_password_parser(sub, _add_home)  # password set / clear / status

    from saiverse.tracks_cli import add_parsers as add_track_parsers

    add_track_parsers(sub, _add_home)  # tracks, notes (upstream v0.3)

    from saiverse.model_cli import add_parsers as add_model_parsers

    add_model_parsers(sub, _add_home)  # model pull / list / catalog / servers

    p = sub.add_parser("move", help="copy this home's SQLite world into an empty PostgreSQL database")
    _add_home(p)
    p.add_argument("--to", required=True, metavar="URL", help="postgresql+psycopg://USER@HOST:PORT/DB (empty)")
    p.add_argument("--json", action="store_true", help="print what was copied as one JSON object")

    p = sub.add_parser("worker", help="run pulses from the queue in PostgreSQL (a city in PostgreSQL only)")
    _add_home(p)
    p.add_argument("--concurrency", type=_concurrency, default=2, help="pulses this worker runs at once (default 2)")
    p.add_argument("--autonomous", action="store_true", help="this worker's city tick also starts autonomous turns")

    p = sub.add_parser("config", help="every setting, its value and where it came from (API keys masked)")
    _add_home(p)
    _add_bind(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _settings(args: argparse.Namespace) -> Any:
    from saiverse.settings import load_settings

    return load_settings(args.home, host=args.host, port=args.port)


def _config(args: argparse.Namespace) -> int:
    from saiverse.settings import describe

    rows = describe(_settings(args))
    if args.json:
        _print_json({r["name"]: {k: v for k, v in r.items() if k != "name"} for r in rows})
        return 0
    for r in rows:
        where = f"{r['source']} {r['where']}".strip()
        print(f"{r['name']:<26} {'' if r['value'] is None else r['value']!s:<40} {where}")
    print("(a persona's own model columns win over these for that persona)")
    return 0


def _manager(args: argparse.Namespace) -> Any:
    from saiverse.manager import SAIVerseManager

    return SAIVerseManager(_settings(args))


def _json_arg(raw: str, what: str = "--args") -> dict[str, Any]:
    from saiverse.cli_args import json_object

    return json_object(raw, what)


def _print_events(events: Iterable[dict[str, Any]]) -> int:
    failed = False
    for ev in events:
        _print_json(ev)
        if ev.get("type") == "error":
            failed = True
    return 1 if failed else 0  # saiverse/errors.py FAILED_EXIT: the command ran, its work failed


def _import_saiverse(args: argparse.Namespace) -> int:
    from saiverse.importer import Progress, import_saiverse

    report = import_saiverse(Path(args.path), _settings(args), merge=args.merge, progress=Progress(sys.stderr))
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.text(), flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    from saiverse.errors import UsageError

    cmd = args.command or "serve"
    if cmd == "config":
        return _config(args)
    if cmd == "migrate":
        from dataclasses import asdict

        from database.migrate import migrate

        if args.db:
            report = migrate(Path(args.db))
        else:  # the home's database: the whole world is backed up first, like when the app opens it
            from saiverse.backup_auto import BackupStore

            st = _settings(args)
            store = BackupStore(st.home, st.db_path, checkpoints_path=st.checkpoints_path, keep=lambda: st.backup_keep)
            report = migrate(st.db_path, before_change=store.before_migration)
        _print_json(asdict(report)) if args.json else print(report.describe())
        return 0
    if cmd == "import-saiverse":
        return _import_saiverse(args)
    if cmd == "password":
        from saiverse.login_cli import password_command

        return password_command(_settings(args), args, _print_json)

    if cmd == "model":
        from saiverse.model_cli import model_command

        def personas() -> list[Any]:
            manager = _manager(args)
            try:
                return manager.world.personas()
            finally:
                manager.close()

        return model_command(_settings(args), args, _print_json, personas)
    if cmd in ("backup", "restore"):
        from saiverse.backup_cli import backup_command, restore_command

        return (backup_command if cmd == "backup" else restore_command)(_settings(args), args, _print_json)
    if cmd == "chat":
        from saiverse.inputs import check_message

        # Before the home is opened: a message that cannot be sent writes nothing, not even a first-run world.
        check_message(args.text, _settings(args).max_message_chars)
        if not args.text.strip():
            raise UsageError("the message is empty; say something (TEXT)")
    if cmd == "worker":
        from saiverse.manager import SAIVerseManager
        from saiverse.pulse_queue import worker_command

        return worker_command(_settings(args), args, _print_json, lambda st: SAIVerseManager(st, seed=False))
    if cmd == "move":
        from saiverse.move import move_command

        return move_command(_settings(args), args, _print_json)
    if cmd in ("persona", "building"):
        from saiverse.admin_cli import check_usage

        check_usage(args)  # before the home is opened: a refused command writes nothing
    if cmd == "serve":
        from ui.app import launch

        return launch(_settings(args))  # it prints where it listens and which model answers, and why
    manager = _manager(args)
    try:
        if cmd == "world":
            snap = manager.world_snapshot()
            if args.json:
                _print_json(snap)
            else:
                for b in snap["buildings"]:
                    names = ", ".join(p["name"] for p in snap["personas"] if p["building_id"] == b["building_id"])
                    print(f"{b['building_id']:<12} {b['name']}  [{names}]  items: {len(b['items'])}")
            return 0
        if cmd == "chat":
            building = args.building or (
                manager.world.persona(args.persona).building_id if args.persona else manager.user_building()
            )
            manager.world.building(building)  # an unknown building is the caller's mistake (exit 2)
            if args.persona and manager.world.persona(args.persona).building_id != building:
                where = manager.world.persona(args.persona).building_id
                raise UsageError(f"persona {args.persona!r} is not in {building!r} (it is in {where!r})")
            if manager.server_scan is not None:  # a one-shot chat waits the look's short timeout for `auto`
                manager.server_scan.join(2.0)
            return _print_events(manager.handle_user_input(building, args.text, persona_id=args.persona))
        if cmd == "memory":
            if args.search:
                records: Iterable[Any] = manager.memory_messages(args.persona, search=args.search, limit=args.limit)
            else:
                manager.world.persona(args.persona)
                records = manager.memory.iter_messages(args.persona, limit=args.limit)  # streamed: any --limit
            for rec in records:
                _print_json(rec)
            return 0
        if cmd in ("persona", "building"):
            from saiverse.admin_cli import create_command
            from saiverse.backup_cli import delete_command

            return (create_command if args.action == "create" else delete_command)(manager, args, _print_json)
        if cmd in ("tracks", "notes"):
            from saiverse.tracks_cli import notes_command, tracks_command

            return (tracks_command if cmd == "tracks" else notes_command)(manager, args, _print_json)
        if cmd in ("chronicle", "memopedia"):
            from saiverse.memory_cli import chronicle_command, memopedia_command

            command = chronicle_command if cmd == "chronicle" else memopedia_command
            return command(manager, args, _print_json)
        if cmd == "history":
            manager.world.building(args.building)
            for entry in manager.history(args.building, limit=max(args.limit, 0)):
                line = {"id": entry.id, "speaker": entry.speaker_name, "speaker_kind": entry.speaker_kind,
                        "speaker_id": entry.speaker_id, "text": entry.content, "time": entry.created_at}
                _print_json(line) if args.json else print(f"{entry.created_at}  {entry.speaker_name or '*'}: "
                                                          f"{entry.content}")
            return 0
        if cmd == "items":
            building = manager.world.building(args.building)
            rows = [i.to_dict() for i in manager.items.list_owned("building", building.building_id)]
            if args.json:
                for r in rows:
                    _print_json(r)
            else:
                for r in rows:
                    print(f"{r['item_id']}  [{r['type']}] {r['name']}: {r['description'][:60]}")
            return 0
        if cmd == "import-playbook" and args.restore:
            if args.file or args.replace:
                raise UsageError("--restore NAME takes no file and no --replace")
            pb = manager.playbooks.restore(args.restore)
            _print_json({"ok": True, "name": pb.name, "restored": True})
            return 0
        if cmd in ("import-playbook", "validate-playbook"):
            if not args.file:
                raise UsageError(f"{cmd} needs a playbook JSON file")
            pb = manager.playbooks.check_file(args.file)
            report = manager.playbooks.validate(pb)
            if cmd == "import-playbook":
                manager.playbooks.store(pb, replace=args.replace)
            _print_json({"ok": True, "name": pb.name, "display_name": pb.display_name,
                         "stored": cmd == "import-playbook", "nodes": len(pb.nodes),
                         "router_callable": pb.router_callable, "user_selectable": pb.user_selectable,
                         **report.to_dict()})
            return 0
        if cmd == "playbooks":
            catalog = manager.playbooks
            for pb in catalog.all():
                row = {"name": pb.name, "display_name": pb.display_name, "description": pb.description,
                       "router_callable": pb.router_callable, "user_selectable": pb.user_selectable,
                       "builtin": catalog.is_builtin(pb.name), "overridden": catalog.is_overridden(pb.name)}
                mark = " (overrides the builtin)" if row["overridden"] else ""
                _print_json(row) if args.json else print(f"{pb.name:<22} {pb.display_name}{mark}  {pb.description}")
            for name, reason in sorted(catalog.broken.items()):
                _print_json({"name": name, "broken": reason}) if args.json else print(f"{name:<22} (broken) {reason}")
            return 0
        if cmd == "run-playbook":
            call_args = _json_arg(args.args)
            target = Path(args.playbook)
            if target.suffix == ".json" or target.exists():
                pb = manager.playbooks.check_file(target)
            else:
                pb = manager.playbooks.get(args.playbook)
                if pb is None:
                    raise UsageError(f"playbook {args.playbook!r} does not exist (see `main.py playbooks`)")
            return _print_events(manager.run_playbook(pb, args.persona, args.building, args=call_args))
        if cmd == "tool":
            result = manager.run_tool(args.name, args.persona, args.building, _json_arg(args.args))
            _print_json({"ok": True, "tool": args.name, "result": result})
            return 0
        if cmd == "production":
            if args.action == "list":
                for run in manager.production.runs():
                    where = f"{run['persona_id']}@{run['building_id']}"
                    _print_json(run) if args.json else print(
                        f"{run['run_id']}  [{run['status']}] {where}: {run['request']}")
                return 0
            if not args.run_id:
                raise UsageError(f"production {args.action} needs a run id (see `main.py production list`)")
            if args.action == "show":
                summary = manager.production.summary(args.run_id)
                _print_json({"run_id": summary.run_id, "finished": summary.finished, "plan": summary.plan,
                             "next": summary.next_nodes})
                return 0
            summary = manager.production.resume(args.run_id, _print_json)
            _print_json({"type": "production_resumed", "run_id": summary.run_id, "finished": summary.finished,
                         "steps": [(s["id"], s["status"]) for s in summary.plan]})
            return 0 if summary.finished else 1
        if cmd == "upload":
            import os

            from saiverse.inputs import read_limited

            path = Path(args.file)
            manager.world.building(args.building)  # an unknown building before a long read
            data = read_limited(path, manager.settings.max_upload_bytes, what="upload",
                                limit_name="SAIVERSE_MAX_UPLOAD_BYTES")
            # A file name that is not UTF-8 is still a file; its item name shows the bad bytes as �.
            name = os.fsencode(path.stem).decode("utf-8", "replace")
            try:
                info = manager.upload_file(args.building, data, name)
            except ValueError as exc:  # not an image or a PDF, too many pixels, a bad name: say which file
                raise UsageError(f"upload {path}: {exc}") from exc
            _print_json(info.to_dict())
            return 0
    finally:
        manager.close()
    raise SystemExit(f"unknown command {cmd}")


def _utf8_output() -> None:
    """JSON is UTF-8 whatever the locale says: Japanese stays readable and never fails to encode."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run one command; user errors print one line (exit 2), bugs name their type (exit 1)."""
    import os

    from saiverse.errors import (
        FAILED_EXIT,
        INTERRUPTED_EXIT,
        RAISE_ERRORS_ENV,
        USER_ERROR_EXIT,
        busy_database_message,
        is_user_error,
    )

    _utf8_output()
    args = build_parser().parse_args(argv)
    try:
        check_args(args)
        return run(args)
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT
    except Exception as exc:
        busy = busy_database_message(exc)
        if is_user_error(exc) or busy:
            print(f"error: {busy or exc}", file=sys.stderr)
            return USER_ERROR_EXIT
        if os.environ.get(RAISE_ERRORS_ENV):
            raise
        print(f"error ({type(exc).__name__}): {exc}\n(set {RAISE_ERRORS_ENV}=1 to see the traceback)", file=sys.stderr)
        return FAILED_EXIT


if __name__ == "__main__":
    sys.exit(main())
