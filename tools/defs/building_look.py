"""building_look: what the persona sees around it — the building, who is here, items, recent talk."""

from __future__ import annotations

from tools.context import ToolContext
from tools.registry import tool


@tool("building_look")
def building_look(ctx: ToolContext) -> str:
    """Look around the building you are in: description, who is here, items, recent talk."""
    view = ctx.building_overview()
    lines = [f"建物: {view['name']} — {view['description']}"]
    others = [p for p in view["personas"] if p != view.get("self_name")]
    lines.append("ここにいるペルソナ: " + ("、".join(others) if others else "(自分だけ)"))
    if view.get("user_present"):
        lines.append("ユーザーがここにいます。")
    if view["items"]:
        lines.append("アイテム: " + "、".join(f"{i['name']}({i['type']})" for i in view["items"]))
    if view["recent"]:
        lines.append("最近の会話:")
        lines += [f"  {r['speaker']}: {r['content'][:80]}" for r in view["recent"]]
    return "\n".join(lines)
