"""schedule_add / schedule_list / schedule_delete: a persona's own schedule."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool


@tool("schedule_add")
def schedule_add(
    ctx: ToolContext,
    kind: Literal["periodic", "oneshot", "interval"],
    days_of_week: Annotated[str | None, Field(description="periodic: 'daily' or comma list mon..sun")] = None,
    time_of_day: Annotated[str | None, Field(description="periodic: HH:MM")] = None,
    run_at: Annotated[str | None, Field(description="oneshot: YYYY-MM-DD HH:MM (local time)")] = None,
    interval_sec: Annotated[int | None, Field(description="interval: seconds between runs (>= 60)")] = None,
    meta_playbook: Annotated[str, Field(description="meta playbook to run (default meta_auto)")] = "meta_auto",
    args: Annotated[dict[str, Any] | None, Field(description="arguments for the meta playbook")] = None,
) -> dict[str, Any]:
    """Add an entry to your schedule: which meta playbook to run, when, with what args. periodic: days_of_week
    (e.g. 'mon,wed' or 'daily') + time_of_day 'HH:MM'; oneshot: run_at 'YYYY-MM-DD HH:MM'; interval:
    interval_sec (>= 60).

    Validation lives in the schedule store.
    """
    return ctx.schedule_add({
        "kind": kind, "days_of_week": days_of_week, "time_of_day": time_of_day, "run_at": run_at,
        "interval_sec": interval_sec, "meta_playbook": meta_playbook, "args": args or {},
    })


@tool("schedule_list")
def schedule_list(ctx: ToolContext) -> list[dict[str, Any]]:
    """List your schedule entries."""
    return ctx.schedule_list()


@tool("schedule_delete")
def schedule_delete(ctx: ToolContext, schedule_id: Annotated[str, Field(description="Id of the entry.")]) -> str:
    """Delete one of your schedule entries by id."""
    if ctx.schedule_delete(schedule_id):
        return f"予定 {schedule_id} を削除しました。"
    return f"予定 {schedule_id} は見つかりませんでした。"
