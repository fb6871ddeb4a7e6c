"""Persona schedules: periodic (days of week + HH:MM), one-shot, interval (table `schedule`).

Each entry names a meta playbook and its `args`; the ticker (`due` + `mark_fired`) hands due
entries to the pulse controller as schedule pulses. Times are local wall-clock times.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from database import Database
from database.models import Schedule
from saiverse.errors import UserError

KINDS = ("periodic", "oneshot", "interval")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAYS_JA = ("月", "火", "水", "木", "金", "土", "日")
MIN_INTERVAL_SEC = 60


class ScheduleError(UserError, ValueError):
    """A schedule entry that cannot be stored; the message says which field and why."""


@dataclass
class ScheduleInfo:
    """A schedule entry as tools, the UI and the CLI see it."""

    schedule_id: str
    persona_id: str
    kind: str
    days_of_week: str | None
    time_of_day: str | None
    run_at: str | None
    interval_sec: int | None
    meta_playbook: str
    args: dict[str, Any]
    enabled: bool
    last_run_at: str | None
    next_run_at: str | None
    description: str = ""
    """What the entry is for (upstream's DESCRIPTION)."""
    priority: int = 0
    """Upstream's PRIORITY (0-100), kept with the entry."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat(timespec="minutes") if dt else None


def _info(row: Schedule) -> ScheduleInfo:
    return ScheduleInfo(
        row.schedule_id, row.persona_id, row.kind, row.days_of_week, row.time_of_day, _iso(row.run_at),
        row.interval_sec, row.meta_playbook, json.loads(row.args_json or "{}"), bool(row.enabled),
        _iso(row.last_run_at), _iso(row.next_run_at), row.description or "", int(row.priority or 0),
    )


def parse_days(raw: str | None) -> list[int]:
    """`daily`, `weekdays`, `weekends` or a comma list of mon..sun → weekday numbers. The Japanese forms
    the スケジュール tab offers are read too: 毎日, 平日, 週末 and 月..日 (`、` or `,` between them)."""
    text = (raw or "daily").strip().lower()
    if text in ("daily", "everyday", "毎日", ""):
        return list(range(7))
    if text in ("weekdays", "平日"):
        return list(range(5))
    if text in ("weekends", "週末"):
        return [5, 6]
    out = []
    for part in text.replace(" ", "").replace("、", ",").split(","):
        day = part[:1] if part[:1] in DAYS_JA else part[:3]
        if day not in DAYS and day not in DAYS_JA:
            raise ScheduleError(f"days_of_week: {part!r} is not a day (use mon..sun, daily, weekdays)")
        out.append(DAYS.index(day) if day in DAYS else DAYS_JA.index(day))
    return sorted(set(out))


def parse_time(raw: str | None) -> tuple[int, int]:
    try:
        hh, mm = (raw or "").strip().split(":")
        h, m = int(hh), int(mm)
    except ValueError as exc:
        raise ScheduleError(f"time_of_day must be HH:MM, got {raw!r}") from exc
    if not (0 <= h < 24 and 0 <= m < 60):
        raise ScheduleError(f"time_of_day out of range: {raw!r}")
    return h, m


def next_run(row: Schedule, after: datetime) -> datetime | None:
    """The first run strictly after `after` (None when a one-shot has run)."""
    if row.kind == "oneshot":
        return row.run_at if (row.run_at and row.last_run_at is None) else None
    if row.kind == "interval":
        base = row.last_run_at or after
        return base + timedelta(seconds=int(row.interval_sec or MIN_INTERVAL_SEC))
    h, m = parse_time(row.time_of_day)
    days = parse_days(row.days_of_week)
    for offset in range(8):
        day = (after + timedelta(days=offset)).replace(hour=h, minute=m, second=0, microsecond=0)
        if day > after and day.weekday() in days:
            return day
    return None


class ScheduleStore:
    """CRUD of schedule entries plus the ticker's queries."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, persona_id: str, spec: dict[str, Any], *, now: datetime | None = None) -> ScheduleInfo:
        now = now or datetime.now()
        kind = str(spec.get("kind") or "")
        if kind not in KINDS:
            raise ScheduleError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        args = spec.get("args") or {}
        if not isinstance(args, dict):
            raise ScheduleError("args must be an object")
        row = Schedule(
            schedule_id=uuid.uuid4().hex[:12], persona_id=persona_id, kind=kind,
            meta_playbook=str(spec.get("meta_playbook") or "meta_auto"),
            args_json=json.dumps(args, ensure_ascii=False), enabled=0 if spec.get("enabled") is False else 1,
            description=str(spec.get("description") or ""), priority=int(spec.get("priority") or 0), created_at=now,
        )
        if kind == "periodic":
            parse_time(spec.get("time_of_day"))
            parse_days(spec.get("days_of_week"))
            row.time_of_day = str(spec["time_of_day"]).strip()
            row.days_of_week = str(spec.get("days_of_week") or "daily")
        elif kind == "oneshot":
            try:
                row.run_at = datetime.fromisoformat(str(spec.get("run_at") or "").strip())
            except ValueError as exc:
                raise ScheduleError(f"run_at must be 'YYYY-MM-DD HH:MM', got {spec.get('run_at')!r}") from exc
            if row.run_at <= now:
                raise ScheduleError(f"run_at {row.run_at:%Y-%m-%d %H:%M} is in the past")
        else:
            try:
                sec = int(spec.get("interval_sec") or 0)
            except (TypeError, ValueError) as exc:
                raise ScheduleError("interval_sec must be an integer") from exc
            if sec < MIN_INTERVAL_SEC:
                raise ScheduleError(f"interval_sec must be at least {MIN_INTERVAL_SEC}")
            row.interval_sec = sec
        row.next_run_at = next_run(row, now)
        with self.db.session() as s:
            s.add(row)
            s.flush()
            return _info(row)

    def list(self, persona_id: str | None = None) -> list[ScheduleInfo]:
        with self.db.session() as s:
            q = select(Schedule).order_by(Schedule.created_at)
            if persona_id:
                q = q.where(Schedule.persona_id == persona_id)
            return [_info(r) for r in s.scalars(q).all()]

    def delete(self, schedule_id: str, persona_id: str | None = None) -> bool:
        with self.db.session() as s:
            row = s.get(Schedule, schedule_id)
            if row is None or (persona_id and row.persona_id != persona_id):
                return False
            s.delete(row)
            return True

    def due(self, now: datetime) -> list[ScheduleInfo]:
        with self.db.session() as s:
            rows = s.scalars(select(Schedule).where(
                Schedule.enabled == 1, Schedule.next_run_at.is_not(None), Schedule.next_run_at <= now,
            ).order_by(Schedule.next_run_at)).all()
            return [_info(r) for r in rows]

    def mark_fired(self, schedule_id: str, now: datetime, *, within: Callable[[Any], None] | None = None) -> bool:
        """Claim a due run: record it and compute the next one (a one-shot is disabled). False when the
        entry is gone or no longer due — another process (a pulse worker, saiverse/pulse/_queue.py)
        claimed this run first; the row is locked while it is claimed, so a run fires once.

        `within(connection)` runs inside the claim's transaction (the pulse queue defers the run's job
        there, saiverse/pulse/_remote.py): the claim and the job commit together or not at all, so a
        process killed between them neither loses the run nor fires it twice. If it raises, the claim
        is undone."""
        with self.db.session() as s:
            row = s.scalars(select(Schedule).where(Schedule.schedule_id == schedule_id).with_for_update()).first()
            if row is None or not row.enabled or row.next_run_at is None or row.next_run_at > now:
                return False
            row.last_run_at = now
            row.next_run_at = next_run(row, now)
            if row.next_run_at is None:
                row.enabled = 0
            if within is not None:
                s.flush()
                within(s.connection())
            return True
