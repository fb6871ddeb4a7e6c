"""item_list: the items the persona can reach, with ids and short ids (`item:N`, its number in the room or
in her hands, which every item tool also takes), so it can name one to view or use."""

from __future__ import annotations

from tools.context import ToolContext
from tools.registry import tool

_KIND = {"object": "オブジェクト", "picture": "絵", "document": "文書", "bag": "袋", "audio": "音声"}


@tool("item_list")
def item_list(ctx: ToolContext) -> str:
    """List the items in your building and in your hands (and what their bags hold), with their ids."""
    items = ctx.items_here()
    if not items:
        return "ここにはアイテムがありません。"
    lines = ["ここにあるアイテム:"]
    for i in items:
        where = " (手に持っている)" if i["owner_kind"] == "persona" else ""
        if i.get("in_bag"):
            where = f" (袋「{i['in_bag']}」の中)"
        desc = " ".join(str(i["description"]).split())[:80]
        short = f"item:{i['slot_number']} / " if i.get("slot_number") and not i.get("in_bag") else ""
        lines.append(f"- {short}{i['item_id']} 「{i['name']}」 {_KIND.get(i['type'], i['type'])}{where}: {desc}")
    return "\n".join(lines)
