"""get_situation_snapshot: time, what started this turn, where the persona is, who is around.

With `detect_changes` the snapshot is compared with the last one kept in the persona's working
memory (key `situation_snapshot`): a move, personas coming or going, or the user moving is written
to SAIMemory as `<system>【状況変化】…</system>` (tags `internal`, `situation_change`). The first
snapshot is only kept: there is nothing to compare it with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool
from tools.text import elapsed_ja

KEY = "situation_snapshot"
PULSE_JA = {"user": "ユーザー応答", "schedule": "スケジュール", "auto": "自律行動"}


def _last_spoke(ctx: ToolContext, now: datetime) -> str:
    mine = [m for m in ctx.memory_recent(30, ["conversation"]) if m.get("role") == "assistant"]
    if not mine:
        return "まだ話していません"
    return elapsed_ja(now - datetime.fromisoformat(str(mine[-1]["created_at"])))


def _where(ctx: ToolContext, building_id: str | None) -> str:
    return ctx.building(building_id)["name"] if building_id else "不明"


def _changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if before.get("building_id") != now["building_id"]:
        out.append(f"移動: {before.get('building_name') or '不明'} → {now['building_name']}")
    else:
        old = dict(zip(before.get("building_occupants", []), before.get("building_occupant_names", []), strict=False))
        new = dict(zip(now["building_occupants"], now["building_occupant_names"], strict=True))
        out += [f"{new[p]}が来ました" for p in new if p not in old]
        out += [f"{old[p]}が去りました" for p in old if p not in new]
    if before.get("user_building") != now["user_building"]:
        out.append(f"ユーザーの居場所: {before.get('user_building_name') or '不明'} → {now['user_building_name']}")
    return out


@tool("get_situation_snapshot")
def get_situation_snapshot(
    ctx: ToolContext,
    building_id: Annotated[str, Field(description="Building id; default: where you are.")] = "",
    detect_changes: Annotated[bool, Field(
        description="Compare with your last snapshot and note what changed in your memory.")] = False,
) -> tuple[str, dict[str, Any]]:
    """See the current situation: local time, what started this turn, time since you last spoke,
    where you are, who else is here and where the user is.

    Returns (snapshot text, change info): the node's `output_keys`.
    """
    bid = building_id.strip() or ctx.building_id
    building = ctx.building(bid)
    now = datetime.now().astimezone()
    others = [p for p in ctx.personas_in(bid) if p["persona_id"] != ctx.persona_id]
    user_bid = ctx.user_building()
    data: dict[str, Any] = {
        "building_id": bid, "building_name": building["name"],
        "building_occupants": [p["persona_id"] for p in others], "building_occupant_names": [p["name"] for p in others],
        "user_building": user_bid, "user_building_name": _where(ctx, user_bid),
        "pulse_type": ctx.pulse_kind(), "current_time": now.strftime("%Y年%m月%d日 %H:%M:%S"),
        "timezone": f"{now.tzname()} ({now.strftime('%z')[:3]}:{now.strftime('%z')[3:]})",
    }
    user_line = "この建物にいます" if user_bid == bid else f"{data['user_building_name']}にいます"
    text = "\n".join([
        f"- 現地時刻: {data['current_time']}",
        f"- タイムゾーン: {data['timezone']}",
        f"- このターンのきっかけ: {PULSE_JA.get(str(data['pulse_type']), '直接の実行')}",
        f"- 最後の発言からの経過: {_last_spoke(ctx, now)}",
        f"- 現在の建物: {building['name']}",
        f"- 建物内の他のペルソナ: {'、'.join(data['building_occupant_names']) or '(自分だけ)'}",
        f"- ユーザー: {user_line}",
    ])
    info: dict[str, Any] = {"has_change": False, "changes": [], "change_summary": "", "snapshot_data": data}
    if detect_changes:
        before = ctx.working_memory().get(KEY)
        changes = _changes(before, data) if isinstance(before, dict) else []
        ctx.set_working_memory(KEY, data)
        if changes:
            summary = "、".join(changes)
            ctx.remember("user", f"<system>【状況変化】{summary}</system>", ["internal", "situation_change"])
            info.update(has_change=True, changes=changes, change_summary=summary)
    return text, info
