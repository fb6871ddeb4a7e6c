"""Open pulses: what a process killed in the middle of a pulse leaves for the next start to account for.

A pulse keeps its writes in its journal until it ends (saiverse/pulse/_journal.py), so a kill -9 in
the middle of one would leave the user's message unanswered with nothing saying why, and — worse —
a change a tool had already made (a document, a move, a Memopedia page) that the persona does not
remember. So a pulse that has something to account for is kept in `pulse_open` (migration step 12)
until it ends:

- a user's pulse from its user's message on: the row is written in the same transaction as the message
  (`PulseController.say`), and removed in the same transaction as the pulse's own writes;
- any pulse from its tools' first change on: each change's note is written at once, in its own short
  transaction, as the tool reports it (`PulseJournal.note_effect`);
- any pulse from just before a tool changes the world: the tool's intent (`[persona, null, tool]`, the
  last entry of EFFECTS_JSON) is written first, in its own short transaction, and replaced by the
  change's note in the note's write (saiverse/pulse/_intent.py). So a kill between a tool's own commit
  and its note still leaves a trace: the intent, recovered as a note that the pulse stopped in the
  middle of that tool and its result is unknown (`intent_note`, tags `INTENT_TAGS`).

A row still there at a start is a pulse that never ended. `recover_open` turns it into what an ended
pulse would have left: a note per change (and per unreported intent) and a note that the pulse stopped
in the persona's memory (`pulse_effect`, `pulse_intent`, `pulse_stopped`, as `PulseJournal.commit_stopped`
writes them) and, for a user's
pulse, a line in the building saying the reply was cut off. Rows of this host are recovered by the
app's start when no other process has the home open (so none of them is running); a worker's rows
(`queue`) by the retry of its job (saiverse/pulse/_queue.py), which knows its worker was lost.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, text

from database import Database
from database.direct import run_many
from saiverse.memory import SAIMemory
from saiverse.pulse._intent import intent_note
from saiverse.world import World
from words import say

log = logging.getLogger(__name__)

RUNNER_LOCAL = f"local:{socket.gethostname()}"
"""Pulses run by this host's own processes (the app, a CLI command): recovered by a start on this host."""
RUNNER_QUEUE = "queue"
"""Pulses run by a worker for a queued job: the job's retry accounts for them."""
EFFECT_TAGS = ["internal", "pulse_effect"]
"""Tags of the note a stopped pulse keeps for each change its tools made."""
INTENT_TAGS = ["internal", "pulse_intent"]
"""Tags of the note for a tool a killed pulse was running whose change was never reported."""
STOPPED_TAGS = ["internal", "pulse_stopped"]
"""Tags of the note that says a pulse stopped before its end."""
KILLED = "pulse_killed"
"""Why a pulse recovered at a start stopped (a words/_city.py key)."""
MODEL_STOPPED = {"local_crashed": "pulse_local_crashed", "local_hang": "pulse_local_hang",
                 "local_broken": "pulse_local_broken"}
"""Why a pulse stopped (words/_city.py keys) when its model stopped (an `LLMError`'s kind): the app went on."""


def stop_reason(exc: BaseException) -> str:
    """What stopped a pulse, said plainly: the model (its process crashed, hung, cannot run here; or it
    answered with an error), never "the app ended" for a failure the app lived through."""
    kind = str(getattr(exc, "kind", "") or "")
    if kind in MODEL_STOPPED:
        return say(MODEL_STOPPED[kind])
    if kind:  # another LLMError: the model (or its server) refused or failed
        return say("pulse_model_error", detail=str(exc)[:200])
    return say("pulse_error", detail=str(exc)[:300] or type(exc).__name__)


def stopped_line(name: str, why: str, at: datetime | None = None) -> str:
    """The building's line for a user's message whose reply stopped (`at`: when the message was sent,
    said when the line is written later, at the next start)."""
    if at is not None:
        return say("pulse_stopped_at", at=f"{at:%H:%M}", name=name, why=why)
    return say("pulse_stopped", name=name, why=why)

