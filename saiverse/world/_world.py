"""The world: the city, its buildings, who is where, and what was said in each building."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, text

from database import Database
from database.direct import fetch_one, read_row, sqlite_sql
from database.models import Building, BuildingHistory, City, Persona, User
from saiverse.errors import UserError
from words import say

USER_ID = "user"


class UnknownIdError(UserError, LookupError):
    """An id (building, persona, item) that does not exist; the message names it."""


@dataclass
class BuildingInfo:
    """A building as the UI and CLI see it."""

    building_id: str
    name: str
    description: str
    capacity: int
    system_instruction: str
    auto_interval_sec: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PersonaInfo:
    """A persona as the UI, CLI and runtime see it."""

    persona_id: str
    name: str
    avatar: str
    description: str
    system_prompt: str
    interaction_mode: str
    building_id: str | None
    default_model: str | None
    lightweight_model: str | None
    lightweight_vision_model: str | None
    vision_model: str | None
    private_room_id: str | None = None
    """The persona's own room (a building id), as upstream SAIVerse gives each persona."""
    avatar_image: str | None = None
    """Avatar picture, relative to the data home (None: the `avatar` emoji is shown)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class HistoryEntry:
    """One line of a building's history."""

    id: int
    building_id: str
    speaker_kind: str
    speaker_id: str | None
    speaker_name: str
    content: str
    pulse_id: str | None
    created_at: str
    cut: str = ""
    """A persona's reply that stopped before its end: `length` or `stopped` (it can be continued)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _building(b: Building) -> BuildingInfo:
    return BuildingInfo(
        b.building_id, b.name, b.description or "", b.capacity, b.system_instruction or "", b.auto_interval_sec
    )


def _persona(p: Persona) -> PersonaInfo:
    return PersonaInfo(
        p.persona_id, p.name, p.avatar or "🙂", p.description or "", p.system_prompt or "",
        p.interaction_mode, p.building_id, p.default_model, p.lightweight_model,
        p.lightweight_vision_model, p.vision_model, p.private_room_id, p.avatar_image,
    )


def _entry(h: BuildingHistory) -> HistoryEntry:
    return HistoryEntry(
        h.id, h.building_id, h.speaker_kind, h.speaker_id, h.speaker_name, h.content, h.pulse_id,
        h.created_at.isoformat(timespec="seconds") if h.created_at else "",
        _cut(h.metadata_json) if h.metadata_json else "",
    )


def _cut(raw: str) -> str:
    """`cut` of a line's METADATA (saiverse/world/_swipes.py `cut_of` says the same for a raw row)."""
    try:
        meta = json.loads(raw)
    except (TypeError, ValueError):
        return ""
    cut = meta.get("cut") if isinstance(meta, dict) else None
    return cut if isinstance(cut, str) else ""


_BUILDING_ROW = select(Building.building_id, Building.name, Building.description, Building.capacity,
                       Building.system_instruction, Building.auto_interval_sec)
_BUILDING_BY_ID = _BUILDING_ROW.where(Building.building_id == bindparam("id"))  # built once: a clause costs
_HISTORY_ROW = BuildingHistory.__table__.insert()  # type: ignore[attr-defined]
_HISTORY_LINE = text(  # the same row as a plain statement (database/direct.py runs it on SQLite's cursor)
    "INSERT INTO building_history (BUILDINGID, SPEAKER_KIND, SPEAKER_ID, SPEAKER_NAME, CONTENT, PULSE_ID, CREATED_AT) "
    "VALUES (:BUILDINGID, :SPEAKER_KIND, :SPEAKER_ID, :SPEAKER_NAME, :CONTENT, :PULSE_ID, :CREATED_AT) RETURNING ID")
_PERSONA_ROW = select(Persona.persona_id, Persona.name, Persona.avatar, Persona.description, Persona.system_prompt,
                      Persona.interaction_mode, Persona.building_id, Persona.default_model, Persona.lightweight_model,
                      Persona.lightweight_vision_model, Persona.vision_model, Persona.private_room_id,
                      Persona.avatar_image)
