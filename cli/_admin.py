"""`persona create|delete` and `building create|delete`: make (and unmake) a city from the command line.

Both go through the admin service (saiverse/care/_admin.py), so the rules are the ones of the ペルソナ and
ワールド tabs: a name, a building that exists and has room, a slug id or a generated one. A refused
spec prints one line and exits 2 with nothing written. Deleting happens only while no other process
has the home open — a running app's pulses could otherwise still write for a persona being deleted.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import words
from cli._frame import add_json, command, print_json, world
from cli._voice import add_voice_options, voice_command

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

PrintJson = Callable[[Any], None]


def add_create_options(p: argparse.ArgumentParser, noun: str) -> None:
    """The options of `<noun> create` on the persona / building subparser (ignored by delete)."""
    p.add_argument("--name", help=f"the new {noun}'s name (create)")
    p.add_argument("--description", help="a description (create)")
    if noun == "persona":
        p.add_argument("--building", metavar="ID", help="the building it lives in (create; default: where the user is)")
        p.add_argument("--mode", choices=["user", "auto", "sleep"], help="interaction mode (create; default user)")
        p.add_argument("--avatar", help="an emoji or short text (create)")
        p.add_argument("--system-prompt", help="its system prompt (create)")
    else:
        p.add_argument("--capacity", type=int, help="how many personas fit (create; default 10)")
        p.add_argument("--auto-interval", type=int, metavar="SECONDS",
                       help="seconds between autonomous turns of personas inside (create; default 600, at least 60)")
        p.add_argument("--map-x", metavar="X", help="position on the city map (create, move-on-map; with --map-y)")
        p.add_argument("--map-y", metavar="Y", help="position on the city map (create, move-on-map; with --map-x)")
        p.add_argument("--auto", action="store_true", help="move-on-map: forget the position, place it automatically")


def _spec(args: argparse.Namespace, keys: dict[str, str]) -> dict[str, Any]:
    return {spec_key: getattr(args, arg) for arg, spec_key in keys.items() if getattr(args, arg, None) is not None}


def check_usage(args: argparse.Namespace) -> None:
    """What can be refused from the arguments alone (UsageError, exit 2), before the world opens."""
    from saiverse.errors import UsageError

    if args.action in ("delete", "move-on-map", "reflex-on", "reflex-off", "voice"):
        if not args.id:
            raise UsageError(f"{args.command} {args.action} needs the {args.command} id")
        if args.action == "move-on-map" and args.auto == (args.map_x is not None or args.map_y is not None):
            raise UsageError("building move-on-map needs --map-x X --map-y Y, or --auto (not both)")
        return
    if not (args.name or "").strip():
        raise UsageError(f"{args.command} create needs --name NAME")
    if args.command == "building" and args.id:
        raise UsageError("building create makes its id from --name; give no ID")


def create_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`persona create --name N [--building ID] [--mode auto]` / `building create --name N [--capacity N]`."""
    check_usage(args)
    if args.command == "persona":
        spec = _spec(args, {"name": "name", "description": "description", "building": "building_id",
                            "mode": "interaction_mode", "avatar": "avatar", "system_prompt": "system_prompt"})
        if args.id:
            spec["persona_id"] = args.id
        spec.setdefault("building_id", manager.user_building() or "")
        info: Any = manager.admin.create_persona(spec)
    else:
        spec = _spec(args, {"name": "name", "description": "description", "capacity": "capacity",
                            "auto_interval": "auto_interval_sec", "map_x": "map_x", "map_y": "map_y"})
        info = manager.admin.create_building(spec)
    if args.json:
        print_json(info.to_dict())
        return 0
    ident = info.persona_id if args.command == "persona" else info.building_id
    print(words.say(f"out_created_{args.command}", name=info.name, id=ident))
    return 0


def move_on_map_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`building move-on-map ID --map-x X --map-y Y` (or `--auto`): the building's place on the city map."""
    spec = {"map_x": None, "map_y": None} if args.auto else {"map_x": args.map_x, "map_y": args.map_y}
    manager.admin.update_building(args.id, spec)
    spot = next(s for s in manager.city_map() if s.building_id == args.id)
    if args.json:
        print_json(spot.to_dict())
        return 0
    how = words.say("out_placed_auto" if spot.auto else "out_placed_set")
    print(words.say("out_placed", name=spot.name, id=spot.building_id, how=how, x=f"{spot.x:g}", y=f"{spot.y:g}"))
    return 0


def delete_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`persona delete ID` / `building delete ID [--move-to ID]` through the admin rules."""
    from saiverse.errors import UsageError

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
    print(words.say(f"out_deleted_{report.kind}", name=report.name, id=report.id))
    if report.items_moved:
        print(words.say("out_items_moved", n=report.items_moved, to=report.moved_to))
    if report.removed:
        print(words.say("out_removed", what=", ".join(f"{table} {n}" for table, n in report.removed.items())))
    print(words.say("out_backup_before", path=report.backup))
    return 0


def reflex_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    """`persona reflex-on|reflex-off ID`: whether recall runs on the user's message before the persona answers
    (saiverse/memory/_reflex.py); kept in the city's database, on unless turned off."""
    from saiverse.memory import reflex_setting_key

    info = manager.world.persona(args.id)  # an unknown id is refused, naming it
    on = args.action == "reflex-on"
    manager.world_settings.set_flag(reflex_setting_key(info.persona_id), on)
    if args.json:
        print_json({"persona_id": info.persona_id, "reflex_recall": on})
    else:
        print(words.say("out_reflex_on" if on else "out_reflex_off", name=info.name, id=info.persona_id))
    return 0


def _administer(args: argparse.Namespace) -> int:
    check_usage(args)  # before the home is opened: a refused command writes nothing
    with world(args) as manager:
        run = {"create": create_command, "delete": delete_command, "move-on-map": move_on_map_command,
               "reflex-on": reflex_command, "reflex-off": reflex_command, "voice": voice_command}[args.action]
        return run(manager, args, print_json)


def persona(args: argparse.Namespace) -> int:
    """persona administration: create one, delete a persona (a backup keeps its memory), turn its reflex
    recall on or off (reflex-on / reflex-off), or show or set her voice (voice P [--engine …] [--voice …])"""
    return _administer(args)


def building(args: argparse.Namespace) -> int:
    """building administration: create one, place it on the city map (move-on-map), or delete an empty building"""
    return _administer(args)


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    for func in (persona, building):
        noun = func.__name__
        p = command(sub, func)
        p.add_argument("action", choices=["create", "delete", "move-on-map"] if noun == "building" else
                       ["create", "delete", "reflex-on", "reflex-off", "voice"])
        p.add_argument("id", nargs="?", help=f"the {noun} id (delete; optional for persona create)")
        add_create_options(p, noun)
        if noun == "persona":
            add_voice_options(p)
        if noun == "building":
            p.add_argument("--move-to", metavar="ID", help="the building that takes the deleted building's items")
        add_json(p, "print what was done as one JSON object")
