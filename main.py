"""SAIVerse entry point: `python main.py` starts the UI; subcommands form the CLI (DESIGN §12).

Every command takes `--home`, prints JSON where asked, and exits non-zero with a readable
message on error. Starting anything migrates the database and seeds the world on first run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str), flush=True)


def _add_home(p: argparse.ArgumentParser, default: object = argparse.SUPPRESS) -> None:
    # Subcommands leave --home unset unless given, so `main.py --home DIR cmd` keeps the top-level value.
    p.add_argument("--home", default=default, help="data home (default: $SAIVERSE_HOME or ~/.saiverse)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="main.py", description="SAIVerse: a city of AI personas.")
    _add_home(parser, None)
    parser.add_argument("--host", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default $SAIVERSE_PORT or 7860)")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("serve", help="start the UI (the default)")
    _add_home(p)
    p.add_argument("--host", default=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=argparse.SUPPRESS)

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
    p.add_argument("--limit", type=int, default=200)
    p.add_argument("--json", action="store_true", help="print JSON lines (the default)")

    p = sub.add_parser("items", help="items of a building")
    _add_home(p)
    p.add_argument("--building", required=True)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("upload", help="add an image file as a picture item in a building")
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
    p.add_argument("file")

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
    p.add_argument("--limit", type=int, default=200, help="the latest N lines (default 200)")
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
    return parser


def _settings(args: argparse.Namespace) -> Any:
    from saiverse.settings import load_settings

    settings = load_settings(args.home)
    overrides: dict[str, Any] = {}
    if getattr(args, "host", None):
        overrides["host"] = args.host
    if getattr(args, "port", None):
        overrides["port"] = args.port
    return settings.with_overrides(**overrides) if overrides else settings


def _manager(args: argparse.Namespace) -> Any:
    from saiverse.manager import SAIVerseManager

    return SAIVerseManager(_settings(args))


def _json_arg(raw: str, what: str = "--args") -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def _print_events(events: Iterable[dict[str, Any]]) -> int:
    failed = False
    for ev in events:
        _print_json(ev)
        if ev.get("type") == "error":
            failed = True
    return 1 if failed else 0


def _import_saiverse(args: argparse.Namespace) -> int:
    from saiverse.importer import Progress, import_saiverse

    report = import_saiverse(Path(args.path), _settings(args), merge=args.merge, progress=Progress(sys.stderr))
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.text(), flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    cmd = args.command or "serve"
    if cmd == "migrate":
        from database.migrate import main as migrate_main

        if args.db:
            return migrate_main(["--db", args.db])
        settings = _settings(args)
        if settings.db_path is None:
            raise ValueError("migrate handles SQLite databases only; pass --db PATH")
        return migrate_main(["--db", str(settings.db_path)])
    if cmd == "import-saiverse":
        return _import_saiverse(args)
    if cmd == "serve":
        from ui.app import launch

        settings = _settings(args)
        return launch(settings)
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
        if cmd in ("import-playbook", "validate-playbook"):
            pb = manager.playbooks.check_file(args.file)
            if cmd == "import-playbook":
                manager.playbooks.store(pb)
            _print_json({"ok": True, "name": pb.name, "stored": cmd == "import-playbook",
                         "nodes": len(pb.nodes), "router_callable": pb.router_callable,
                         "user_selectable": pb.user_selectable})
            return 0
        if cmd == "playbooks":
            for pb in manager.playbooks.all():
                row = {"name": pb.name, "display_name": pb.display_name, "description": pb.description,
                       "router_callable": pb.router_callable, "user_selectable": pb.user_selectable,
                       "builtin": manager.playbooks.is_builtin(pb.name)}
                _print_json(row) if args.json else print(f"{pb.name:<22} {pb.display_name}  {pb.description}")
            return 0
        if cmd == "run-playbook":
            call_args = _json_arg(args.args)
            target = Path(args.playbook)
            if target.suffix == ".json" or target.exists():
                pb = manager.playbooks.check_file(target)
            else:
                pb = manager.playbooks.get(args.playbook)
                if pb is None:
                    raise ValueError(f"playbook {args.playbook!r} does not exist (see `main.py playbooks`)")
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
                raise ValueError(f"production {args.action} needs a run id (see `main.py production list`)")
            if args.action == "show":
                summary = manager.production.engine.summary(args.run_id)
                _print_json({"run_id": summary.run_id, "finished": summary.finished, "plan": summary.plan,
                             "next": summary.next_nodes})
                return 0
            summary = manager.production.resume(args.run_id, _print_json)
            _print_json({"type": "production_resumed", "run_id": summary.run_id, "finished": summary.finished,
                         "steps": [(s["id"], s["status"]) for s in summary.plan]})
            return 0 if summary.finished else 1
        if cmd == "upload":
            path = Path(args.file)
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ValueError(f"cannot read {path}: {exc.strerror}") from exc
            info = manager.upload_image(args.building, data, path.stem)
            _print_json(info.to_dict())
            return 0
    finally:
        manager.close()
    raise SystemExit(f"unknown command {cmd}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI turns every failure into a readable line
        from database.migrate import MigrationError
        from saiverse.world import UnknownIdError
        from tools import ToolError

        known = (MigrationError, UnknownIdError, ValueError, LookupError, OSError, ToolError)
        label = "error" if isinstance(exc, known) else f"error ({type(exc).__name__})"
        print(f"{label}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