_OPEN = text("INSERT INTO pulse_open (PULSE_ID, PERSONA_ID, BUILDING_ID, KIND, RUNNER, STARTED_AT) "
             "VALUES (:p, :persona, :b, :kind, :runner, :at)")
_EFFECTS = text(
    "INSERT INTO pulse_open (PULSE_ID, PERSONA_ID, BUILDING_ID, KIND, RUNNER, EFFECTS_JSON, STARTED_AT) "
    "VALUES (:p, :persona, :b, :kind, :runner, :effects, :at) "
    "ON CONFLICT (PULSE_ID) DO UPDATE SET EFFECTS_JSON = excluded.EFFECTS_JSON")
_CLOSE = text("DELETE FROM pulse_open WHERE PULSE_ID = :p")
_ROWS = "SELECT PULSE_ID, PERSONA_ID, BUILDING_ID, KIND, EFFECTS_JSON, STARTED_AT FROM pulse_open"


@dataclass
class OpenPulse:
    """A pulse as `pulse_open` keeps it; `recorded` once its row is in the database."""

    pulse_id: str
    persona_id: str
    building_id: str | None
    kind: str
    runner: str
    recorded: bool = False


def effect_note(note: str) -> str:
    """The memory note for one change a stopped pulse's tools made."""
    return f"このパルスでしたこと: {note}"


def stopped_note(why: str, *, kept: bool) -> str:
    """The memory note that a pulse stopped (`kept`: some of its changes stay)."""
    return f"このパルスは途中で止まりました ({why})。" + ("ここまでにしたことは残っています。" if kept else "")


def closing_notes(personas: Iterable[str], intents: list[tuple[str, str]], why: str, *,
                  kept: bool) -> list[tuple[str, str, str, list[str]]]:
    """The last notes of a pulse that stopped (`why`): one per tool it was in the middle of (`intents`,
    (persona id, tool)), then one per persona that it stopped — as memory rows (persona, role, text, tags).
    `kept`: some of its changes stay."""
    notes = [(who, "user", intent_note(tool), list(INTENT_TAGS)) for who, tool in intents]
    return notes + [(who, "user", stopped_note(why, kept=kept), list(STOPPED_TAGS))
                    for who in dict.fromkeys([*personas, *(who for who, _ in intents)])]


def _now() -> str:
    return datetime.now().isoformat(sep=" ", timespec="microseconds")


def open_in(conn: Connection, pulses: list[OpenPulse]) -> None:
    """Keep `pulses` open, in the caller's transaction (the one that stores their user's message)."""
    if pulses:
        at = _now()
        run_many(conn, _OPEN, [{"p": o.pulse_id, "persona": o.persona_id, "b": o.building_id, "kind": o.kind,
                                "runner": o.runner, "at": at} for o in pulses])
        for o in pulses:
            o.recorded = True


def record_effects(db: Database, pulse: OpenPulse, effects: list[tuple[str, str | None]],
                   intent: tuple[str, str] | None = None) -> None:
    """Keep the notes of every change the pulse's tools made so far, and the `intent` (persona id, tool)
    of a tool about to change the world, at once, in their own transaction: a kill after this finds
    them (`recover_open`). The intent is kept as a last entry `[persona id, null, tool]`."""
    entries: list[list[Any]] = [list(e) for e in effects]
    if intent is not None:
        entries.append([intent[0], None, intent[1]])
    with db.engine.begin() as conn:
        conn.execute(_EFFECTS, {"p": pulse.pulse_id, "persona": pulse.persona_id, "b": pulse.building_id,
                                "kind": pulse.kind, "runner": pulse.runner, "at": _now(),
                                "effects": json.dumps(entries, ensure_ascii=False)})
    pulse.recorded = True


