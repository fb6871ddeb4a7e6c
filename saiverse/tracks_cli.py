"""The CLI commands `tracks` and `notes`: a persona's upstream v0.3 tracks and notes (saiverse/tracks.py).

main.py parses the arguments and hands them here. Both print one JSON object with `--json`, else a
short readable listing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

PrintJson = Callable[[Any], None]


def add_parsers(sub: Any, add_home: Callable[[argparse.ArgumentParser], None]) -> None:
    """The subcommands of this module, on main.py's subparsers (`add_home` adds its --home flag)."""
    p = sub.add_parser("tracks", help="a persona's tracks (upstream v0.3) with their open notes and logs")
    add_home(p)
    p.add_argument("--persona", required=True)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p = sub.add_parser("notes", help="a persona's notes (upstream v0.3) with their pages and messages")
    add_home(p)
    p.add_argument("--persona", required=True)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def tracks_command(manager: Any, args: argparse.Namespace, print_json: PrintJson) -> int:
    from saiverse.tracks import activity_states, judgments, tracks

    persona = manager.world.persona(args.persona)  # an unknown persona: a one-line refusal, exit 2
    found = tracks(manager.db, persona.persona_id)
    state = activity_states(manager.db).get(persona.persona_id)
    if args.json:
        print_json({"persona_id": persona.persona_id, "activity_state": state, "tracks": found,
                    "judgments": judgments(manager.db, persona.persona_id)})
        return 0
    print(f"{persona.name} ({persona.persona_id}): {state}")
    for t in found:
        notes = ", ".join(n["title"] for n in t["open_notes"])
        print(f"  [{t['status']}] {t['title'] or t['track_type']} ({t['track_type']})"
              + (f"  notes: {notes}" if notes else "") + (f"  log: {len(t['log'])}" if t["log"] else ""))
    if not found:
        print("  (no tracks)")
    return 0


def notes_command(manager: Any, args: argparse.Namespace, print_json: PrintJson) -> int:
    from saiverse.tracks import memory_notes, notes

    persona = manager.world.persona(args.persona)
    found = notes(manager.db, persona.persona_id)
    facts = memory_notes(manager.db, persona.persona_id)
    if args.json:
        print_json({"persona_id": persona.persona_id, "notes": found, "memory_notes": facts})
        return 0
    print(f"{persona.name} ({persona.persona_id})")
    for n in found:
        state = "" if n["is_active"] else " (closed)"
        print(f"  [{n['note_type']}] {n['title']}{state}: {len(n['pages'])} pages, {len(n['messages'])} messages")
    for f in facts:
        print(f"  - {f['content']}" + (" (resolved)" if f["resolved"] else ""))
    if not found and not facts:
        print("  (no notes)")
    return 0
