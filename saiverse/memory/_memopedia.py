"""Memopedia: a persona's own wiki of people, terms and plans, in upstream SAIVerse's format.

Pages form a tree under three fixed roots — `root_people` (人物), `root_terms` (用語), `root_plans`
(予定) — and a page's category is its root's. Every change writes a `memopedia_edit` row holding a
unified diff of the page as text, so a page's history can be read back. Pages imported from
upstream are used as they are: keywords may be JSON with `\\u` escapes, parents may point nowhere
or round in a circle (the tree shows such pages under their category root, marked, and never
loops). Bad input — an unknown page, a parent that would make a cycle, an over-long page, an
unknown category — raises `LongTermMemoryError` naming the thing, and nothing is written.
"""

from __future__ import annotations

import difflib
import json
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from database import Database
from saiverse.memory._common import LongTermMemoryError, iso, parse_time, stamp
from saiverse.memory._memopedia_page import (
    CATEGORIES,
    PAGE_COLUMNS,
    ROOT_IDS,
    Page,
    check_category,
    check_fields,
    clean_keywords,
    default_thread,
    page_from_row,
)
from saiverse.memory._store import query_terms

_LIVE = "AND IS_DELETED = 0 AND PAGE_ID NOT LIKE 'root\\_%' ESCAPE '\\'"
"""Pages that exist, roots excluded."""