def close_in(conn: Connection, pulse: OpenPulse | None) -> None:
    """The pulse ended and its writes are in the caller's transaction: it is no longer open."""
    if pulse is not None and pulse.recorded:
        run_many(conn, _CLOSE, [{"p": pulse.pulse_id}])  # SQLite's own cursor: every user's turn runs it


def close(db: Database, pulse: OpenPulse | None) -> None:
    """The pulse ended writing nothing (it failed before any change): no longer open."""
    if pulse is not None and pulse.recorded:
        with db.engine.begin() as conn:
            close_in(conn, pulse)
        pulse.recorded = False


def _when(value: Any) -> datetime | None:
    """A STARTED_AT as stored (a datetime, or its ISO text on SQLite's own cursor)."""
    if isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _account(conn: Connection, memory: SAIMemory, world: World, row: Any, why: str) -> str:
    """Write what the open pulse `row` would have left had it ended with `why`; remove the row."""
    pulse_id, persona_id, building_id, kind, effects_json = row[:5]
    started = _when(row[5]) if len(row) > 5 else None
    try:
        entries = json.loads(effects_json or "[]")
        effects = [(str(e[0]), e[1]) for e in entries if len(e) < 3 or not e[2]]
        intents = [(str(e[0]), str(e[2])) for e in entries if len(e) >= 3 and e[2]]
    except (ValueError, TypeError, IndexError, KeyError):
        log.warning("open pulse %s: its changes' notes are unreadable; it is recorded as stopped", pulse_id)
        effects, intents = [(persona_id, None)], []
    for who, note in effects:
        if note:
            memory.add(who, "user", effect_note(str(note)), tags=list(EFFECT_TAGS), pulse_id=pulse_id, session=conn)
    for who, role, content, tags in closing_notes([persona_id, *(e[0] for e in effects)], intents, why,
                                                  kept=bool(effects)):
        memory.add(who, role, content, tags=tags, pulse_id=pulse_id, session=conn)
    named = conn.execute(text("SELECT AINAME FROM ai WHERE AIID = :p"), {"p": persona_id}).first()
    name = str(named[0]) if named else persona_id
    if kind == "user" and building_id and conn.execute(  # a building deleted since has no chat to say it in
            text("SELECT 1 FROM building WHERE BUILDINGID = :b"), {"b": building_id}).first():
        world.add_history(building_id, speaker_kind="system", speaker_id=None, speaker_name="",
                          content=stopped_line(name, why, started),
                          pulse_id=pulse_id, session=conn)
    conn.execute(_CLOSE, {"p": pulse_id})
    return say("pulse_recovered", name=name, pulse=pulse_id[:8], why=why)


def recover_open(db: Database, memory: SAIMemory, world: World, runner: str = RUNNER_LOCAL) -> list[str]:
    """Account for every pulse of `runner` still open — call only when none of them can be running (the
    home's start, alone). One transaction: all of them, or none and the next start tries again."""
    notices: list[str] = []
    with db.engine.begin() as conn:
        rows = conn.execute(text(f"{_ROWS} WHERE RUNNER = :r ORDER BY STARTED_AT"), {"r": runner}).all()
        for row in rows:
            notices.append(_account(conn, memory, world, row, say(KILLED)))
    if notices:
        log.warning("%d pulse(s) stopped by a kill were accounted for", len(notices))
    return notices


def recover_one(db: Database, memory: SAIMemory, world: World, pulse: OpenPulse, why: str) -> None:
    """Account for `pulse`, lost with its worker (a job's retry): from its `pulse_open` row when its tools
    had changed something, else as it stands (a stopped note and, for a user's message, the line)."""
    with db.engine.begin() as conn:
        row = conn.execute(text(f"{_ROWS} WHERE PULSE_ID = :p"), {"p": pulse.pulse_id}).first()
        _account(conn, memory, world, row or (pulse.pulse_id, pulse.persona_id, pulse.building_id, pulse.kind, "[]",
                                             None), why)
