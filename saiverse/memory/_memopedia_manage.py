"""Memopedia housekeeping for upstream v0.3's `memopedia_manage` / `memopedia_health` tools.

Deleting is soft, as upstream's is: the page and every page under it get `IS_DELETED = 1` and a
`memopedia_edit` row (`EDIT_TYPE 'delete'`) each, so nothing is lost and the history still reads
back. Moving, vividness and the important flag go through `MemopediaStore.update` (saiverse/memory/_memopedia.py),
which checks parents for cycles and logs a diff.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from saiverse.memory._common import LongTermMemoryError, stamp
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._memopedia_page import Page

VIVIDNESS = ("vivid", "rough", "faint", "buried")
"""Upstream's vividness levels, most vivid first."""
OVERSIZED = 3000
"""Characters of body above which upstream's health report recommends splitting a page."""
LARGE = 2000
"""Characters of body above which the health report lists a page as getting large."""


def delete_page(store: MemopediaStore, persona_id: str, page_id: str, *, source: str = "ai_conversation") -> list[Page]:
    """Soft-delete a page and its subtree; returns the deleted pages (the page first)."""
    page = store.get(persona_id, page_id)
    if page.is_root:
        raise LongTermMemoryError(f"ルートページ「{page.title}」は削除できません。")
    live = store.pages(persona_id)
    children: dict[str | None, list[Page]] = {}
    for p in live:
        children.setdefault(p.parent_id, []).append(p)
    doomed, todo, seen = [], [page], set()
    while todo:  # imported parents may round in a circle: each page once
        p = todo.pop()
        if p.page_id in seen:
            continue
        seen.add(p.page_id)
        doomed.append(p)
        todo.extend(children.get(p.page_id, []))
    now = stamp()
    with store.db.session() as s:
        for p in doomed:
            s.execute(text("UPDATE memopedia_page SET IS_DELETED = 1, UPDATED_AT = :now "
                           "WHERE PERSONA_ID = :pid AND PAGE_ID = :id"),
                      {"now": now, "pid": persona_id, "id": p.page_id})
            gone = Page(**{**p.to_dict(), "content": "", "summary": "", "keywords": []})
            store._log(s, persona_id, p, gone, "delete", source)  # noqa: SLF001 — the store's own diff log
    store.writes += 1
    return doomed


def health(store: MemopediaStore, persona_id: str) -> dict[str, Any]:
    """Counts for the health report: total, per category, oversized / large pages, pages lacking a summary."""
    pages = [p for p in store.pages(persona_id) if not p.is_root]
    by_category: dict[str, int] = {}
    for p in pages:
        by_category[p.category] = by_category.get(p.category, 0) + 1

    def row(p: Page) -> dict[str, Any]:
        return {"page_id": p.page_id, "title": p.title, "category": p.category, "chars": len(p.content)}

    return {
        "total": len(pages), "by_category": dict(sorted(by_category.items())),
        "oversized": [row(p) for p in pages if len(p.content) > OVERSIZED],
        "large": [row(p) for p in pages if LARGE < len(p.content) <= OVERSIZED],
        "no_summary": [row(p) for p in pages if not p.summary.strip()],
    }
