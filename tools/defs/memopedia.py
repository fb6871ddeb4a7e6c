"""Memopedia tools, with upstream SAIVerse's names and argument shapes: the persona reads and writes
its own wiki of people (people), terms (terms) and plans (plans).

Results are Japanese text for the model to read; page ids are shown whole in parentheses, as
upstream's playbooks expect (`ページIDはカッコ内のUUID文字列`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool

CATEGORY_FIELD = Field(description="Category: people, terms or plans.",
                       json_schema_extra={"enum": ["people", "terms", "plans"]})
"""Upstream lists the three categories; an empty string (what a playbook passes for 'any') is accepted too."""
CATEGORY_NAMES = {"people": "人物", "terms": "用語", "plans": "予定"}
SNIPPET = 150


def _category(value: str | None) -> str | None:
    value = (value or "").strip().lower()
    if not value:
        return None
    if value not in CATEGORY_NAMES:
        raise ToolError(f"カテゴリ {value!r} はありません。people / terms / plans のどれかです。")
    return value


def page_text(page: dict[str, Any]) -> str:
    """A page as the model reads it: title, id, category, keywords, summary and body."""
    keywords = ", ".join(page.get("keywords") or []) or "(なし)"
    return (f"# {page['title']}\n\n**ID**: {page['page_id']}\n"
            f"**カテゴリ**: {page.get('category') or '未分類'}\n**キーワード**: {keywords}\n"
            f"**更新日時**: {page.get('updated_at') or '?'}\n\n## 要約\n{page.get('summary') or '(要約なし)'}\n\n"
            f"## 内容\n{page.get('content') or '(内容なし)'}")


@tool("memopedia_search")
def memopedia_search(
    ctx: ToolContext,
    query: Annotated[str, Field(description="Keyword to search for in page titles, keywords, summaries and bodies.")],
    category: Annotated[str | None, CATEGORY_FIELD] = None,
    max_results: Annotated[int, Field(description="Maximum results to return. Default: 10.")] = 10,
) -> str:
    """Search your Memopedia knowledge pages by keyword, optionally within one category (people/terms/plans).

    Returns page ids and summaries; read a whole page with memopedia_get_page.
    """
    cat = _category(category)
    pages = ctx.memopedia_search(query, cat, max(1, min(int(max_results), 50)))
    if not pages:
        return f"(Memopedia検索結果なし: '{query}'{f' (category={cat})' if cat else ''})"
    lines = [f"Memopedia検索結果 ({len(pages)}件)", f"Keyword: {query}"] + ([f"Category: {cat}"] if cat else []) + [""]
    for i, p in enumerate(pages, 1):
        kws = f" [{', '.join(p['keywords'])}]" if p.get("keywords") else ""
        lines.append(f"[{i}] ({p['page_id']}) [{p['category']}] {p['title']}{kws}")
        if p.get("summary"):
            lines.append(f"    {p['summary']}")
        body = (p.get("content") or "").strip()
        if body and len(p.get("summary") or "") < 20:
            lines.append(f"    内容: {body[:SNIPPET]}{'…' if len(body) > SNIPPET else ''}")
        lines.append("")
    return "\n".join(lines).rstrip()


@tool("memopedia_get_page")
def memopedia_get_page(
    ctx: ToolContext,
    title: Annotated[str | None, Field(description="Page title (exact match).")] = None,
    page_id: Annotated[str | None, Field(description="Page id, if known.")] = None,
) -> str:
    """Read one of your Memopedia pages in full, by title or id."""
    if not (title or "").strip() and not (page_id or "").strip():
        raise ToolError("memopedia_get_page には title か page_id が必要です。")
    return page_text(ctx.memopedia_page(page_id, title))


@tool("memopedia_get_tree")
def memopedia_get_tree(ctx: ToolContext) -> str:
    """List all your Memopedia pages as a tree under the three categories (人物 / 用語 / 予定), with ids."""
    lines = ["Memopedia ページ一覧"]

    def walk(node: dict[str, Any], depth: int) -> None:
        note = f"  ⚠ {node['problem']}" if node.get("problem") else ""
        summary = f": {node['summary']}" if node.get("summary") and depth else ""
        lines.append(f"{'  ' * depth}- {node['title']} ({node['page_id']}){summary}{note}")
        for child in node["children"]:
            walk(child, depth + 1)

    for root in ctx.memopedia_tree():
        walk(root, 0)
    return "\n".join(lines)


@tool("memopedia_open_page")
def memopedia_open_page(ctx: ToolContext, page_id: Annotated[str, Field(description="Id of the page to open.")]) -> str:
    """Open a Memopedia page: its content stays in your context in this conversation until you close it."""
    page = ctx.memopedia_set_open(page_id, True)
    return f"ページ「{page['title']}」を開きました。閉じるまで会話の文脈に含まれます。\n\n{page_text(page)}"


@tool("memopedia_close_page")
def memopedia_close_page(ctx: ToolContext,
                         page_id: Annotated[str, Field(description="Id of the page to close.")]) -> str:
    """Close a Memopedia page you opened, so its content leaves your context."""
    page = ctx.memopedia_set_open(page_id, False)
    return f"ページ「{page['title']}」を閉じました。"


@tool("memopedia_note")
def memopedia_note(
    ctx: ToolContext,
    content: Annotated[str, Field(description="The fact or note to record (one concise statement).")],
    title: Annotated[str, Field(description="Page title; required for a new page.")] = "",
    summary: Annotated[str, Field(description="1-2 sentence page summary (updates the page's summary).")] = "",
    category: Annotated[str | None, CATEGORY_FIELD] = None,
    keywords: Annotated[list[str] | None, Field(description="Keywords for search.")] = None,
    page_id: Annotated[str, Field(description="Existing page id to write to (else found by title).")] = "",
) -> str:
    """Write one fact or note to a Memopedia page (found by id or title; created when it does not exist)."""
    page = ctx.memopedia_note(content, title, summary, _category(category) or "terms", keywords, page_id)
    return f"「{page['title']}」({page['page_id']}) に書き留めました。"


@tool("memopedia_save_page")
def memopedia_save_page(
    ctx: ToolContext,
    title: Annotated[str, Field(description="Page title.")],
    summary: Annotated[str, Field(description="1-2 sentence summary of the page.")] = "",
    content: Annotated[str, Field(description="Full page content in Markdown.")] = "",
    category: Annotated[str | None, CATEGORY_FIELD] = None,
    keywords: Annotated[list[str] | None, Field(description="Keywords for search.")] = None,
) -> str:
    """Save a Memopedia page: a page with the same title in the category is updated, otherwise a new page is
    created (default category: terms)."""
    cat = _category(category) or "terms"
    page, created = ctx.memopedia_save(title, summary, content, cat, keywords)
    action = "作成しました" if created else "更新しました"
    return f"ページ「{page['title']}」({page['page_id']}, {cat}) を{action}。\n\n{page_text(page)}"
