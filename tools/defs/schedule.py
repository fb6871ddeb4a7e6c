"""schedule_add / schedule_list / schedule_delete: a persona's own schedule."""

from __future__ import annotations

from typing import Any

from tools.context import ToolContext
from tools.registry import tool

_KIND_HELP = (
    "periodic: days_of_week (e.g. 'mon,wed' or 'daily') + time_of_day 'HH:MM'; "
    "oneshot: run_at 'YYYY-MM-DD HH:MM'; interval: interval_sec (>= 60)."
)


@tool(
    "schedule_add",
    "Add an entry to your schedule: which meta playbook to run, when, with what args. " + _KIND_HELP,
    {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["periodic", "oneshot", "interval"]},
            "days_of_week": {"type": "string", "description": "periodic: 'daily' or comma list mon..sun"},
            "time_of_day": {"type": "string", "description": "periodic: HH:MM"},
            "run_at": {"type": "string", "description": "oneshot: YYYY-MM-DD HH:MM (local time)"},
            "interval_sec": {"type": "integer", "description": "interval: seconds between runs (>= 60)"},
            "meta_playbook": {"type": "string", "description": "meta playbook to run (default meta_auto)"},
            "args": {"type": "object", "description": "arguments for the meta playbook"},
        },
        "required": ["kind"],
    },
)
def schedule_add(
    ctx: ToolContext, kind: str, days_of_week: str | None = None, time_of_day: str | None = None,
    run_at: str | None = None, interval_sec: int | None = None, meta_playbook: str = "meta_auto",
    args: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Validate and store a schedule entry (validation lives in the schedule store)."""
    return ctx.schedule_add({
        "kind": kind, "days_of_week": days_of_week, "time_of_day": time_of_day, "run_at": run_at,
        "interval_sec": interval_sec, "meta_playbook": meta_playbook, "args": args or {},
    })


@tool("schedule_list", "List your schedule entries.", {"type": "object", "properties": {}})
def schedule_list(ctx: ToolContext) -> list[dict[str, Any]]:
    return ctx.schedule_list()


@tool(
    "schedule_delete",
    "Delete one of your schedule entries by id.",
    {"type": "object", "properties": {"schedule_id": {"type": "string"}}, "required": ["schedule_id"]},
)
def schedule_delete(ctx: ToolContext, schedule_id: str) -> str:
    if ctx.schedule_delete(schedule_id):
        return f"予定 {schedule_id} を削除しました。"
    return f"予定 {schedule_id} は見つかりませんでした。"
