"""A Memopedia page as the app sees it, the three category roots, and the limits a page must keep.

Upstream stores keywords as JSON (often with `\\u` escapes); `page_from_row` reads either form.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from saiverse.memory._common import LongTermMemoryError, iso, parse_time

CATEGORIES: dict[str, tuple[str, str, str]] = {
    "people": ("root_people", "人物", "関わりのある人物についての記録"),
    "terms": ("root_terms", "用語", "対話の中で特別な意味を持つ言葉や概念"),
    "plans": ("root_plans", "予定", "進行中や計画中のプロジェクト・予定"),
}
"""category → (root page id, root title, root summary), as upstream seeds them."""
ROOT_IDS = {root: cat for cat, (root, _t, _s) in CATEGORIES.items()}
MAX_TITLE = 200
MAX_SUMMARY = 2_000
MAX_CONTENT = 20_000
"""Characters of a page body; longer pages are refused (split them into child pages)."""
MAX_KEYWORDS = 20
MAX_KEYWORD = 60
PAGE_COLUMNS = ("PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, KEYWORDS, VIVIDNESS, IS_TRUNK, IS_IMPORTANT, "
         "IS_DELETED, LAST_REFERENCED_AT, CREATED_AT, UPDATED_AT")


def default_thread(persona_id: str) -> str:
    """The persona's own thread (upstream `<AIID>:__persona__`), where open pages are kept."""
    return f"{persona_id}:__persona__"


def _keywords(raw: Any) -> list[str]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return [str(k) for k in value] if isinstance(value, list) else []


@dataclass
class Page:
    """One Memopedia page."""

    page_id: str
    parent_id: str | None
    title: str
    summary: str
    content: str
    category: str
    keywords: list[str] = field(default_factory=list)
    vividness: str = "rough"
    is_trunk: bool = False
    is_important: bool = False
    is_deleted: bool = False
    last_referenced_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None

    @property
    def is_root(self) -> bool:
        return self.page_id in ROOT_IDS

    def as_text(self) -> str:
        """The page as the text its edit diffs are taken over."""
        return (f"title: {self.title}\nsummary: {self.summary}\nkeywords: {', '.join(self.keywords)}\n"
                f"content:\n{self.content}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def page_from_row(row: Any) -> Page:
    return Page(
        page_id=row[0], parent_id=row[1], title=row[2] or "", summary=row[3] or "", content=row[4] or "",
        category=row[5] or "", keywords=_keywords(row[6]), vividness=row[7] or "rough", is_trunk=bool(row[8]),
        is_important=bool(row[9]), is_deleted=bool(row[10]), last_referenced_at=iso(parse_time(row[11])),
        created_at=iso(parse_time(row[12])), updated_at=iso(parse_time(row[13])),
    )


def check_fields(title: str, summary: str, content: str, keywords: list[str]) -> None:
    """Refuse an empty or over-long title, an over-long summary or body, or bad keywords."""
    if not isinstance(title, str) or not title.strip():
        raise LongTermMemoryError("Memopedia のページ題名が空です。")
    if len(title) > MAX_TITLE:
        raise LongTermMemoryError(
            f"Memopedia の題名「{title[:30]}…」が長すぎます ({len(title)} 字、上限 {MAX_TITLE} 字)。")
    if len(summary) > MAX_SUMMARY:
        raise LongTermMemoryError(
            f"Memopedia ページ「{title}」の要約が長すぎます ({len(summary)} 字、上限 {MAX_SUMMARY} 字)。")
    if len(content) > MAX_CONTENT:
        raise LongTermMemoryError(
            f"Memopedia ページ「{title}」の本文が長すぎます ({len(content)} 字、上限 {MAX_CONTENT} 字)。"
            "子ページに分けてください。")
    if len(keywords) > MAX_KEYWORDS or any(not k.strip() or len(k) > MAX_KEYWORD for k in keywords):
        raise LongTermMemoryError(
            f"Memopedia ページ「{title}」のキーワードは空でない {MAX_KEYWORD} 字以内の語を"
            f" {MAX_KEYWORDS} 個までにしてください。")


def check_category(category: str | None) -> str:
    cat = (category or "terms").strip().lower()
    if cat not in CATEGORIES:
        raise LongTermMemoryError(f"Memopedia のカテゴリ {category!r} はありません (people / terms / plans)。")
    return cat


def clean_keywords(keywords: list[str] | None) -> list[str]:
    return list(dict.fromkeys(str(k).strip() for k in (keywords or []) if str(k).strip()))
