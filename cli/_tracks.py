"""The CLI commands `tracks` and `notes`: a persona's upstream v0.3 tracks and notes (saiverse/memory/_tracks.py).

Both print one JSON object with `--json`, else a
short readable listing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cli._frame import add_json, command, print_json, world

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

PrintJson = Callable[[Any], None]


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    for func in (tracks, notes):
        p = command(sub, func)
        p.add_argument("--persona", required=True)
        add_json(p, "print one JSON object")


def tracks(args: argparse.Namespace) -> int:
    """a persona's tracks (upstream v0.3) with their open notes and logs"""
    with world(args) as manager:
        return tracks_command(manager, args, print_json)


def notes(args: argparse.Namespace) -> int:
    """a persona's notes (upstream v0.3) with their pages and messages"""
    with world(args) as manager:
        return notes_command(manager, args, print_json)


def tracks_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    from saiverse.memory import activity_states, judgments, tracks

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


def notes_command(manager: SAIVerseManager, args: argparse.Namespace, print_json: PrintJson) -> int:
    from saiverse.memory import memory_notes, notes

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