class MemopediaStore:
    """Memopedia pages of every persona, in the main database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.writes = 0
        """Changes made through this store (prompt snapshots watch it)."""

    # ---- reading ------------------------------------------------------------------------------
    def _rows(self, conn: Connection, persona_id: str, where: str = "",
              args: dict[str, Any] | None = None) -> list[Page]:
        sql = f"SELECT {PAGE_COLUMNS} FROM memopedia_page WHERE PERSONA_ID = :p {where}"
        return [page_from_row(r) for r in conn.execute(text(sql), {"p": persona_id, **(args or {})})]

    def pages(self, persona_id: str, *, include_deleted: bool = False) -> list[Page]:
        """Every page of the persona (roots included once they exist), by title."""
        with self.db.engine.connect() as conn:
            pages = self._rows(conn, persona_id, "" if include_deleted else "AND IS_DELETED = 0")
        return sorted(pages, key=lambda p: (p.category, p.title))

    def get(self, persona_id: str, page_id: str) -> Page:
        """A page by id; an unknown or deleted id is an error naming it."""
        with self.db.engine.connect() as conn:
            found = self._rows(conn, persona_id, "AND PAGE_ID = :id AND IS_DELETED = 0", {"id": page_id})
        if not found:
            if page_id in ROOT_IDS:
                return self._virtual_root(ROOT_IDS[page_id])
            raise LongTermMemoryError(
                f"Memopedia にページ {page_id!r} はありません。memopedia_search で探してください。")
        return found[0]

    def by_title(self, persona_id: str, title: str, category: str | None = None) -> Page | None:
        """The page with exactly this title (ignoring surrounding spaces), newest if several."""
        with self.db.engine.connect() as conn:
            found = self._rows(conn, persona_id, f"AND TRIM(TITLE) = :t {_LIVE}", {"t": (title or "").strip()})
        if category:
            found = [p for p in found if p.category == category]
        return max(found, key=lambda p: p.updated_at or "", default=None)

    def find(self, persona_id: str, *, page_id: str | None = None, title: str | None = None) -> Page:
        """A page by id, else by title; an error naming what was asked when there is none."""
        if page_id:
            return self.get(persona_id, page_id.strip())
        if title and title.strip():
            page = self.by_title(persona_id, title)
            if page is None:
                raise LongTermMemoryError(f"Memopedia に題名「{title.strip()}」のページはありません。")
            return page
        raise LongTermMemoryError("ページの題名か page_id を指定してください。")

    @staticmethod
    def _virtual_root(category: str) -> Page:
        root, title, summary = CATEGORIES[category]
        return Page(page_id=root, parent_id=None, title=title, summary=summary, content="", category=category)

    def tree(self, persona_id: str) -> list[dict[str, Any]]:
        """The three roots with their descendants: `{page, children, problem}` nodes. Pages whose
        parent is missing or part of a cycle hang under their category root with a `problem`."""
        pages = {p.page_id: p for p in self.pages(persona_id)}
        for cat in CATEGORIES:
            pages.setdefault(CATEGORIES[cat][0], self._virtual_root(cat))
        children: dict[str, list[Page]] = {}
        for p in pages.values():
            if not p.is_root and p.parent_id:
                children.setdefault(p.parent_id, []).append(p)
        seen: set[str] = set()

        def node(p: Page, problem: str | None = None) -> dict[str, Any]:
            seen.add(p.page_id)
            kids = [node(c) for c in sorted(children.get(p.page_id, []), key=lambda c: c.title)
                    if c.page_id not in seen]
            return {"page": p, "children": kids, "problem": problem}

        roots = {cat: node(pages[CATEGORIES[cat][0]]) for cat in CATEGORIES}
        for p in sorted(pages.values(), key=lambda p: p.title):
            if p.page_id in seen:
                continue
            why = "親ページが見つかりません" if p.parent_id not in pages else "親ページが循環しています"
            cat = p.category if p.category in CATEGORIES else "terms"
            roots[cat]["children"].append(node(p, why))
        return list(roots.values())

    def search(self, persona_id: str, query: str, *, category: str | None = None, limit: int = 10) -> list[Page]:
        """Pages containing every term of `query` in title, keywords, summary or body; title hits first."""
        terms = query_terms(query or "")
        if not terms or limit <= 0:
            return []
        cat = check_category(category) if category else None
        where, args = _LIVE, {}
        for i, term in enumerate(terms):
            # Upstream stores keywords as ASCII-escaped JSON; look for the escaped form too.
            args[f"t{i}"], args[f"e{i}"] = term, json.dumps(term)[1:-1]
            where += (f" AND (instr(lower(TITLE), :t{i}) > 0 OR instr(lower(SUMMARY), :t{i}) > 0"
                      f" OR instr(lower(CONTENT), :t{i}) > 0 OR instr(lower(KEYWORDS), :t{i}) > 0"
                      f" OR instr(lower(KEYWORDS), :e{i}) > 0)")  # a boolean on PostgreSQL too
        if cat:
            where += " AND CATEGORY = :cat"
            args["cat"] = cat
        with self.db.engine.connect() as conn:
            found = self._rows(conn, persona_id, where, args)

        def score(p: Page) -> tuple[int, str]:
            fields = ((p.title.lower(), 4), (" ".join(p.keywords).lower(), 3), (p.summary.lower(), 2),
                      (p.content.lower(), 1))
            return sum(weight for t in terms for body, weight in fields if t in body), p.updated_at or ""

        return sorted(found, key=score, reverse=True)[:limit]

    def history(self, persona_id: str, page_id: str) -> list[dict[str, Any]]:
        """The page's edits, newest first (`edit_type`, `edit_source`, `edited_at`, `diff`)."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT EDIT_ID, EDITED_AT, DIFF_TEXT, EDIT_TYPE, EDIT_SOURCE, REF_START_MESSAGE_ID, "
                "REF_END_MESSAGE_ID FROM memopedia_edit WHERE PERSONA_ID = :p AND PAGE_ID = :id"),
                {"p": persona_id, "id": page_id})
            out = [{"edit_id": r[0], "edited_at": iso(parse_time(r[1])), "diff": r[2] or "", "edit_type": r[3],
                    "edit_source": r[4], "ref_start_message_id": r[5], "ref_end_message_id": r[6]} for r in rows]
        return sorted(out, key=lambda e: e["edited_at"] or "", reverse=True)

    def search_any(self, persona_id: str, terms: Sequence[str], *, limit: int = 200) -> list[Page]:
        """Pages holding any of `terms` (lower-case substrings) in title, keywords, summary or body, in one
        scan: recall's candidates (saiverse/memory/_recall.py ranks them)."""
        if not terms:
            return []
        args: dict[str, Any] = {}
        anyof = []
        for i, term in enumerate(terms):
            args[f"t{i}"], args[f"e{i}"] = term, json.dumps(term)[1:-1]  # upstream's escaped keywords too
            anyof.append(f"instr(lower(TITLE), :t{i}) > 0 OR instr(lower(SUMMARY), :t{i}) > 0 OR "
                         f"instr(lower(CONTENT), :t{i}) > 0 OR instr(lower(KEYWORDS), :t{i}) > 0 OR "
                         f"instr(lower(KEYWORDS), :e{i}) > 0")
        where = f"{_LIVE} AND ({' OR '.join(anyof)}) ORDER BY UPDATED_AT DESC LIMIT {int(limit)}"
        with self.db.engine.connect() as conn:
            return self._rows(conn, persona_id, where, args)

    def core(self, persona_id: str, *, thread_id: str | None = None, limit: int = 20) -> tuple[list[Page], list[Page]]:
        """(pages every prompt mentions, pages open in the thread): trunk and important pages first,
        then the most recently referenced or updated ones, up to `limit`."""
        thread = thread_id or default_thread(persona_id)
        # Listed pages carry only the first 80 characters of their body: a prompt shows one line each.
        cols = PAGE_COLUMNS.replace("CONTENT", "substr(CONTENT, 1, 80)")
        with self.db.engine.connect() as conn:
            listed = [page_from_row(r) for r in conn.execute(text(
                f"SELECT {cols} FROM memopedia_page WHERE PERSONA_ID = :p {_LIVE} "
                "ORDER BY IS_TRUNK DESC, IS_IMPORTANT DESC, "
                # The later of the two (portable: SQLite's two-argument max() is not PostgreSQL's).
                "CASE WHEN LAST_REFERENCED_AT IS NULL OR LAST_REFERENCED_AT < UPDATED_AT THEN UPDATED_AT "
                "ELSE LAST_REFERENCED_AT END DESC NULLS LAST LIMIT :n"),
                {"p": persona_id, "n": limit})]
            opened = self._rows(conn, persona_id, "AND IS_DELETED = 0 AND PAGE_ID IN (SELECT PAGE_ID FROM "
                                "memopedia_page_state WHERE PERSONA_ID = :p AND THREAD_ID = :th AND IS_OPEN = 1)",
                                {"th": thread})
        return listed, opened

    # ---- writing ------------------------------------------------------------------------------
    @staticmethod
    def _ensure_roots(s: Session, persona_id: str) -> None:
        now = stamp()
        for cat, (root, title, summary) in CATEGORIES.items():
            s.execute(text(
                "INSERT INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, "
                "CATEGORY, CREATED_AT, UPDATED_AT) VALUES (:p, :id, NULL, :t, :s, '', :c, :now, :now) "
                "ON CONFLICT DO NOTHING"),  # SQLite and PostgreSQL alike
                {"p": persona_id, "id": root, "t": title, "s": summary, "c": cat, "now": now})

    @staticmethod
    def _log(s: Session, persona_id: str, before: Page | None, after: Page, edit_type: str, source: str) -> None:
        old = before.as_text().splitlines() if before else []
        diff = "\n".join(difflib.unified_diff(old, after.as_text().splitlines(), "before", "after", lineterm=""))
        s.execute(text(
            "INSERT INTO memopedia_edit (EDIT_ID, PERSONA_ID, PAGE_ID, EDITED_AT, DIFF_TEXT, EDIT_TYPE, EDIT_SOURCE) "
            "VALUES (:id, :p, :page, :at, :d, :t, :src)"),
            {"id": str(uuid.uuid4()), "p": persona_id, "page": after.page_id, "at": stamp(), "d": diff,
             "t": edit_type, "src": source})

    def _parents(self, conn: Connection, persona_id: str) -> dict[str, str | None]:
        return {r[0]: r[1] for r in conn.execute(text(
            "SELECT PAGE_ID, PARENT_ID FROM memopedia_page WHERE PERSONA_ID = :p AND IS_DELETED = 0"),
            {"p": persona_id})}

    def _check_parent(self, persona_id: str, page_id: str | None, parent_id: str) -> str:
        """The category under `parent_id`; refuses an unknown parent or one that would make a cycle."""
        if parent_id in ROOT_IDS:
            return ROOT_IDS[parent_id]
        parent = self.get(persona_id, parent_id)
        with self.db.engine.connect() as conn:
            parents = self._parents(conn, persona_id)
        chain, at = [parent.title], parent.parent_id
        seen = {parent_id}
        while at and at not in ROOT_IDS:
            if at == page_id or at in seen:
                break
            seen.add(at)
            at = parents.get(at)
        if page_id and (parent_id == page_id or at == page_id):
            raise LongTermMemoryError(
                f"ページ「{chain[0]}」を親にすると親子関係が循環します (ページ {page_id!r} はその祖先です)。")
        return parent.category if parent.category in CATEGORIES else "terms"

    def create(
        self, persona_id: str, title: str, *, summary: str = "", content: str = "", category: str | None = None,
        parent_id: str | None = None, keywords: list[str] | None = None, vividness: str = "rough",
        is_important: bool = False, source: str = "ai_conversation",
    ) -> Page:
        """A new page under `parent_id` (default: the category's root); the title must be new there."""
        kws = clean_keywords(keywords)
        check_fields(title, summary, content, kws)
        cat = self._check_parent(persona_id, None, parent_id) if parent_id else check_category(category)
        with self.db.session(write=True) as s:  # the title checked free, then taken: two creates make one page
            if self.by_title(persona_id, title, cat) is not None:
                raise LongTermMemoryError(
                    f"Memopedia の「{CATEGORIES[cat][1]}」には題名「{title.strip()}」のページがもうあります。")
            now = stamp()
            page = Page(page_id=str(uuid.uuid4()), parent_id=parent_id or CATEGORIES[cat][0], title=title.strip(),
                        summary=summary.strip(), content=content, category=cat, keywords=kws, vividness=vividness,
                        is_important=is_important, created_at=iso(parse_time(now)), updated_at=iso(parse_time(now)))
            self._ensure_roots(s, persona_id)
            s.execute(text(
                "INSERT INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, "
                "KEYWORDS, VIVIDNESS, IS_IMPORTANT, CREATED_AT, UPDATED_AT) "
                "VALUES (:p, :id, :parent, :t, :s, :c, :cat, :k, :v, :imp, :now, :now)"),
                {"p": persona_id, "id": page.page_id, "parent": page.parent_id, "t": page.title, "s": page.summary,
                 "c": content, "cat": cat, "k": json.dumps(kws, ensure_ascii=False), "v": vividness,
                 "imp": int(is_important), "now": now})
            self._log(s, persona_id, None, page, "create", source)
        self.writes += 1
        return page

    def update(
        self, persona_id: str, page_id: str, *, title: str | None = None, summary: str | None = None,
        content: str | None = None, keywords: list[str] | None = None, parent_id: str | None = None,
        is_important: bool | None = None, vividness: str | None = None, edit_type: str = "update",
        source: str = "ai_conversation", append: str | None = None,
    ) -> Page:
        """Change some fields of a page (a root's title and place are fixed); logged with a diff. `append`: a
        line added to the content as it is when the change is written. The page is read, changed and written
        under the store's write lock (database/engine.py): a persona's note and the user's edit at the same
        moment both land, neither is lost."""
        with self.db.session(write=True) as s:
            before = self.get(persona_id, page_id)
            if before.is_root and (title is not None or parent_id is not None):
                raise LongTermMemoryError(f"ルートページ「{before.title}」の題名や親は変えられません。")
            after = Page(**before.to_dict())
            if append is not None:
                body = before.content.rstrip("\n")
                content = f"{body}\n{append}" if body else append
            for name, value in (("title", title), ("summary", summary), ("content", content),
                                ("vividness", vividness)):
                if value is not None:
                    setattr(after, name, value.strip() if name == "title" else value)
            if keywords is not None:
                after.keywords = clean_keywords(keywords)
            if is_important is not None:
                after.is_important = is_important
            check_fields(after.title, after.summary, after.content, after.keywords)
            if parent_id is not None and parent_id != before.parent_id:
                after.category = self._check_parent(persona_id, page_id, parent_id)
                after.parent_id = parent_id
            if after == before:
                return before
            now = stamp()
            after.updated_at = iso(parse_time(now))
            self._ensure_roots(s, persona_id)
            s.execute(text(
                "UPDATE memopedia_page SET TITLE = :t, SUMMARY = :s, CONTENT = :c, KEYWORDS = :k, PARENT_ID = :parent, "
                "CATEGORY = :cat, IS_IMPORTANT = :imp, VIVIDNESS = :v, UPDATED_AT = :now "
                "WHERE PERSONA_ID = :p AND PAGE_ID = :id"),
                {"t": after.title, "s": after.summary, "c": after.content,
                 "k": json.dumps(after.keywords, ensure_ascii=False), "parent": after.parent_id, "cat": after.category,
                 "imp": int(after.is_important), "v": after.vividness, "now": now, "p": persona_id, "id": page_id})
            if after.category != before.category:
                # A moved subtree takes its new root's category with it.
                s.execute(text(
                    "WITH RECURSIVE sub(id) AS (SELECT PAGE_ID FROM memopedia_page WHERE PERSONA_ID = :p "
                    "AND PARENT_ID = :id UNION SELECT m.PAGE_ID FROM memopedia_page m JOIN sub ON m.PARENT_ID = sub.id "
                    "WHERE m.PERSONA_ID = :p) UPDATE memopedia_page SET CATEGORY = :cat "
                    "WHERE PERSONA_ID = :p AND PAGE_ID IN (SELECT id FROM sub)"),
                    {"p": persona_id, "id": page_id, "cat": after.category})
            self._log(s, persona_id, before, after, edit_type, source)
        self.writes += 1
        return after

    def save_page(
        self, persona_id: str, title: str, *, summary: str = "", content: str = "", category: str | None = None,
        keywords: list[str] | None = None, source: str = "ai_conversation",
    ) -> tuple[Page, bool]:
        """Upstream's find-or-create by title within the category; returns (page, created)."""
        cat = check_category(category)
        existing = self.by_title(persona_id, title or "", cat)
        if existing is None:
            return self.create(persona_id, title, summary=summary, content=content, category=cat, keywords=keywords,
                               vividness="vivid", source=source), True
        # What the caller left empty keeps its value (a model that only rewrites the body, say).
        return self.update(persona_id, existing.page_id, summary=summary or None, content=content or None,
                           keywords=keywords if keywords else None, vividness="vivid", source=source), False

    def note(
        self, persona_id: str, content: str, *, title: str = "", summary: str = "", category: str | None = None,
        keywords: list[str] | None = None, page_id: str = "", source: str = "ai_conversation", day: str = "",
    ) -> Page:
        """Add one dated line to a page (by id, else by title, created if missing)."""
        line = " ".join((content or "").split())
        if not line:
            raise LongTermMemoryError("memopedia_note に書く内容 (content) が空です。")
        if page_id.strip():
            page = self.get(persona_id, page_id.strip())
        elif not (title or "").strip():
            raise LongTermMemoryError("新しいページに書くときは題名 (title) が必要です。")
        else:
            cat = check_category(category)
            page = self.by_title(persona_id, title, cat) or self._create_or_found(
                persona_id, title, summary=summary, category=cat, keywords=keywords, source=source)
        entry = f"- {day + ': ' if day else ''}{line}"
        return self.update(persona_id, page.page_id, append=entry, summary=summary or None,
                           keywords=keywords or None, edit_type="note", source=source)

    def _create_or_found(self, persona_id: str, title: str, *, category: str, **fields: Any) -> Page:
        """A new page, or the one another writer made with this title a moment ago (two notes, one page)."""
        try:
            return self.create(persona_id, title, category=category, **fields)
        except LongTermMemoryError:
            found = self.by_title(persona_id, title, category)
            if found is None:
                raise
            return found

    def set_open(self, persona_id: str, page_id: str, is_open: bool, *, thread_id: str | None = None) -> Page:
        """Open a page in the thread (its body joins every prompt) or close it; a reference."""
        page = self.get(persona_id, page_id)
        now = stamp()
        with self.db.session() as s:
            s.execute(text(
                "INSERT INTO memopedia_page_state (PERSONA_ID, THREAD_ID, PAGE_ID, IS_OPEN, OPENED_AT) "
                "VALUES (:p, :th, :id, :o, :now) ON CONFLICT (PERSONA_ID, THREAD_ID, PAGE_ID) "
                "DO UPDATE SET IS_OPEN = :o, "
                "OPENED_AT = CASE WHEN :o = 1 THEN :now ELSE memopedia_page_state.OPENED_AT END"),
                {"p": persona_id, "th": thread_id or default_thread(persona_id), "id": page.page_id,
                 "o": int(is_open), "now": now})
        self.writes += 1
        self.touch(persona_id, page.page_id)
        return page

    def touch(self, persona_id: str, page_id: str) -> None:
        """Record that the persona looked at a page (it ranks higher in the prompt's Memopedia core)."""
        with self.db.session() as s:
            s.execute(text("UPDATE memopedia_page SET LAST_REFERENCED_AT = :now "
                           "WHERE PERSONA_ID = :p AND PAGE_ID = :id"), {"now": stamp(), "p": persona_id, "id": page_id})
