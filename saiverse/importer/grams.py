"""The recall index for bulk-imported messages, built the way the insert trigger builds it, but fast.

`saimemory_gram_ai` (database/steps.py, MEMORY_LINEAR_GRAMS_SQL) computes every 1-, 2- and
3-character gram of a message in SQL, one walk over it per message: cheap for one message, but per
row it is a recursive query, so 100,000 imported messages would spend tens of seconds on it.
During an import the trigger is dropped inside the import transaction, the messages are inserted,
and the same tokens are computed in Python and inserted into `saimemory_fts`; then the trigger is
created again from its own stored SQL, all before the commit. The index ends up exactly what the
trigger would have made (tests/test_import_grams.py compares the two token by token), so later
deletes and updates through the triggers stay exact. If the installed trigger is not the one this
module reproduces (a later migration changed it), the trigger is left alone and does the work.

`saimemory_tag` rows (one per tag except the automatic pulse tag, as `SAIMemory.add` writes them)
are filled in the same pass.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from itertools import islice

from database.migrate import MEMORY_LINEAR_GRAMS_SQL, split_statements
from saiverse.importer.progress import Phase

TRIGGER = "saimemory_gram_ai"
MAX_INDEXED_CHARS = 131_072
"""The trigger indexes a message's first 131,072 characters (database/steps.py, GRAM_CAP)."""
HASH_BYTES = 16 * 1024 * 1024
"""FTS5 pending-data buffer during the import (default 1 MB): fewer segments to merge (benchmarks/RESULTS-import.md)."""
DEFAULT_HASH_BYTES = 1024 * 1024
BATCH = 2000


def _normal(sql: str) -> str:
    return " ".join(sql.replace(";", " ").split())


def _expected_trigger() -> str:
    return next(s for s in split_statements(MEMORY_LINEAR_GRAMS_SQL) if s.startswith(f"CREATE TRIGGER {TRIGGER} "))


def grams(persona_id: str, content: str) -> str:
    """The GRAMS text the trigger would index for this message."""
    text = content.split("\x00", 1)[0][:MAX_INDEXED_CHARS]  # SQLite's length() stops at a NUL
    body = " ".join(f"{text[i]} {text[i:i + 2]} {text[i:i + 3]}" for i in range(len(text)))
    return f"p:{persona_id.encode('utf-8').hex().upper()} {body}"


class GramIndex:
    """Suspends the insert trigger for the import transaction and fills the index afterwards."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        row = db.execute("SELECT sql FROM sqlite_master WHERE type='trigger' AND name=?", (TRIGGER,)).fetchone()
        self.fast = row is not None and _normal(row[0]) == _normal(_expected_trigger())
        self.trigger_sql = row[0] if row else ""
        self.start_id = int(db.execute("SELECT coalesce(max(ID), 0) FROM saimemory").fetchone()[0])
        if self.fast:
            db.execute(f"DROP TRIGGER {TRIGGER}")
            db.execute("INSERT INTO saimemory_fts (saimemory_fts, rank) VALUES ('hashsize', ?)", (HASH_BYTES,))

    def _new_rows(self) -> Iterator[tuple[int, str, str, str, str | None]]:
        cur = self.db.execute(
            "SELECT ID, PERSONA_ID, CONTENT, TAGS, PULSE_ID FROM saimemory WHERE ID > ? ORDER BY ID", (self.start_id,))
        while chunk := cur.fetchmany(BATCH):
            yield from chunk

    def finish(self, phase: Phase) -> None:
        """Index every message inserted since construction, then put the trigger back."""
        rows = self._new_rows()
        while chunk := list(islice(rows, BATCH)):
            if self.fast:
                self.db.executemany("INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (?, ?)",
                                    [(r[0], grams(r[1], r[2])) for r in chunk])
            tags = []
            for mid, persona, _content, raw_tags, pulse in chunk:
                pulse_tag = f"pulse:{pulse}" if pulse else None
                tags += [(mid, t, persona) for t in json.loads(raw_tags or "[]") if t != pulse_tag]
            self.db.executemany("INSERT OR IGNORE INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (?, ?, ?)",
                                tags)
            phase.advance(len(chunk))
        if self.fast:
            self.db.execute(self.trigger_sql)
            self.db.execute("INSERT INTO saimemory_fts (saimemory_fts, rank) VALUES ('hashsize', ?)",
                            (DEFAULT_HASH_BYTES,))
            self.fast = False
