"""Memopedia pages and Chronicle (arasuji) entries, kept losslessly per persona in the main database.

Rows without an id (which no upstream version writes) are counted as malformed and reported.
Ids, parents, categories, keywords (JSON text as upstream wrote it), vividness, flags, levels,
source ids, counts and times come over as they are; epoch times become naive UTC. Chronicle
`SOURCE_IDS` hold upstream message ids (level 1) — the EXTERNAL_ID of the imported messages —
or entry ids (higher levels). Already-present rows (same persona and id) are left untouched.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from saiverse.importer.context import Context
from saiverse.importer.convert import from_epoch
from saiverse.importer.source import has_table, read, read_dicts, select

_PAGE = ("id", "parent_id", "title", "summary", "content", "category", "keywords", "vividness", "is_trunk",
         "is_important", "is_deleted", "last_referenced_at", "created_at", "updated_at")
_EDIT = ("id", "page_id", "edited_at", "diff_text", "ref_start_message_id", "ref_end_message_id", "edit_type",
         "edit_source")
_ENTRY = ("id", "level", "content", "source_ids_json", "start_time", "end_time", "source_count", "message_count",
          "parent_id", "is_consolidated", "created_at")


def _flag(value: Any) -> int:
    return 1 if value not in (None, 0, "0", False, "") else 0


def import_memopedia(ctx: Context, persona_id: str, mem: sqlite3.Connection) -> Counter[str]:
    counts: Counter[str] = Counter()
    if not has_table(mem, "memopedia_pages"):
        return counts
    for r in read(mem, select(mem, "memopedia_pages", _PAGE)):
        (pid, parent, title, summary, content, category, keywords, vividness, trunk, important, deleted, referenced,
         created, updated) = r
        if pid is None:
            counts["malformed"] += 1
            continue
        cur = ctx.db.execute(
            "INSERT OR IGNORE INTO memopedia_page (PERSONA_ID, PAGE_ID, PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, "
            "KEYWORDS, VIVIDNESS, IS_TRUNK, IS_IMPORTANT, IS_DELETED, LAST_REFERENCED_AT, CREATED_AT, UPDATED_AT) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (persona_id, str(pid), parent, title or "", summary or "", content or "", category or "", keywords or "[]",
             vividness or "rough", _flag(trunk), _flag(important), _flag(deleted), from_epoch(referenced),
             from_epoch(created), from_epoch(updated) or from_epoch(created)))
        counts["memopedia_pages"] += cur.rowcount
    if has_table(mem, "memopedia_page_edit_history"):
        for r in read(mem, select(mem, "memopedia_page_edit_history", _EDIT)):
            eid, page, edited, diff, ref_start, ref_end, kind, source = r
            if eid is None or page is None:
                counts["malformed"] += 1
                continue
            cur = ctx.db.execute(
                "INSERT OR IGNORE INTO memopedia_edit (EDIT_ID, PERSONA_ID, PAGE_ID, EDITED_AT, DIFF_TEXT, "
                "REF_START_MESSAGE_ID, REF_END_MESSAGE_ID, EDIT_TYPE, EDIT_SOURCE) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(eid), persona_id, page, from_epoch(edited), diff or "", ref_start, ref_end, kind or "", source))
            counts["memopedia_edits"] += cur.rowcount
    for state in read_dicts(mem, "memopedia_page_states"):
        if state.get("thread_id") is None or state.get("page_id") is None:
            counts["malformed"] += 1
            continue
        ctx.db.execute(
            "INSERT OR IGNORE INTO memopedia_page_state (PERSONA_ID, THREAD_ID, PAGE_ID, IS_OPEN, OPENED_AT) "
            "VALUES (?, ?, ?, ?, ?)",
            (persona_id, state.get("thread_id"), state.get("page_id"), _flag(state.get("is_open")),
             from_epoch(state.get("opened_at"))))
    return counts


def import_chronicle(ctx: Context, persona_id: str, mem: sqlite3.Connection) -> Counter[str]:
    counts: Counter[str] = Counter()
    if not has_table(mem, "arasuji_entries"):
        return counts
    for r in read(mem, select(mem, "arasuji_entries", _ENTRY, "level, start_time, rowid")):
        eid, level, content, sources, start, end, n_sources, n_messages, parent, consolidated, created = r
        if eid is None:
            counts["malformed"] += 1
            continue
        cur = ctx.db.execute(
            "INSERT OR IGNORE INTO chronicle_entry (PERSONA_ID, ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, START_TIME, "
            "END_TIME, SOURCE_COUNT, MESSAGE_COUNT, PARENT_ID, IS_CONSOLIDATED, CREATED_AT) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (persona_id, str(eid), int(level or 1), content or "", sources or "[]", from_epoch(start),
             from_epoch(end), int(n_sources or 0), int(n_messages or 0), parent, _flag(consolidated),
             from_epoch(created)))
        counts["chronicle_entries"] += cur.rowcount
    for progress in read_dicts(mem, "arasuji_progress"):
        ctx.db.execute(
            "INSERT OR IGNORE INTO chronicle_progress (PERSONA_ID, LAST_MESSAGE_ID, UPDATED_AT) VALUES (?, ?, ?)",
            (persona_id, progress.get("last_processed_message_id"), from_epoch(progress.get("last_processed_at"))))
        break  # one row per persona here; upstream keeps one ('main')
    return counts
