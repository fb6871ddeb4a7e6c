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

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.memory._around import messages_around as messages_around
    from saiverse.memory._around import thread_ids as thread_ids
    from saiverse.memory._chronicle import ChronicleStore as ChronicleStore
    from saiverse.memory._chronicle import Entry as Entry
    from saiverse.memory._chronicle import parse_day as parse_day
    from saiverse.memory._chronicle_build import ChronicleBuilder as ChronicleBuilder
    from saiverse.memory._chronicle_build import ChronicleWorker as ChronicleWorker
    from saiverse.memory._chronicle_build import enabled_personas as enabled_personas
    from saiverse.memory._chronicle_summary import span as span
    from saiverse.memory._common import LongTermMemoryError as LongTermMemoryError
    from saiverse.memory._common import stamp as stamp
    from saiverse.memory._context import CHRONICLE_SHARE as CHRONICLE_SHARE
    from saiverse.memory._context import CORE_SHARE as CORE_SHARE
    from saiverse.memory._context import DEFAULT_CONTEXT_TOKENS as DEFAULT_CONTEXT_TOKENS
    from saiverse.memory._context import MESSAGE_OVERHEAD as MESSAGE_OVERHEAD
    from saiverse.memory._context import MIN_CONTEXT_TOKENS as MIN_CONTEXT_TOKENS
    from saiverse.memory._context import PIN_HEADER as PIN_HEADER
    from saiverse.memory._context import PIN_SHARE as PIN_SHARE
    from saiverse.memory._context import REFLEX_SHARE as REFLEX_SHARE
    from saiverse.memory._context import SYSTEM_SHARE as SYSTEM_SHARE
    from saiverse.memory._context import Fitted as Fitted
    from saiverse.memory._context import Line as Line
    from saiverse.memory._context import Snapshot as Snapshot
    from saiverse.memory._context import conforms as conforms
    from saiverse.memory._context import fit as fit
    from saiverse.memory._context import pinned_text as pinned_text
    from saiverse.memory._context import token_counter as token_counter
    from saiverse.memory._context_source import ContextSource as ContextSource
    from saiverse.memory._dense import DenseRecall as DenseRecall
    from saiverse.memory._export import export_memory as export_memory
    from saiverse.memory._indexer import MemoryIndex as MemoryIndex
    from saiverse.memory._indexer import open_memory_index as open_memory_index
    from saiverse.memory._memopedia import MemopediaStore as MemopediaStore
    from saiverse.memory._memopedia_manage import delete_page as delete_page
    from saiverse.memory._memopedia_manage import health as health
    from saiverse.memory._pins import Pin as Pin
    from saiverse.memory._pins import PinStore as PinStore
    from saiverse.memory._rank import forget_lookups as forget_lookups
    from saiverse.memory._recall import recall as recall
    from saiverse.memory._reflex import Recalled as Recalled
    from saiverse.memory._reflex import reflex_section as reflex_section
    from saiverse.memory._reflex import reflex_setting_key as reflex_setting_key
    from saiverse.memory._store import ROLES as ROLES
    from saiverse.memory._store import MemoryRecord as MemoryRecord
    from saiverse.memory._store import SAIMemory as SAIMemory
    from saiverse.memory._track_book import TrackBook as TrackBook
    from saiverse.memory._tracks import activity_states as activity_states
    from saiverse.memory._tracks import judgments as judgments
    from saiverse.memory._tracks import map_positions as map_positions
    from saiverse.memory._tracks import memory_notes as memory_notes
    from saiverse.memory._tracks import notes as notes
    from saiverse.memory._tracks import tracks as tracks

_EXPORTS: dict[str, str] = {
    "ChronicleBuilder": "_chronicle_build",
    "ChronicleStore": "_chronicle",
    "ChronicleWorker": "_chronicle_build",
    "ContextSource": "_context_source",
    "CHRONICLE_SHARE": "_context",
    "CORE_SHARE": "_context",
    "PIN_SHARE": "_context",
    "SYSTEM_SHARE": "_context",
    "PIN_HEADER": "_context",
    "Fitted": "_context",
    "pinned_text": "_context",
    "DEFAULT_CONTEXT_TOKENS": "_context",
    "Line": "_context",
    "MESSAGE_OVERHEAD": "_context",
    "MIN_CONTEXT_TOKENS": "_context",
    "REFLEX_SHARE": "_context",
    "Snapshot": "_context",
    "conforms": "_context",
    "fit": "_context",
    "token_counter": "_context",
    "DenseRecall": "_dense",
    "Entry": "_chronicle",
    "LongTermMemoryError": "_common",
    "MemopediaStore": "_memopedia",
    "MemoryIndex": "_indexer",
    "MemoryRecord": "_store",
    "Pin": "_pins",
    "PinStore": "_pins",
    "ROLES": "_store",
    "SAIMemory": "_store",
    "TrackBook": "_track_book",
    "activity_states": "_tracks",
    "delete_page": "_memopedia_manage",
    "enabled_personas": "_chronicle_build",
    "export_memory": "_export",
    "forget_lookups": "_rank",
    "health": "_memopedia_manage",
    "judgments": "_tracks",
    "map_positions": "_tracks",
    "memory_notes": "_tracks",
    "messages_around": "_around",
    "notes": "_tracks",
    "open_memory_index": "_indexer",
    "parse_day": "_chronicle",
    "recall": "_recall",
    "Recalled": "_reflex",
    "reflex_section": "_reflex",
    "reflex_setting_key": "_reflex",
    "span": "_chronicle_summary",
    "stamp": "_common",
    "thread_ids": "_around",
    "tracks": "_tracks",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