_PERSONA_BY_ID = _PERSONA_ROW.where(Persona.persona_id == bindparam("id"))
_BUILDING_SQL, _PERSONA_SQL = sqlite_sql(_BUILDING_BY_ID), sqlite_sql(_PERSONA_BY_ID)


def _persona_row(p: Any) -> PersonaInfo:
    """A `_PERSONA_ROW` row as a PersonaInfo (as `_persona` makes one from the ORM object)."""
    return PersonaInfo(p[0], p[1], p[2] or "🙂", p[3] or "", p[4] or "", *p[5:])


class World:
    """Queries and moves over buildings, personas and the user."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def city_name(self) -> str | None:
        """The city's name (the first city: this app keeps one), None before the world is seeded."""
        with self.db.session() as s:
            city = s.scalars(select(City).order_by(City.city_id).limit(1)).first()
            return city.name if city else None

    def buildings(self) -> list[BuildingInfo]:
        with self.db.session() as s:
            rows = s.scalars(select(Building).order_by(Building.sort_order, Building.name)).all()
            return [_building(b) for b in rows]

    def building(self, building_id: str) -> BuildingInfo:
        # A plain row read (no ORM session): every pulse asks this, and a session costs ~3x the query.
        with self.db.engine.connect() as conn:
            row = conn.execute(_BUILDING_BY_ID, {"id": building_id}).first()
        if row is None:
            raise UnknownIdError(say("no_building", id=building_id))
        return BuildingInfo(row[0], row[1], row[2] or "", row[3], row[4] or "", row[5])

    def building_and_persona(self, building_id: str, persona_id: str | None) -> tuple[BuildingInfo, PersonaInfo | None]:
        """`building(building_id)` and, when `persona_id` is given, that persona (None when there is no
        such persona: the caller decides when to say so), read on one connection — a user's message
        asks both, and a pool checkout costs as much as the query. Raises for an unknown building."""
        with self.db.engine.connect() as conn:  # on SQLite's own cursor (database/direct.py): every turn reads these
            row = read_row(conn, _BUILDING_BY_ID, _BUILDING_SQL, {"id": building_id})
            p = read_row(conn, _PERSONA_BY_ID, _PERSONA_SQL, {"id": persona_id}) if row is not None and persona_id \
                else None
        if row is None:
            raise UnknownIdError(say("no_building", id=building_id))
        building = BuildingInfo(row[0], row[1], row[2] or "", row[3], row[4] or "", row[5])
        return building, _persona_row(p) if p is not None else None

    def personas(self, building_id: str | None = None) -> list[PersonaInfo]:
        with self.db.session() as s:
            q = select(Persona).order_by(Persona.created_at, Persona.name)
            if building_id is not None:
                q = q.where(Persona.building_id == building_id)
            return [_persona(p) for p in s.scalars(q).all()]

    def autonomous_personas(self) -> list[tuple[PersonaInfo, int]]:
        """Every `auto` persona that is in a building, with that building's autonomous interval (s).

        One query for the whole city: the ticker reads it every round, however many personas live here."""
        with self.db.session() as s:
            rows = s.execute(
                select(Persona, Building.auto_interval_sec).join(Building, Persona.building_id == Building.building_id)
                .where(Persona.interaction_mode == "auto").order_by(Persona.created_at, Persona.name)).all()
            return [(_persona(p), int(interval)) for p, interval in rows]

    def persona(self, persona_id: str) -> PersonaInfo:
        with self.db.engine.connect() as conn:  # a plain row read, as `building`
            p = conn.execute(_PERSONA_BY_ID, {"id": persona_id}).first()
        if p is None:
            raise UnknownIdError(say("no_persona", id=persona_id))
        return _persona_row(p)

    def user_building(self) -> str | None:
        with self.db.session() as s:
            u = s.get(User, USER_ID)
            return u.building_id if u else None

    def move_user(self, building_id: str) -> BuildingInfo:
        info = self.building(building_id)
        with self.db.session() as s:
            u = s.get(User, USER_ID)
            if u is None:
                s.add(User(user_id=USER_ID, name="あなた", building_id=building_id))
            else:
                u.building_id = building_id
        return info

    def move_persona(self, persona_id: str, building_id: str) -> PersonaInfo:
        info = self.building(building_id)
        with self.db.session(write=True) as s:  # the room counted, then taken: two moves never overfill it
            p = s.get(Persona, persona_id)
            if p is None:
                raise UnknownIdError(say("no_persona", id=persona_id))
            occupants = s.scalar(select(func.count()).select_from(Persona).where(
                Persona.building_id == building_id, Persona.persona_id != persona_id))
            if (occupants or 0) >= info.capacity:
                raise ValueError(say("building_full", name=info.name, capacity=info.capacity))
            p.building_id = building_id
            s.flush()
            return _persona(p)

    # ---- history ----------------------------------------------------------------------------
    def add_history(
        self, building_id: str, *, speaker_kind: str, speaker_id: str | None, speaker_name: str,
        content: str, pulse_id: str | None = None, session: Any = None,
    ) -> int:
        # A Core insert, not an ORM add + flush: a line is written for every message said.
        row = {"BUILDINGID": building_id, "SPEAKER_KIND": speaker_kind, "SPEAKER_ID": speaker_id,
               "SPEAKER_NAME": speaker_name, "CONTENT": content, "PULSE_ID": pulse_id, "CREATED_AT": datetime.now()}
        if isinstance(session, Connection):  # a Core transaction (a user's turn): SQLite's own cursor
            stamp = row["CREATED_AT"].isoformat(sep=" ", timespec="microseconds")  # as DateTime stores it
            return int(fetch_one(session, _HISTORY_LINE, {**row, "CREATED_AT": stamp})[0])
        if session is not None:
            return int(session.execute(_HISTORY_ROW, row).inserted_primary_key[0])
        with self.db.session() as s:
            return int(s.execute(_HISTORY_ROW, row).inserted_primary_key[0])

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[HistoryEntry]:
        """The latest `limit` lines (before `before_id` if given), oldest first."""
        with self.db.session() as s:
            q = select(BuildingHistory).where(BuildingHistory.building_id == building_id)
            if before_id is not None:
                q = q.where(BuildingHistory.id < before_id)
            rows = s.scalars(q.order_by(BuildingHistory.id.desc()).limit(limit)).all()
            return [_entry(h) for h in reversed(rows)]

    def history_after(self, building_id: str, after_id: int, *, limit: int = 50) -> list[HistoryEntry]:
        """Up to `limit` lines written after line `after_id`, oldest first."""
        with self.db.session() as s:
            rows = s.scalars(select(BuildingHistory).where(
                BuildingHistory.building_id == building_id, BuildingHistory.id > after_id,
            ).order_by(BuildingHistory.id).limit(limit)).all()
            return [_entry(h) for h in rows]

    def last_line_by(self, building_id: str, speaker_id: str) -> int | None:
        """Id of the last line `speaker_id` wrote in the building (None if it never spoke there)."""
        with self.db.session() as s:
            return s.scalar(select(func.max(BuildingHistory.id)).where(
                BuildingHistory.building_id == building_id, BuildingHistory.speaker_id == speaker_id))

    # ---- per-persona notes kept beside the persona row (EXTRA_JSON) ---------------------------
    def persona_extra(self, persona_id: str, key: str) -> Any:
        """The value kept under `key` in the persona's EXTRA_JSON (None when unset)."""
        with self.db.session() as s:
            p = s.get(Persona, persona_id)
            if p is None:
                raise UnknownIdError(say("no_persona", id=persona_id))
            return _extra(p.extra_json).get(key)

    def set_persona_extra(self, persona_id: str, key: str, value: Any) -> None:
        """Keep `value` (JSON) under `key` in the persona's EXTRA_JSON; None removes the key."""
        with self.db.session() as s:
            p = s.get(Persona, persona_id)
            if p is None:
                raise UnknownIdError(say("no_persona", id=persona_id))
            extra = _extra(p.extra_json)
            if value is None:
                extra.pop(key, None)
            else:
                extra[key] = value
            p.extra_json = json.dumps(extra, ensure_ascii=False)


def _extra(raw: str | None) -> dict[str, Any]:
    try:
        data = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}
