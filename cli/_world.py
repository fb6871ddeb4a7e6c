"""The city on the command line: `world`, `chat`, `history`, `items`, `upload`."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import words
from cli._frame import add_json, command, print_events, print_json, world


def world_(args: argparse.Namespace) -> int:
    """buildings with their items, personas with their building"""
    with world(args) as manager:
        snap = manager.world_snapshot()
    if args.json:
        print_json(snap)
        return 0
    for b in snap["buildings"]:
        names = ", ".join(p["name"] for p in snap["personas"] if p["building_id"] == b["building_id"])
        print(words.say("out_world_row", id=b["building_id"], name=b["name"], names=names, items=len(b["items"])))
    return 0


def chat(args: argparse.Namespace) -> int:
    """send one user message; prints the pulse's events as JSON lines"""
    from cli._frame import settings
    from saiverse.errors import UsageError
    from saiverse.inputs import check_message

    # Before the home is opened: a message that cannot be sent writes nothing, not even a first-run world.
    check_message(args.text, settings(args).max_message_chars)
    if not args.text.strip():
        raise UsageError(words.say("cli_empty_message"))
    with world(args) as manager:
        building = manager.chat_target(args.building, args.persona)
        if manager.server_scan is not None:  # a one-shot chat waits the look's short timeout for `auto`
            manager.server_scan.join(2.0)
        events = manager.handle_user_input(building, args.text, persona_id=args.persona)
        return print_events(_refuse_locked(events))


def _refuse_locked(events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """A database another program holds locked is the user's to fix: one line and exit 2, as for
    every input refused before anything was written (not an `error` event and exit 1)."""
    from saiverse.errors import UsageError

    for ev in events:
        if ev.get("type") == "error" and ev.get("kind") == "busy" and ev.get("locked"):
            raise UsageError(ev["locked"])
        yield ev


def history(args: argparse.Namespace) -> int:
    """a building's history lines, oldest first (speaker, text, time)"""
    with world(args) as manager:
        manager.world.building(args.building)
        for entry in manager.history(args.building, limit=max(args.limit, 0)):
            if args.json:
                print_json({"id": entry.id, "speaker": entry.speaker_name, "speaker_kind": entry.speaker_kind,
                            "speaker_id": entry.speaker_id, "text": entry.content, "time": entry.created_at})
            else:
                print(f"{entry.created_at}  {entry.speaker_name or '*'}: {entry.content}")
    return 0


def items(args: argparse.Namespace) -> int:
    """items of a building"""
    with world(args) as manager:
        building = manager.world.building(args.building)
        rows: list[dict[str, Any]] = [i.to_dict() for i in manager.items.list_owned("building", building.building_id)]
        for r in rows:  # a bag's contents follow it, marked with the bag's id
            if r["type"] == "bag":
                r["holds"] = [i.to_dict() for i in manager.items.list_owned("bag", r["item_id"])]
    for r in rows:
        if args.json:
            print_json(r)
            continue
        print(f"item:{r['slot_number']}  {r['item_id']}  [{r['type']}] {r['name']}: {r['description'][:60]}")
        for inner in r.get("holds", []):
            print(words.say("out_in_bag", slot=inner["slot_number"], id=inner["item_id"], type=inner["type"],
                            name=inner["name"]))
    return 0


def bag(args: argparse.Namespace) -> int:
    """put a new bag (an item that holds items) in a building"""
    with world(args) as manager:
        building = manager.world.building(args.building)
        info = manager.items.create_object(args.name, args.description or "", owner_kind="building",
                                           owner_id=building.building_id, kind="bag")
    if args.json:
        print_json(info.to_dict())
    else:
        print(words.say("out_bag_made", name=info.name, slot=info.slot_number, id=info.item_id, building=building.name))
    return 0


def upload(args: argparse.Namespace) -> int:
    """add an image (picture item), a PDF (document item) or audio (audio item) to a building"""
    with world(args) as manager:
        info = manager.upload_path(args.building, Path(args.file))
    print_json(info.to_dict())
    return 0


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    from cli._args import LIMIT

    add_json(command(sub, world_, "world"))

    p = command(sub, chat)
    p.add_argument("--persona", help="only this persona answers")
    p.add_argument("--building", help="building id (default: where the user is)")
    p.add_argument("text", help="the message")

    p = command(sub, items)
    p.add_argument("--building", required=True)
    add_json(p)

    p = command(sub, bag)
    p.add_argument("--building", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--description", default="")
    add_json(p)

    p = command(sub, upload)
    p.add_argument("--building", required=True)
    p.add_argument("file")

    p = command(sub, history)
    p.add_argument("--building", required=True)
    p.add_argument("--limit", type=LIMIT, default=200, help="the latest N lines (default 200)")
    add_json(p, "print JSON lines")
