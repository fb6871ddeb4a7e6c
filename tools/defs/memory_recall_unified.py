"""memory_recall_unified / forget_recalled (upstream v0.3).

`memory_recall_unified` is one recall over the persona's messages, Chronicle and Memopedia (the search
of tools/defs/memory_recall.py), each of the two long-term kinds switchable with upstream's flags.
Hits are listed in upstream's shape, with the id the next tool takes instead of upstream's saiverse://
URI: a Chronicle `entry_id` for chronicle_context_up/down, a Memopedia `page_id` for memopedia_get_page,
a message id for memory_read_around. What was recalled is kept in the persona's working memory
(key `recalled`, as upstream keeps recalled ids) until `forget_recalled` drops it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.defs.memory_recall import recall
from tools.registry import ToolArgumentError, tool
from tools.text import clip

MAX_TOPK = 20
MAX_KEPT = 20
"""Recalled memories kept in working memory (the oldest go first)."""


def _when(value: Any) -> str:
    return str(value or "?")[:16].replace("T", " ")


def _lines(i: int, hit: dict[str, Any]) -> list[str]:
    if hit["kind"] == "chronicle":
        return [f"[{i}] Chronicle Lv{hit.get('level', 1)} | {_when(hit.get('start_time'))} ~ "
                f"{_when(hit.get('end_time'))} | {hit.get('message_count', 0)}件",
                f"    entry_id: {hit['id']}", f"    {hit['content']}"]
    if hit["kind"] == "memopedia":
        out = [f"[{i}] Memopedia: {hit.get('title', '')}"]
        if hit.get("category"):
            out.append(f"    カテゴリ: {hit['category']}")
        out.append(f"    page_id: {hit['id']}")
        if hit.get("content"):
            out.append(f"    概要: {hit['content']}")
        return out
    return [f"[{i}] メッセージ | {_when(hit.get('created_at'))} | {hit.get('role', '')}",
            f"    id: {hit['id']}", f"    {clip(str(hit['content']), 400)}"]


@tool("memory_recall_unified")
def memory_recall_unified(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What to recall, in natural language.")],
    topk: Annotated[int, Field(description="Most results (1-20).")] = 5,
    search_chronicle: Annotated[bool, Field(description="Include Chronicle entries.")] = True,
    search_memopedia: Annotated[bool, Field(description="Include Memopedia pages.")] = True,
) -> str:
    """Recall across your memory at once — past messages, Chronicle summaries and Memopedia pages."""
    if not query.strip():
        raise ToolArgumentError("query に思い出したい内容を書いてください。")
    if not 1 <= topk <= MAX_TOPK:
        raise ToolArgumentError(f"topk は 1〜{MAX_TOPK} にしてください ({topk} が渡されました)。")
    skip = {k for k, on in (("chronicle", search_chronicle), ("memopedia", search_memopedia)) if not on}
    hits = [h for h in recall(ctx, query.strip(), [], topk * 3) if h.get("kind", "message") not in skip][:topk]
    if not hits:
        return "関連する記憶が見つかりませんでした。"
    for h in hits:
        h.setdefault("kind", "message")
    kept = [r for r in ctx.recalled() if r.get("source_id") not in {str(h["id"]) for h in hits}]
    kept += [{"source_id": str(h["id"]), "kind": h["kind"], "title": h.get("title", ""),
              "content": clip(str(h["content"]), 300)} for h in hits]
    ctx.set_recalled(kept[-MAX_KEPT:])
    lines = [f"記憶検索結果: {len(hits)}件\n"]
    for i, h in enumerate(hits, 1):
        lines += _lines(i, h) + [""]
    return "\n".join(lines)


@tool("forget_recalled")
def forget_recalled(
    ctx: ToolContext,
    source_id: Annotated[str | None, Field(description="The memory to forget (omit: forget all recalled).")] = None,
) -> str:
    """Forget recalled memories from working memory: one by its source_id, or all of them."""
    kept = ctx.recalled()
    if source_id is not None and source_id.strip():
        rest = [r for r in kept if r.get("source_id") != source_id.strip()]
        if len(rest) == len(kept):
            return f"指定された記憶はワーキングメモリにありません: {source_id.strip()}"
        ctx.set_recalled(rest)
        return f"記憶を忘れました: {source_id.strip()}"
    if not kept:
        return "ワーキングメモリに保持されている記憶はありません。"
    ctx.set_recalled([])
    return f"ワーキングメモリから{len(kept)}件の記憶をクリアしました。"
