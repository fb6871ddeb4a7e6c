"""Upstream v0.3 parts of a persona's memory.db: SAIMemory's `memory_notes`, and what is left out.

`memory_notes` (one short remembered fact each, with the organiser's later proposal) come over row for
row into `memory_note`, keyed by persona and upstream id, so importing again adds nothing. The
embedding tables are left out and named in the summary when they hold rows: there is no embedding
model here, and recall uses the text index (saiverse/memory/_store.py).
"""

from __future__ import annotations

import sqlite3

from saiverse.importer.context import Context
from saiverse.importer.convert import from_epoch
from saiverse.importer.report import Text
from saiverse.importer.source import has_table, read, select

NOTE_COLUMNS = ("id", "thread_id", "content", "source_pulse_id", "source_time", "resolved", "group_label", "action",
                "target_page_id", "suggested_title", "target_category", "created_at")
EMBEDDING_TABLES = ("message_embeddings", "memopedia_embeddings", "arasuji_embeddings", "embeddings")


def import_memory_notes(ctx: Context, persona_id: str, mem: sqlite3.Connection) -> int:
    """The persona's `memory_notes`; returns how many were added."""
    for table in EMBEDDING_TABLES:
        if has_table(mem, table):
            count = int(next(read(mem, f'SELECT count(*) FROM "{table}"'))[0])
            if count:
                ctx.report.skip(table, f"{persona_id}: {count} rows", Text(
                    "埋め込みモデルはこのアプリになく、想起は文字の索引で行います",
                    "there is no embedding model here; recall uses the text index"))
    if not has_table(mem, "memory_notes"):
        return 0
    added = 0
    for r in read(mem, select(mem, "memory_notes", NOTE_COLUMNS)):
        nid, thread, content, pulse, source_time, resolved, group, action, page, title, category, created = r
        if nid in (None, "") or content is None:
            continue
        cur = ctx.db.execute(
            "INSERT OR IGNORE INTO memory_note (PERSONA_ID, NOTE_ID, THREAD_ID, CONTENT, SOURCE_PULSE_ID, SOURCE_TIME, "
            "RESOLVED, GROUP_LABEL, ACTION, TARGET_PAGE_ID, SUGGESTED_TITLE, TARGET_CATEGORY, CREATED_AT) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (persona_id, str(nid), thread, str(content), pulse, from_epoch(source_time), 1 if resolved else 0, group,
             action, page, title, category, from_epoch(created)))
        added += cur.rowcount
    return added
