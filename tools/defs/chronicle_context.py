"""Upstream v0.3's chronicle_context_up / chronicle_context_down: walk the Chronicle from one entry,
with upstream's argument names (tools/defs/chronicle.py reads one entry in detail)."""

from __future__ import annotations

from typing import Any

from tools.context import ToolContext
from tools.registry import ToolError, tool

MAX_MESSAGES = 200
"""Most raw messages `chronicle_context_down` returns for a level-1 entry."""


def _line(e: dict[str, Any]) -> str:
    span = f"{(e.get('start_time') or '?')[:16]} 〜 {(e.get('end_time') or '?')[:16]}".replace("T", " ")
    return f"[{e['entry_id']}] Lv.{e['level']} {span}\n{e['content']}"


@tool("chronicle_context_up")
def chronicle_context_up(ctx: ToolContext, entry_id: str) -> str:
    """For a Chronicle entry, its parent summary and all its sibling entries (the entries that parent summarises)."""
    entry = ctx.chronicle_detail(entry_id.strip(), False, 1)
    if not entry.get("parent_id"):
        # Older homes leave PARENT_ID empty: the parent is the next level's entry that summarises this one.
        above = ctx.chronicle_search(None, None, None, entry["level"] + 1, 1000)
        entry["parent_id"] = next((e["entry_id"] for e in above if entry["entry_id"] in e["source_ids"]), None)
    if not entry.get("parent_id"):
        raise ToolError(f"Chronicle エントリ {entry['entry_id']} (Lv.{entry['level']}) には"
                        "まだ上のまとめがありません。")
    parent = ctx.chronicle_detail(entry["parent_id"], True, 1)
    parts = ["【上のまとめ】", _line(parent), "", f"【同じまとめの中のエントリ ({len(parent['sources'])}件)】"]
    for sibling in parent["sources"]:
        mark = " ← これ" if sibling["entry_id"] == entry["entry_id"] else ""
        parts.append(_line(sibling) + mark)
    return "\n".join(parts)


@tool("chronicle_context_down")
def chronicle_context_down(ctx: ToolContext, entry_id: str) -> str:
    """For a level-1 Chronicle entry, all the raw messages it summarises; for a higher level, its child entries."""
    entry = ctx.chronicle_detail(entry_id.strip(), True, MAX_MESSAGES)
    parts = [_line(entry), ""]
    if entry["level"] == 1:
        parts.append(f"【元のメッセージ ({len(entry['sources'])}件)】")
        for m in entry["sources"]:
            when = (m.get("created_at") or "")[:19].replace("T", " ")
            parts.append(f"[{when}] [{m['role']}]: {m['content']}")
    else:
        parts.append(f"【まとめているエントリ ({len(entry['sources'])}件)】")
        parts += [_line(child) for child in entry["sources"]]
    if not entry["sources"]:
        parts.append("(元になったものはこのホームにありません)")
    return "\n".join(parts)
