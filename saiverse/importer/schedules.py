"""Persona schedules (periodic / oneshot / interval with their playbook params) and persona event logs.

Upstream `DAYS_OF_WEEK` is a JSON list of weekday numbers (0 = Monday) → our `mon,tue,…`; a
periodic schedule without days runs daily. The next run is computed here, as `ScheduleStore` would;
a completed one-shot keeps its row and never runs again. Ids are kept (as text).
"""

from __future__ import annotations

from datetime import datetime

from database.models import Schedule
from saiverse.importer.context import Context, rows
from saiverse.importer.convert import dumps, json_value, naive_text, stamp
from saiverse.importer.report import Text
from saiverse.world import DAYS, KINDS, MIN_INTERVAL_SEC, ScheduleError, next_run, parse_time


def _days(raw: object) -> str:
    value = json_value(raw, raw)
    if isinstance(value, list) and value:
        days = sorted({int(d) for d in value if isinstance(d, int | float) and 0 <= int(d) < 7})
        return ",".join(DAYS[d] for d in days) if days else "daily"
    return "daily"


def _when(raw: object) -> datetime | None:
    text = naive_text(raw)
    return datetime.fromisoformat(text) if text else None


def _interval(ctx: Context, sid: str, raw: object) -> int | None:
    """Upstream's interval in seconds, raised to this app's minimum (a shorter or negative one would make
    the schedule run at every tick)."""
    if raw is None or raw == "":
        return None
    try:
        sec = int(str(raw))
    except ValueError as exc:
        raise ScheduleError(f"interval {raw!r} is not a number of seconds") from exc
    if sec < MIN_INTERVAL_SEC:
        ctx.report.problem(f"schedule {sid}", Text(
            f"間隔 {sec} 秒はこのアプリの最小値より短いため {MIN_INTERVAL_SEC} 秒にしました",
            f"its interval of {sec} s is below this app's minimum: now {MIN_INTERVAL_SEC} s"))
        return MIN_INTERVAL_SEC
    return sec


def import_schedules(ctx: Context, meta_playbooks: set[str]) -> None:
    for r in rows(ctx.src, "persona_schedule"):
        sid, persona = str(r["SCHEDULE_ID"]), str(r.get("PERSONA_ID"))
        if sid in ctx.state.schedules:
            ctx.report.existing["schedules"] += 1
            continue
        if persona not in ctx.personas_ok:
            ctx.report.skip("schedule", sid, Text(f"ペルソナ {persona} が取り込まれていません",
                                                  f"its persona {persona} was not imported"))
            continue
        kind = str(r.get("SCHEDULE_TYPE") or "")
        row = Schedule(kind=kind, time_of_day=None, days_of_week=None, run_at=_when(r.get("SCHEDULED_DATETIME")),
                       interval_sec=r.get("INTERVAL_SECONDS"), last_run_at=_when(r.get("LAST_EXECUTED_AT")))
        try:
            if kind not in KINDS:
                raise ScheduleError(f"unknown schedule type {kind!r}")
            if kind == "periodic":
                h, m = parse_time(str(r.get("TIME_OF_DAY") or "")[:5])
                row.time_of_day, row.days_of_week = f"{h:02d}:{m:02d}", _days(r.get("DAYS_OF_WEEK"))
            completed = bool(r.get("COMPLETED"))
            if kind == "oneshot" and row.run_at is None and not completed:  # it would never run, silently
                raise ScheduleError(f"its time {r.get('SCHEDULED_DATETIME')!r} is not a date and time")
            if kind == "interval":
                row.interval_sec = _interval(ctx, sid, r.get("INTERVAL_SECONDS"))
            upcoming = None if completed else next_run(row, ctx.now)
        except (ScheduleError, ValueError) as exc:
            ctx.report.skip("schedule", sid, Text(f"読めないスケジュールです ({exc})", f"unreadable schedule ({exc})"))
            continue
        meta = str(r.get("META_PLAYBOOK") or "meta_auto")
        if meta not in meta_playbooks:
            ctx.report.problem(f"schedule {sid}", Text(
                f"メタプレイブック {meta} がこのアプリにないため、取り込むまで実行されません",
                f"its meta playbook {meta} does not exist here; it will not run until that playbook is imported"))
        params = json_value(r.get("PLAYBOOK_PARAMS"), {})
        ctx.db.execute(
            "INSERT INTO schedule (SCHEDULE_ID, PERSONA_ID, KIND, DAYS_OF_WEEK, TIME_OF_DAY, RUN_AT, INTERVAL_SEC, "
            "META_PLAYBOOK, ARGS_JSON, ENABLED, DESCRIPTION, PRIORITY, COMPLETED, LAST_RUN_AT, NEXT_RUN_AT, "
            "CREATED_AT) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (sid, persona, kind, row.days_of_week, row.time_of_day, naive_text(r.get("SCHEDULED_DATETIME")),
             row.interval_sec, meta, dumps(params if isinstance(params, dict) else {"value": params}),
             int(bool(r.get("ENABLED", 1))), r.get("DESCRIPTION") or "", int(r.get("PRIORITY") or 0),
             int(completed), naive_text(r.get("LAST_EXECUTED_AT")), stamp(upcoming) if upcoming else None,
             naive_text(r.get("CREATED_AT")) or stamp(ctx.now)))
        ctx.report.imported["schedules"] += 1


def import_events(ctx: Context) -> None:
    for r in rows(ctx.src, "persona_event_log", "CREATED_AT, EVENT_ID"):
        eid, persona = str(r["EVENT_ID"]), str(r.get("PERSONA_ID"))
        if eid in ctx.state.events:
            ctx.report.existing["events"] += 1
            continue
        if persona not in ctx.personas_ok:
            ctx.report.skip("event", eid, Text(f"ペルソナ {persona} が取り込まれていません",
                                               f"its persona {persona} was not imported"))
            continue
        ctx.db.execute(
            "INSERT INTO persona_event_log (EVENT_ID, PERSONA_ID, CREATED_AT, CONTENT, STATUS, EVENT_TYPE, PAYLOAD) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (eid, persona, naive_text(r.get("CREATED_AT")) or stamp(ctx.now), r.get("CONTENT") or "",
             r.get("STATUS") or "pending", r.get("EVENT_TYPE"),
             r.get("PAYLOAD") if r.get("PAYLOAD") is None or isinstance(r.get("PAYLOAD"), str)
             else dumps(r.get("PAYLOAD"))))
        ctx.report.imported["events"] += 1
