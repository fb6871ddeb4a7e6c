"""A persona's last reply, regenerated: every answer kept as a swipe, the chosen one shown and remembered.

Like SillyTavern's swipes (docs/ARCHITECTURE.md, "Storage", chat edits). The reply is the building's
last line, said by a persona in one line of its pulse. Regenerating it:

1. `forget_reply` takes the reply out of SAIMemory — the persona's `assistant` message of that pulse
   and the pulse's copy of the user's line (the new pulse stores that again) — and returns what the
   new pulse needs: the persona and the user's line it answered;
2. the new pulse runs as a user pulse and writes its reply as a new history line;
3. `fold_reply` moves that line into the old one: the old row's `METADATA` keeps every answer under
   `swipes` (content, pulse id, time) and `swipe` (which one is chosen); its CONTENT and PULSE_ID are
   the chosen answer's text and the pulse whose memory holds it. The new line is deleted.

`choose_swipe` shows another answer: the row's CONTENT becomes it, and the persona's remembered
answer (the `assistant` message of the latest pulse, `memory_id`) is rewritten to it, so memory
always holds the one the chat shows. Each step is one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text

from database import Database
from saiverse.errors import UserError
from saiverse.world._world import UnknownIdError
from words import say


class NoReplyError(UserError):
    """The building's last line is not a persona's reply that can be regenerated."""


@dataclass
class Swipes:
    """The answers of one reply line and which one is shown."""

    history_id: int
    persona_id: str
    answers: list[dict[str, Any]] = field(default_factory=list)
    """Each answer: `content`, `pulse_id`, `at` (oldest first)."""
    chosen: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"history_id": self.history_id, "persona_id": self.persona_id, "answers": self.answers,
                "chosen": self.chosen}


def _meta(raw: Any) -> dict[str, Any]:
    try:
        data = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _last(conn: Any, building_id: str) -> Any:
    return conn.execute(text(
        "SELECT ID, SPEAKER_KIND, SPEAKER_ID, CONTENT, PULSE_ID, CREATED_AT, METADATA FROM building_history "
        "WHERE BUILDINGID = :b ORDER BY ID DESC LIMIT 1"), {"b": building_id}).first()


def _swipes_of(row: Any) -> Swipes:
    meta = _meta(row[6])
    answers = meta.get("swipes") if isinstance(meta.get("swipes"), list) else None
    if not answers:
        answers = [{"content": row[3], "pulse_id": row[4], "at": str(row[5] or "")}]
    chosen = meta.get("swipe") if isinstance(meta.get("swipe"), int) else len(answers) - 1
    return Swipes(int(row[0]), str(row[2]), answers, max(0, min(chosen, len(answers) - 1)))


def _reply(conn: Any, building_id: str) -> Any:
    row = _last(conn, building_id)
    if row is None or row[1] != "persona" or not row[2] or not row[4]:
        raise NoReplyError(say("redo_not_last"))
    lines = conn.execute(text(
        "SELECT COUNT(*) FROM building_history WHERE BUILDINGID = :b AND PULSE_ID = :p"),
        {"b": building_id, "p": row[4]}).scalar()
    if int(lines or 0) != 1:
        raise NoReplyError(say("redo_many_lines"))
    return row



def _line(conn: Any, building_id: str, history_id: int) -> Any:
    """Line `history_id` of the building as the swipes read it (None when the building has no such line)."""
    return conn.execute(text(
        "SELECT ID, SPEAKER_KIND, SPEAKER_ID, CONTENT, PULSE_ID, CREATED_AT, METADATA FROM building_history "
        "WHERE ID = :i AND BUILDINGID = :b"), {"i": int(history_id), "b": building_id}).first()

def reply_swipes(db: Database, building_id: str, history_id: int) -> Swipes | None:
    """The answers of line `history_id` (None when it is not a reply with several answers or the last line)."""
    with db.engine.connect() as conn:
        row = _line(conn, building_id, history_id)
    if row is None:
        raise UnknownIdError(say("redo_no_line", id=history_id))
    if row[1] != "persona":
        return None
    return _swipes_of(row)


def _user_line(conn: Any, building_id: str, before_id: int) -> str:
    said = conn.execute(text(
        "SELECT CONTENT FROM building_history WHERE BUILDINGID = :b AND ID < :i AND SPEAKER_KIND = 'user' "
        "ORDER BY ID DESC LIMIT 1"), {"b": building_id, "i": before_id}).scalar()
    if said is None:
        raise NoReplyError(say("redo_not_to_you"))
    return str(said)


def forget_reply(db: Database, building_id: str) -> tuple[int, str, str]:
    """Take the building's last reply out of its persona's SAIMemory (its pulse's answer and the pulse's
    copy of the user's line); the history keeps it until `fold_reply`.

    Returns:
        (the reply's history id, the persona id, the user's line it answered).

    Raises:
        NoReplyError: the last line is not a single-line persona reply to the user."""
    with db.session(write=True) as s:  # the line read, then rewritten: two windows' clicks in turn
        conn = s.connection()
        row = _reply(conn, building_id)
        said = _user_line(conn, building_id, row[0])
        ids = [r[0] for r in conn.execute(text(
            "SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse AND ("
            "(ROLE = 'assistant' AND CONTENT = :c) OR (ROLE = 'user' AND CONTENT = :u))"),
            {"p": row[2], "pulse": row[4], "c": row[3], "u": said})]
        for mid in ids:
            conn.execute(text("DELETE FROM saimemory_tag WHERE MESSAGE_ID = :i"), {"i": mid})
            conn.execute(text("DELETE FROM saimemory WHERE ID = :i"), {"i": mid})
        return int(row[0]), str(row[2]), said


def fold_reply(db: Database, building_id: str, history_id: int, pulse_id: str) -> Swipes:
    """Move the reply pulse `pulse_id` wrote into line `history_id` as its newest, chosen answer.

    Raises:
        NoReplyError: the new pulse wrote no reply (the old answer stays the chosen one)."""
    with db.session(write=True) as s:  # the line read, then rewritten: two windows' clicks in turn
        conn = s.connection()
        old = _line(conn, building_id, history_id)
        if old is None:
            raise UnknownIdError(say("redo_line_gone", id=history_id))
        new = conn.execute(text(
            "SELECT ID, CONTENT, CREATED_AT FROM building_history WHERE BUILDINGID = :b AND PULSE_ID = :p "
            "AND SPEAKER_KIND = 'persona' AND SPEAKER_ID = :sid ORDER BY ID DESC LIMIT 1"),
            {"b": building_id, "p": pulse_id, "sid": old[2]}).first()
        swipes = _swipes_of(old)
        if new is None:
            raise NoReplyError(say("redo_nothing_new"))
        swipes.answers.append({"content": new[1], "pulse_id": pulse_id, "at": str(new[2] or datetime.now())})
        swipes.chosen = len(swipes.answers) - 1
        _store(conn, old, swipes, memory_pulse=pulse_id)
        conn.execute(text("DELETE FROM building_history WHERE ID = :i"), {"i": new[0]})
        return swipes


def _store(conn: Any, row: Any, swipes: Swipes, *, memory_pulse: str) -> None:
    meta = _meta(row[6])
    meta.update(swipes=swipes.answers, swipe=swipes.chosen, memory_pulse=memory_pulse)
    answer = swipes.answers[swipes.chosen]
    conn.execute(text("UPDATE building_history SET CONTENT = :c, PULSE_ID = :p, METADATA = :m WHERE ID = :i"),
                 {"c": answer["content"], "p": memory_pulse, "m": json.dumps(meta, ensure_ascii=False),
                  "i": row[0]})


def choose_swipe(db: Database, building_id: str, history_id: int, index: int) -> Swipes:
    """Show answer `index` of line `history_id` and make it the one the persona remembers.

    Raises:
        UnknownIdError: no such line in the building.
        NoReplyError: the line has no such answer."""
    with db.session(write=True) as s:  # the line read, then rewritten: two windows' clicks in turn
        conn = s.connection()
        row = _line(conn, building_id, history_id)
        if row is None:
            raise UnknownIdError(say("redo_no_line", id=history_id))
        swipes = _swipes_of(row)
        if row[1] != "persona" or not 0 <= index < len(swipes.answers):
            raise NoReplyError(say("redo_no_answer", n=index + 1))
        memory_pulse = str(_meta(row[6]).get("memory_pulse") or row[4])
        shown = swipes.answers[swipes.chosen]["content"]
        swipes.chosen = index
        # The remembered answer is the latest pulse's assistant message: rewrite it to the chosen text.
        conn.execute(text(
            "UPDATE saimemory SET CONTENT = :new WHERE ID = (SELECT MIN(ID) FROM saimemory WHERE PERSONA_ID = :p "
            "AND PULSE_ID = :pulse AND ROLE = 'assistant' AND CONTENT = :old)"),
            {"new": swipes.answers[index]["content"], "p": row[2], "pulse": memory_pulse, "old": shown})
        _store(conn, row, swipes, memory_pulse=memory_pulse)
        return swipes


def keep_reply(db: Database, building_id: str, history_id: int, pulse_id: str) -> None:
    """A regenerate whose pulse wrote no reply: line `history_id` keeps its answer, now remembered
    under `pulse_id` (the caller stored it there again)."""
    with db.session(write=True) as s:  # the line read, then rewritten: two windows' clicks in turn
        conn = s.connection()
        row = _line(conn, building_id, history_id)
        if row is not None:
            _store(conn, row, _swipes_of(row), memory_pulse=pulse_id)


# ---- a reply that stopped before its end, continued (upstream's 「続きの生成」) ----------------------

def cut_of(raw_metadata: Any) -> str:
    """Why a history line stopped before its end (`length`, `stopped`), from its METADATA; "" if it did not."""
    cut = _meta(raw_metadata).get("cut")
    return str(cut) if isinstance(cut, str) else ""


def cut_reply(db: Database, building_id: str) -> tuple[int, str, str]:
    """The building's last line when it is a persona's reply that stopped before its end.

    Returns:
        (its history id, the persona id, the text said so far).

    Raises:
        NoReplyError: the last line is not a cut reply."""
    with db.engine.connect() as conn:
        row = _last(conn, building_id)
    if row is None or row[1] != "persona" or not row[2] or not row[4] or not cut_of(row[6]):
        raise NoReplyError(say("continue_not_cut"))
    return int(row[0]), str(row[2]), str(row[3])


def extend_reply(db: Database, building_id: str, history_id: int, pulse_id: str) -> tuple[str, str]:
    """Append what pulse `pulse_id` said to line `history_id` (a cut reply), in the history and in the
    persona's remembered answer, in one transaction; the pulse's own line and message go.

    Returns:
        (the line's whole text now, why it is still cut or "").

    Raises:
        NoReplyError: the pulse said nothing (the line stays as it was)."""
    with db.session(write=True) as s:  # the line read, then rewritten: two windows' clicks in turn
        conn = s.connection()
        old = _line(conn, building_id, history_id)
        if old is None:
            raise UnknownIdError(say("redo_line_gone", id=history_id))
        new = conn.execute(text(
            "SELECT ID, CONTENT, METADATA FROM building_history WHERE BUILDINGID = :b AND PULSE_ID = :p "
            "AND SPEAKER_KIND = 'persona' AND SPEAKER_ID = :sid ORDER BY ID"),
            {"b": building_id, "p": pulse_id, "sid": old[2]}).all()
        more = "".join(str(r[1]) for r in new)
        if not more.strip():
            raise NoReplyError(say("continue_nothing"))
        whole, still = str(old[3]) + more, cut_of(new[-1][2])
        meta = _meta(old[6])
        memory_pulse = str(meta.get("memory_pulse") or old[4])
        meta.pop("cut", None)
        if still:
            meta["cut"] = still
        if isinstance(meta.get("swipes"), list) and isinstance(meta.get("swipe"), int) \
                and 0 <= meta["swipe"] < len(meta["swipes"]):
            meta["swipes"][meta["swipe"]]["content"] = whole  # the chosen answer is the one continued
        conn.execute(text("UPDATE building_history SET CONTENT = :c, METADATA = :m WHERE ID = :i"),
                     {"c": whole, "m": json.dumps(meta, ensure_ascii=False), "i": old[0]})
        # The persona remembers one answer, the whole of it: its earlier part grows, the pulse's goes.
        conn.execute(text(
            "UPDATE saimemory SET CONTENT = :new WHERE ID = (SELECT MIN(ID) FROM saimemory WHERE PERSONA_ID = :p "
            "AND PULSE_ID = :pulse AND ROLE = 'assistant' AND CONTENT = :old)"),
            {"new": whole, "p": old[2], "pulse": memory_pulse, "old": old[3]})
        for mid in [r[0] for r in conn.execute(text(
                "SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse AND ROLE = 'assistant'"),
                {"p": old[2], "pulse": pulse_id})]:
            conn.execute(text("DELETE FROM saimemory_tag WHERE MESSAGE_ID = :i"), {"i": mid})
            conn.execute(text("DELETE FROM saimemory WHERE ID = :i"), {"i": mid})
        for r in new:
            conn.execute(text("DELETE FROM building_history WHERE ID = :i"), {"i": r[0]})
        return whole, still
