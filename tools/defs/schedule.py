"""schedule_add / schedule_list / schedule_delete: a persona's own schedule, with upstream's arguments.

Our older argument names (`kind`, `run_at`, `interval_sec`) are still accepted by schedule_add.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAYS_JA = "月火水木金土日"
MIN_INTERVAL = 60
KIND_JA = {"periodic": "定期", "oneshot": "一回", "interval": "一定間隔"}


def _days(days_of_week: list[int] | None) -> str:
    if not days_of_week:
        return "daily"
    bad = [d for d in days_of_week if not 0 <= d <= 6]
    if bad:
        raise ToolArgumentError(f"tool 'schedule_add': days_of_week are 0 (Monday) to 6 (Sunday), got {bad}")
    return ",".join(DAYS[d] for d in sorted(set(days_of_week)))


def _when(entry: dict[str, Any]) -> str:
    if entry["kind"] == "periodic":
        days = entry.get("days_of_week") or "daily"
        label = "毎日" if days == "daily" else "・".join(DAYS_JA[DAYS.index(d)] for d in days.split(",")) + "曜"
        return f"{label} {entry['time_of_day']}"
    if entry["kind"] == "oneshot":
        return str(entry["run_at"]).replace("T", " ")
    return f"{entry['interval_sec']} 秒ごと"


OLD_NAMES = {"kind": "schedule_type", "run_at": "scheduled_datetime", "interval_sec": "interval_seconds"}


@tool("schedule_add", aliases=OLD_NAMES)
def schedule_add(
    ctx: ToolContext,
    schedule_type: Annotated[Literal["periodic", "oneshot", "interval"], Field(
        description="periodic = on days at a time, oneshot = once at a date and time, interval = every N seconds.")],
    meta_playbook: Annotated[str, Field(description="Meta playbook to run (e.g. meta_auto, meta_user).")],
    description: Annotated[str, Field(description="What the entry is for.")] = "",
    priority: Annotated[int, Field(description="Priority 0-100 (larger first).", ge=0, le=100)] = 0,
    enabled: Annotated[bool, Field(description="Whether it runs (default true).")] = True,
    days_of_week: Annotated[list[int] | None, Field(
        description="periodic: days, 0 = Monday … 6 = Sunday, e.g. [0, 2, 4]; omit for every day.")] = None,
    time_of_day: Annotated[str | None, Field(description="periodic: time HH:MM, e.g. '09:00'.")] = None,
    scheduled_datetime: Annotated[str | None, Field(
        description="oneshot: local date and time 'YYYY-MM-DD HH:MM'.")] = None,
    interval_seconds: Annotated[int | None, Field(description="interval: seconds between runs (at least 60).")] = None,
    args: Annotated[dict[str, Any] | None, Field(description="Arguments for the meta playbook.")] = None,
) -> dict[str, Any]:
    """Add an entry to your schedule: which meta playbook to run and when (periodic: days_of_week +
    time_of_day; oneshot: scheduled_datetime; interval: interval_seconds).

    Returns the stored entry (schedule_id, next_run_at, ...) with a `message` to read.
    """
    if schedule_type == "periodic" and not (time_of_day or "").strip():
        raise ToolArgumentError("tool 'schedule_add': a periodic schedule needs time_of_day ('HH:MM')")
    if schedule_type == "oneshot" and not (scheduled_datetime or "").strip():
        raise ToolArgumentError("tool 'schedule_add': a oneshot schedule needs scheduled_datetime ('YYYY-MM-DD HH:MM')")
    if schedule_type == "interval" and (interval_seconds is None or interval_seconds < MIN_INTERVAL):
        raise ToolArgumentError(
            f"tool 'schedule_add': an interval schedule needs interval_seconds of at least {MIN_INTERVAL}, "
            f"got {interval_seconds}")
    entry = ctx.schedule_add({
        "kind": schedule_type, "meta_playbook": meta_playbook.strip(), "args": args or {},
        "description": description.strip(), "priority": priority, "enabled": enabled,
        "days_of_week": _days(days_of_week) if schedule_type == "periodic" else None,
        "time_of_day": time_of_day, "run_at": scheduled_datetime, "interval_sec": interval_seconds,
    })
    state = "" if entry["enabled"] else " (無効のまま登録)"
    nxt = str(entry["next_run_at"]).replace("T", " ") if entry.get("next_run_at") else "なし"
    message = (f"予定を追加しました{state}: {KIND_JA[entry['kind']]} {_when(entry)} に {entry['meta_playbook']}。"
               f"次回: {nxt} (schedule_id: {entry['schedule_id']})")
    return {**entry, "message": message}


@tool("schedule_list")
def schedule_list(ctx: ToolContext) -> list[dict[str, Any]]:
    """List your schedule entries (schedule_id, kind, when, meta_playbook, next run)."""
    return ctx.schedule_list()


@tool("schedule_delete")
def schedule_delete(
    ctx: ToolContext, schedule_id: Annotated[str | int, Field(description="Id of the entry (schedule_list shows it).")],
) -> str:
    """Delete one of your schedule entries by id."""
    sid = str(schedule_id).strip()
    if ctx.schedule_delete(sid):
        return f"予定 {sid} を削除しました。"
    return f"予定 {sid} は見つかりませんでした (schedule_list で id を確かめてください)。"
