"""A persona's tracks and notes, written by its `track_*` and `note_*` tools (upstream v0.3's rules).

Tracks: at most one `running` per persona — activating one sends the running one to `pending`, in the
same transaction; a persistent track (the user conversation, social ones) is never completed or
aborted; a finished track (completed / aborted) is not activated again. Notes: `person`, `project` or
`vocation`; opening one on a track links them (the running track unless one is named); closing
unlinks it and keeps the note. Every write is one transaction, so concurrent tool calls and a kill
at any point leave either the old state or the new one. Reading is `saiverse/memory/_tracks.py`.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from database.engine import Database, named
from saiverse.memory._tracks import notes, tracks
from tools import ToolError

NOTE_TYPES = ("person", "project", "vocation")
STATUSES = ("running", "alert", "pending", "waiting", "unstarted", "completed", "aborted")
FINISHED = ("completed", "aborted")


def _now() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _metadata(raw: str | None) -> str | None:
    """Upstream passes metadata as a JSON object in a string."""
    if raw in (None, ""):
        return None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ToolError(f"metadata は JSON のオブジェクトで書いてください ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise ToolError("metadata は JSON のオブジェクト ({...}) で書いてください")
    return json.dumps(value, ensure_ascii=False)


class TrackBook:
    """One persona's tracks and notes, for its tools."""

    def __init__(self, db: Database, persona_id: str) -> None:
        self.db, self.persona_id = db, persona_id

    def _track(self, s: Session, track_id: str) -> dict[str, Any]:
        row = s.execute(text("SELECT TRACK_ID, TITLE, STATUS, IS_PERSISTENT FROM action_track "
                             "WHERE TRACK_ID = :t AND PERSONA_ID = :p"), {"t": track_id, "p": self.persona_id}).first()
        if row is None:
            raise ToolError(f"トラック {track_id!r} はありません。track_list で確かめてください。")
        return named(row)

    def _running(self, s: Session) -> str | None:
        return s.execute(text("SELECT TRACK_ID FROM action_track WHERE PERSONA_ID = :p AND STATUS = 'running'"),
                         {"p": self.persona_id}).scalar()

    def _set(self, s: Session, track_id: str, status: str, **extra: str) -> None:
        cols = "".join(f", {k} = :{k}" for k in extra)
        s.execute(text(f"UPDATE action_track SET STATUS = :s, LAST_ACTIVE_AT = :now{cols} WHERE TRACK_ID = :t"),
                  {"s": status, "now": _now(), "t": track_id, **extra})

    def list(self, statuses: list[str] | None, include_forgotten: bool) -> list[dict[str, Any]]:
        bad = sorted(set(statuses or []) - set(STATUSES))
        if bad:
            raise ToolError(f"状態 {', '.join(bad)} はありません。使えるのは {', '.join(STATUSES)} です。")
        found = tracks(self.db, self.persona_id)
        return [t for t in found if (not statuses or t["status"] in statuses)
                and (include_forgotten or not t["is_forgotten"])]

    def create(self, track_type: str, title: str | None, intent: str | None, output_target: str, is_persistent: bool,
               metadata: str | None, activate: bool) -> dict[str, Any]:
        if not track_type.strip():
            raise ToolError("track_type を指定してください (例: autonomous, user_conversation, social, waiting)")
        track_id = str(uuid.uuid4())
        with self.db.session() as s:
            s.execute(text(
                "INSERT INTO action_track (TRACK_ID, PERSONA_ID, TITLE, TRACK_TYPE, IS_PERSISTENT, OUTPUT_TARGET, "
                "STATUS, INTENT, METADATA_JSON, CREATED_AT, LAST_ACTIVE_AT) VALUES (:t, :p, :title, :type, :persist, "
                ":out, 'unstarted', :intent, :meta, :now, :now)"),
                {"t": track_id, "p": self.persona_id, "title": title, "type": track_type.strip(),
                 "persist": int(is_persistent), "out": output_target or "none", "intent": intent,
                 "meta": _metadata(metadata), "now": _now()})
            if activate:
                self._activate(s, track_id)
        return self._one(track_id)

    def _activate(self, s: Session, track_id: str) -> None:
        track = self._track(s, track_id)
        if track["STATUS"] in FINISHED:
            raise ToolError(f"トラック「{track['TITLE'] or track_id}」は {track['STATUS']} です。"
                            "新しく track_create してください。")
        # One statement moves whichever track runs now (read inside the write, so two activations at
        # once cannot both leave theirs running), then this one runs.
        s.execute(text("UPDATE action_track SET STATUS = 'pending', LAST_ACTIVE_AT = :now WHERE PERSONA_ID = :p "
                       "AND STATUS = 'running' AND TRACK_ID != :t"),
                  {"p": self.persona_id, "t": track_id, "now": _now()})
        self._set(s, track_id, "running")

    def activate(self, track_id: str) -> dict[str, Any]:
        with self.db.session() as s:
            self._activate(s, track_id)
        return self._one(track_id)

    def pause(self, track_id: str) -> dict[str, Any]:
        with self.db.session() as s:
            track = self._track(s, track_id)
            if track["STATUS"] != "running":
                raise ToolError(f"トラック「{track['TITLE'] or track_id}」は実行中ではありません ({track['STATUS']})。")
            self._set(s, track_id, "pending")
        return self._one(track_id)

    def finish(self, track_id: str, status: str) -> dict[str, Any]:
        with self.db.session() as s:
            track = self._track(s, track_id)
            if track["IS_PERSISTENT"]:
                raise ToolError(f"トラック「{track['TITLE'] or track_id}」は持続するトラックなので "
                                f"{status} にできません。track_pause で保留にできます。")
            if track["STATUS"] in FINISHED:
                raise ToolError(f"トラック「{track['TITLE'] or track_id}」はすでに {track['STATUS']} です。")
            column = "COMPLETED_AT" if status == "completed" else "ABORTED_AT"
            self._set(s, track_id, status, **{column: _now()})
        return self._one(track_id)

    def set_parameter(self, track_id: str, name: str, value: float) -> dict[str, Any]:
        if not name.strip():
            raise ToolError("parameter_name を指定してください。")
        with self.db.session() as s:
            self._track(s, track_id)
            raw = s.execute(text("SELECT METADATA_JSON FROM action_track WHERE TRACK_ID = :t"),
                            {"t": track_id}).scalar()
            meta = json.loads(raw) if raw else {}
            meta = meta if isinstance(meta, dict) else {"upstream_metadata": meta}
            params = meta.setdefault("parameters", {})
            params[name.strip()] = value
            s.execute(text("UPDATE action_track SET METADATA_JSON = :m WHERE TRACK_ID = :t"),
                      {"m": json.dumps(meta, ensure_ascii=False), "t": track_id})
        return self._one(track_id)

    def _one(self, track_id: str) -> dict[str, Any]:
        return next(t for t in tracks(self.db, self.persona_id) if t["track_id"] == track_id)

    # ---- notes --------------------------------------------------------------------------------
    def note_create(self, title: str, note_type: str, description: str | None, metadata: str | None) -> dict[str, Any]:
        if not title.strip():
            raise ToolError("ノートの title を指定してください。")
        if note_type not in NOTE_TYPES:
            raise ToolError(f"note_type は {', '.join(NOTE_TYPES)} のどれかです ({note_type!r} は使えません)。")
        note_id = str(uuid.uuid4())
        with self.db.session() as s:
            s.execute(text("INSERT INTO note (NOTE_ID, PERSONA_ID, TITLE, NOTE_TYPE, DESCRIPTION, METADATA_JSON, "
                           "IS_ACTIVE, CREATED_AT) VALUES (:n, :p, :title, :type, :d, :m, 1, :now)"),
                      {"n": note_id, "p": self.persona_id, "title": title.strip(), "type": note_type,
                       "d": description, "m": _metadata(metadata), "now": _now()})
        return self._note(note_id)

    def _note_row(self, s: Session, note_id: str) -> dict[str, Any]:
        row = s.execute(text("SELECT NOTE_ID, TITLE FROM note WHERE NOTE_ID = :n AND PERSONA_ID = :p"),
                        {"n": note_id, "p": self.persona_id}).first()
        if row is None:
            raise ToolError(f"ノート {note_id!r} はありません。note_search で確かめてください。")
        return named(row)

    def _target(self, s: Session, track_id: str | None) -> str:
        if track_id:
            return str(self._track(s, track_id)["TRACK_ID"])
        running = self._running(s)
        if running is None:
            raise ToolError("実行中のトラックがありません。track_id を指定するか track_activate してください。")
        return str(running)

    def note_open(self, note_id: str, track_id: str | None) -> dict[str, Any]:
        with self.db.session() as s:
            self._note_row(s, note_id)
            target = self._target(s, track_id)
            # ON CONFLICT DO NOTHING, not SQLite's INSERT OR IGNORE: PostgreSQL reads only the former.
            s.execute(text("INSERT INTO track_open_note (TRACK_ID, NOTE_ID, OPENED_AT) "
                           "VALUES (:t, :n, :now) ON CONFLICT DO NOTHING"), {"t": target, "n": note_id, "now": _now()})
            s.execute(text("UPDATE note SET LAST_OPENED_AT = :now WHERE NOTE_ID = :n"), {"n": note_id, "now": _now()})
        return self._one(target)

    def note_close(self, note_id: str, track_id: str | None) -> dict[str, Any]:
        with self.db.session() as s:
            self._note_row(s, note_id)
            target = self._target(s, track_id)
            gone = s.execute(text("DELETE FROM track_open_note WHERE TRACK_ID = :t AND NOTE_ID = :n"),
                             {"t": target, "n": note_id}).rowcount
            if not gone:
                raise ToolError("そのノートはこのトラックで開かれていません。")
        return self._one(target)

    def note_search(self, query: str | None, note_type: str | None, include_inactive: bool) -> list[dict[str, Any]]:
        if note_type is not None and note_type not in NOTE_TYPES:
            raise ToolError(f"note_type は {', '.join(NOTE_TYPES)} のどれかです。")
        words = (query or "").strip().lower()
        return [n for n in notes(self.db, self.persona_id)
                if (note_type is None or n["note_type"] == note_type) and (include_inactive or n["is_active"])
                and (not words or words in n["title"].lower())]

    def _note(self, note_id: str) -> dict[str, Any]:
        return next(n for n in notes(self.db, self.persona_id) if n["note_id"] == note_id)
