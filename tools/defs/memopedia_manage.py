"""memopedia_health / memopedia_manage (upstream v0.3): look over Memopedia and tidy it.

The health report has upstream's sections (total, per category, pages to split over 3000 characters,
pages over 2000, pages with no summary); `meta_autonomy_decision` feeds it to the model as text.
Deleting takes the page's subtree with it, kept in the page history (saiverse/memory/_memopedia_manage.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool

MAX_LISTED = 10
"""Pages listed per section of the health report (the rest are counted)."""


def _section(rows: list[dict[str, Any]], title: str, empty: str | None = None, *, chars: bool = True) -> list[str]:
    if not rows:
        return [f"\n{empty}"] if empty else []
    out = [f"\n### {title}: {len(rows)}件"]
    for r in rows[:MAX_LISTED]:
        size = f" ({r['chars']}字)" if chars else ""
        out.append(f"  - {r['title']}{size} [{r['category']}] (page_id: {r['page_id']})")
    if len(rows) > MAX_LISTED:
        out.append(f"  ... 他{len(rows) - MAX_LISTED}件")
    return out


@tool("memopedia_health")
def memopedia_health(ctx: ToolContext) -> str:
    """Report on your Memopedia: page count, pages too large (to split), pages lacking a summary."""
    h = ctx.memopedia_health()
    lines = ["## Memopedia ヘルスレポート", f"総ページ数: {h['total']}"]
    if h["by_category"]:
        lines.append("カテゴリ別: " + ", ".join(f"{k}: {v}" for k, v in h["by_category"].items()))
    lines += _section(h["oversized"], "分割推奨 (3000字超)", "分割推奨ページ: なし")
    lines += _section(h["large"], "注意 (2000-3000字)")
    lines += _section(h["no_summary"], "概要なし", chars=False)
    return "\n".join(lines)


@tool("memopedia_manage")
def memopedia_manage(
    ctx: ToolContext,
    action: Annotated[Literal["delete", "move", "set_vividness", "set_important"], Field(description="What to do.")],
    page_id: Annotated[str, Field(description="The page.")],
    new_parent_id: Annotated[str | None, Field(description="move: the new parent page (or root_people / "
                                                           "root_terms / root_plans).")] = None,
    vividness: Annotated[Literal["vivid", "rough", "faint", "buried"] | None,
                         Field(description="set_vividness: the new vividness.")] = None,
    is_important: Annotated[bool | None, Field(description="set_important: true or false.")] = None,
) -> str:
    """Manage a Memopedia page: delete it (with its child pages), move it under another parent, set its
    vividness (vivid/rough/faint/buried) or its important flag."""
    page_id = page_id.strip()
    if not page_id:
        raise ToolArgumentError("page_id を指定してください。")
    if action == "delete":
        gone = ctx.memopedia_delete(page_id)
        more = f" (子ページ {len(gone) - 1} 件も)" if len(gone) > 1 else ""
        return f"ページ '{gone[0]['title']}' を削除しました{more}"
    if action == "move":
        if not (new_parent_id or "").strip():
            raise ToolArgumentError("move には new_parent_id (移動先の親ページ) が必要です。")
        page = ctx.memopedia_update(page_id, parent_id=(new_parent_id or "").strip())
        return f"ページ '{page['title']}' を移動しました (新しい親: {page['parent_id']})"
    if action == "set_vividness":
        if vividness is None:
            raise ToolArgumentError("set_vividness には vividness (vivid / rough / faint / buried) が必要です。")
        page = ctx.memopedia_update(page_id, vividness=vividness)
        return f"ページ '{page['title']}' の鮮明度を '{vividness}' に変更しました"
    if is_important is None:
        raise ToolArgumentError("set_important には is_important (true / false) が必要です。")
    page = ctx.memopedia_update(page_id, is_important=is_important)
    return f"ページ '{page['title']}' を{'重要' if is_important else '通常'}に設定しました"
