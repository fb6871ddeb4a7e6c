"""What a persona remembers: SAIMemory, recall, Chronicle and Memopedia.

Parts (private modules; import from here):
- `_around`: Messages of a persona around a moment, optionally within one thread (upstream v0.3's
- `_chronicle`: Chronicle (upstream "arasuji"): reading a persona's rolling summaries of older …
- `_chronicle_build`: Building the Chronicle: incremental, checkpointed, off the reply path.
- `_chronicle_summary`: How a batch of messages (or of entries) becomes Chronicle text.
- `_common`: What the long-term memory modules share: time values as stored, and their error type.
- `_context`: The context builder: every model call's prompt, assembled in one place within a …
- `_context_source`: What a persona's stored memory offers its prompts, read cheaply enough for every pulse.
- `_dense`: Dense recall: the stored message vectors as a ranked list for recall.
- `_export`: Exporting a persona's whole memory as JSON lines: messages, then Chronicle, then …
- `_indexer`: The background indexer: every SAIMemory message embedded once, off the reply path.
- `_lexical`: What recall searches for: a text's terms — stemmed latin words without stop words, …
- `_memopedia`: Memopedia: a persona's own wiki of people, terms and plans, in upstream SAIVerse's …
- `_memopedia_manage`: Memopedia housekeeping for upstream v0.3's `memopedia_manage` / `memopedia_health` …
- `_memopedia_page`: A Memopedia page as the app sees it, the three category roots, and the limits a page …
- `_rank`: BM25 over SAIMemory messages, reciprocal-rank fusion, and what a hit brings along …
- `_pins`: Pinned lines: SAIMemory messages a persona always has in her prompt (issue 33, item 4).
- `_recall`: Recall across a persona's three memories: SAIMemory messages, Chronicle entries, …
- `_recall_pg`: SAIMemory recall candidates on PostgreSQL: pg_trgm where SQLite uses its FTS5 gram …
- `_reflex`: Reflex recall: before a persona answers the user, what her memory holds on the user's …
- `_store`: SAIMemory: each persona's long-term message store — writing, recent context, recall, …
- `_vectors`: SAIMemory's message vectors in the store itself (`saimemory_vec`, migration step 14).
- `_track_book`: A persona's tracks and notes, written by its `track_*` and `note_*` tools (upstream …
- `_tracks`: A persona's tracks and notes (upstream v0.3), as the CLI and the メモリ tab show them.
"""

from __future__ import annotations

from saiverse.memory._around import messages_around, thread_ids
from saiverse.memory._chronicle import ChronicleStore, Entry, parse_day
from saiverse.memory._chronicle_build import ChronicleBuilder, ChronicleWorker, enabled_personas
from saiverse.memory._chronicle_summary import span
from saiverse.memory._common import LongTermMemoryError, stamp
from saiverse.memory._context import (
    CHRONICLE_SHARE,
    CORE_SHARE,
    DEFAULT_CONTEXT_TOKENS,
    MESSAGE_OVERHEAD,
    MIN_CONTEXT_TOKENS,
    PIN_HEADER,
    PIN_SHARE,
    REFLEX_SHARE,
    SYSTEM_SHARE,
    Fitted,
    Line,
    Snapshot,
    conforms,
    fit,
    pinned_text,
    token_counter,
)
from saiverse.memory._context_source import ContextSource
from saiverse.memory._dense import DenseRecall
from saiverse.memory._export import export_memory
from saiverse.memory._indexer import MemoryIndex, open_memory_index
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._memopedia_manage import delete_page, health
from saiverse.memory._neighbours import WordNeighbours
from saiverse.memory._pins import Pin, PinStore
from saiverse.memory._rank import forget_lookups
from saiverse.memory._recall import recall
from saiverse.memory._reflex import Recalled, reflex_section, reflex_setting_key
from saiverse.memory._store import ROLES, MemoryRecord, SAIMemory
from saiverse.memory._track_book import TrackBook
from saiverse.memory._tracks import activity_states, judgments, map_positions, memory_notes, notes, tracks

__all__ = [
    "CHRONICLE_SHARE",
    "CORE_SHARE",
    "ChronicleBuilder",
    "ChronicleStore",
    "ChronicleWorker",
    "ContextSource",
    "DEFAULT_CONTEXT_TOKENS",
    "DenseRecall",
    "Entry",
    "Fitted",
    "Line",
    "LongTermMemoryError",
    "MESSAGE_OVERHEAD",
    "MIN_CONTEXT_TOKENS",
    "MemopediaStore",
    "MemoryIndex",
    "MemoryRecord",
    "PIN_HEADER",
    "PIN_SHARE",
    "Pin",
    "PinStore",
    "REFLEX_SHARE",
    "ROLES",
    "Recalled",
    "SAIMemory",
    "SYSTEM_SHARE",
    "Snapshot",
    "TrackBook",
    "WordNeighbours",
    "activity_states",
    "conforms",
    "delete_page",
    "enabled_personas",
    "export_memory",
    "fit",
    "forget_lookups",
    "health",
    "judgments",
    "map_positions",
    "memory_notes",
    "messages_around",
    "notes",
    "open_memory_index",
    "parse_day",
    "pinned_text",
    "recall",
    "reflex_section",
    "reflex_setting_key",
    "span",
    "stamp",
    "thread_ids",
    "token_counter",
    "tracks",
]
