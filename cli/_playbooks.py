"""Playbooks and tools on the command line: `run-playbook`, `validate-playbook`, `import-playbook`,
`playbooks`, `tool`, `production`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._frame import add_json, command, print_events, print_json, world


def run_playbook(args: argparse.Namespace) -> int:
    """run one playbook (name or JSON file) as a persona; JSON-line events"""
    from cli._args import json_object

    call_args = json_object(args.args, "--args")
    with world(args) as manager:
        pb = manager.playbooks.resolve(args.playbook)
        return print_events(manager.run_playbook(pb, args.persona, args.building, args=call_args))


def _check_or_store(args: argparse.Namespace, *, store: bool) -> int:
    from saiverse.errors import UsageError

    if not args.file:
        raise UsageError(f"{args.command} needs a playbook JSON file")
    with world(args) as manager:
        owners, extra = _mcp_tools(manager, getattr(args, "persona", None))
        pb = manager.playbooks.check_file(args.file, extra_tools=extra)
        report = manager.playbooks.validate(pb, extra_tools=extra)
        if store:
            manager.playbooks.store(pb, replace=args.replace)
    named = {n.action for n in pb.nodes if n.type == "tool" and n.action} | {
        t for n in pb.nodes for t in (n.available_tools or [])}
    print_json({"ok": True, "name": pb.name, "display_name": pb.display_name, "stored": store,
                "nodes": len(pb.nodes), "router_callable": pb.router_callable,
                "user_selectable": pb.user_selectable, **report.to_dict(),
                "mcp_tools": {t: owners[t] for t in sorted(named) if t in owners}})
    return 0


def _mcp_tools(manager: Any, persona_id: str | None) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """The MCP tools of every persona (or of `persona_id`): (tool → the personas that have it, tool → its
    arguments), so a playbook naming them validates for the personas that have them."""
    from saiverse.mcp_tools import ALL

    who = [manager.world.persona(persona_id).persona_id] if persona_id else [p.persona_id for p in manager.personas()]
    owners: dict[str, list[str]] = {}
    extra: dict[str, set[str]] = {}
    for pid in who:
        for spec in manager.mcp.specs(pid, [ALL]) if manager.mcp.servers(pid) else []:
            owners.setdefault(spec["name"], []).append(pid)
            extra[spec["name"]] = set((spec.get("parameters") or {}).get("properties") or {})
    return owners, extra


def validate_playbook(args: argparse.Namespace) -> int:
    """validate a playbook JSON file without storing it"""
    return _check_or_store(args, store=False)


def import_playbook(args: argparse.Namespace) -> int:
    """validate a playbook JSON file and store it"""
    if not args.restore:
        return _check_or_store(args, store=True)
    from saiverse.errors import UsageError

    if args.file or args.replace:
        raise UsageError("--restore NAME takes no file and no --replace")
    with world(args) as manager:
        pb = manager.playbooks.restore(args.restore)
    print_json({"ok": True, "name": pb.name, "restored": True})
    return 0


def playbooks(args: argparse.Namespace) -> int:
    """list playbooks"""
    with world(args) as manager:
        catalog = manager.playbooks
        for pb in catalog.all():
            row = {"name": pb.name, "display_name": pb.display_name, "description": pb.description,
                   "router_callable": pb.router_callable, "user_selectable": pb.user_selectable,
                   "builtin": catalog.is_builtin(pb.name), "overridden": catalog.is_overridden(pb.name)}
            mark = " (overrides the builtin)" if row["overridden"] else ""
            print_json(row) if args.json else print(f"{pb.name:<22} {pb.display_name}{mark}  {pb.description}")
        for name, reason in sorted(catalog.broken.items()):
            print_json({"name": name, "broken": reason}) if args.json else print(f"{name:<22} (broken) {reason}")
    return 0


def tool(args: argparse.Namespace) -> int:
    """run one tool as a persona; prints its result as JSON"""
    from cli._args import json_object

    call_args = json_object(args.args, "--args")
    with world(args) as manager:
        result = manager.run_tool(args.name, args.persona, args.building, call_args,
                                  notify=lambda ev: print(ev.get("text", ""), file=sys.stderr))
    print_json({"ok": True, "tool": args.name, "result": result})
    return 0


def mcp(args: argparse.Namespace) -> int:
    """a persona's MCP servers: their tools, or why one cannot be used"""
    import json

    from saiverse.errors import UsageError
    from saiverse.mcp_tools import save_servers

    with world(args) as manager:
        manager.world.persona(args.persona)
        if args.servers is not None:
            try:
                raw = json.loads(args.servers)
            except ValueError as exc:
                raise UsageError(f"--set is not JSON: {exc}") from None
            save_servers(manager.settings.home, args.persona, raw)
        for row in manager.mcp.status(args.persona, fresh=True):
            print_json(row) if args.json else print(
                f"{row['name']} ({row['reach']}): " + (row["error"] or ", ".join(row["tools"]) or "—"))
    return 0


def production(args: argparse.Namespace) -> int:
    """production runs: list, resume, show"""
    from saiverse.errors import UsageError

    with world(args) as manager:
        if args.action == "list":
            for run in manager.production.runs():
                where = f"{run['persona_id']}@{run['building_id']}"
                print_json(run) if args.json else print(f"{run['run_id']}  [{run['status']}] {where}: {run['request']}")
            return 0
        if not args.run_id:
            raise UsageError(f"production {args.action} needs a run id (see `main.py production list`)")
        if args.action == "show":
            summary = manager.production.summary(args.run_id)
            print_json({"run_id": summary.run_id, "finished": summary.finished, "plan": summary.plan,
                        "next": summary.next_nodes})
            return 0
        summary = manager.production.resume(args.run_id, print_json)
    print_json({"type": "production_resumed", "run_id": summary.run_id, "finished": summary.finished,
                "steps": [(s["id"], s["status"]) for s in summary.plan]})
    return 0 if summary.finished else 1


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    p = command(sub, run_playbook)
    p.add_argument("playbook", help="playbook name or path of a JSON file")
    p.add_argument("--persona", required=True)
    p.add_argument("--building", help="building id (default: where the persona is)")
    p.add_argument("--args", default="{}", help="arguments as a JSON object")

    p = command(sub, import_playbook)
    p.add_argument("file", nargs="?")
    p.add_argument("--replace", action="store_true", help="allow the import to override a builtin of the same name")
    p.add_argument("--restore", metavar="NAME", help="remove the import that overrides builtin NAME")

    p = command(sub, validate_playbook)
    p.add_argument("file")
    p.add_argument("--persona", help="check the MCP tools of this persona only (default: of every persona)")

    add_json(command(sub, playbooks))

    p = command(sub, tool)
    p.add_argument("name")
    p.add_argument("--persona", required=True)
    p.add_argument("--building")
    p.add_argument("--args", default="{}", help="arguments as a JSON object")

    p = command(sub, mcp)
    p.add_argument("--persona", required=True)
    p.add_argument("--set", dest="servers", help="replace the persona's servers with this JSON list ('[]' removes all)")
    add_json(p, "print JSON lines")

    p = command(sub, production)
    p.add_argument("action", choices=["list", "resume", "show"])
    p.add_argument("run_id", nargs="?", help="run id (resume, show)")
    add_json(p)
