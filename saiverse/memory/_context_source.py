"""What a persona's stored memory offers its prompts, read cheaply enough for every pulse.

A snapshot holds the persona's token budget, its recent conversation (newest first along
SAIMemory's tag index, read only until the budget is full), its Chronicle candidates and its
Memopedia core and its pinned lines. It is kept per persona between pulses and brought up to date, not re-read: each
call asks one index question (the newest conversation message id) and appends what is new,
dropping the oldest lines beyond the budget. It is read again in full when Chronicle,
Memopedia or the pins were written through this process (their stores count writes), when messages went
away, after many new ones, and at least every `CACHE_SECONDS` so writes by another process (the
CLI) show up. A pulse's own messages are never part of its snapshot.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, text

from chat import Message
from database import Database
from database.direct import read_all
from saiverse.llm.offline import estimate_tokens
from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._common import parse_time
from saiverse.memory._context import (
    DEFAULT_CONTEXT_TOKENS,
    MESSAGE_OVERHEAD,
    MIN_CONTEXT_TOKENS,
    REFLEX_SHARE,
    Line,
    Snapshot,
)
from saiverse.memory._memopedia import CATEGORIES, MemopediaStore
from saiverse.memory._pins import PinStore
from saiverse.memory._reflex import Recalled, reflex_found, reflex_section, reflex_setting_key
from saiverse.memory._store import SAIMemory

if TYPE_CHECKING:  # numpy is imported only where vectors are used
    from saiverse.memory._dense import DenseRecall

MAX_HISTORY = 400
"""Most conversation lines a snapshot holds, however short they are."""
OPEN_PAGE_CHARS = 2_000
CACHE_SECONDS = 60.0
MAX_APPEND = 50
"""More new messages than this since the last snapshot: read again in full."""
OWN_LIMIT = 200
"""Most of a pulse's own stored messages its prompts see."""
# The pulse tag is never in saimemory_tag (saiverse/memory/_store.py): a pulse's messages are its PULSE_ID.
_OWN_SQL = text("SELECT ROLE, CONTENT, TAGS FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse "
                "ORDER BY ID DESC LIMIT :n")
_HISTORY_SQL = ("SELECT t.MESSAGE_ID, m.ROLE, m.CONTENT, m.CREATED_AT, m.PULSE_ID FROM saimemory_tag t "
                "JOIN saimemory m ON m.ID = t.MESSAGE_ID WHERE t.PERSONA_ID = :p AND t.TAG = 'conversation' "
                # upstream v0.3 (sea/lines.py): only committed main-line (or meta-judgment) lines are history
                "AND coalesce(m.SCOPE, 'committed') = 'committed' "
                "AND coalesce(m.LINE_ROLE, 'main_line') IN ('main_line', 'meta_judgment') ")
# Built once: every pulse's first prompt runs one of these (the second while a snapshot is kept).
_NEWEST = "SELECT max(MESSAGE_ID) FROM saimemory_tag WHERE PERSONA_ID = :p AND TAG = 'conversation'"
_NEWEST_SQL = text(_NEWEST)
# The newest id and the lines after the kept snapshot, as one statement (one snapshot of the table):
# a row with NULL line fields when nothing is new; no more lines than MAX_APPEND ids can hold.
_NEWEST_AND_AFTER_SQL = text(
    f"SELECT n.NEWEST, r.* FROM ({_NEWEST.replace('SELECT max(MESSAGE_ID)', 'SELECT max(MESSAGE_ID) AS NEWEST')}) n "
    f"LEFT JOIN ({_HISTORY_SQL}AND t.MESSAGE_ID > :after AND t.MESSAGE_ID <= :upto) r ON 1 = 1 "
    "ORDER BY r.MESSAGE_ID")


def memo_core(store: MemopediaStore, persona_id: str) -> str:
    """The Memopedia part of a prompt: one line per core page, then the pages open in the thread."""
    listed, opened = store.core(persona_id)
    if not listed and not opened:
        return ""
    lines = ["## 覚えていること（Memopedia）"]
    for p in listed:
        mark = "★" if p.is_important or p.is_trunk else ""
        cat = CATEGORIES.get(p.category, ("", p.category, ""))[1]
        lines.append(f"- {mark}[{cat}] {p.title}: {p.summary or p.content[:60]}")
    lines.append("（ページの全文は memopedia_get_page で読めます）")
    for p in opened:
        body = p.content if len(p.content) <= OPEN_PAGE_CHARS else p.content[:OPEN_PAGE_CHARS] + "…"
        lines.append(f"\n### 開いているページ「{p.title}」\n{p.summary}\n{body}".rstrip())
    return "\n".join(lines)


def _message(line: Line) -> Message:
    """A history line as a prompt message (as saiverse/memory/_context.py `fit` shows it)."""
    return {"role": "user" if line.role == "user" else "assistant", "content": line.content}


@dataclass
class _Kept:
    snap: Snapshot
    newest_id: int
    version: tuple[int, int, int]
    built: float
    tokens: list[int] = field(default_factory=list)
    """Estimated cost of each history line, oldest first (what trimming adds up)."""
    shown: list[Message] = field(default_factory=list)
    """Each history line as a prompt message, oldest first, made once here: every prompt of every pulse
    shares these objects (nothing downstream changes a prompt's messages in place)."""
    pulses: dict[str, int] = field(default_factory=dict)
    """How many history lines each pulse id has: a pulse's own lines are left out of its snapshot
    without looking at every line when it has none, and from the newest back when it has some."""


class ContextSource:
    """Snapshots of what a persona's memory offers a prompt (see the module docstring)."""

    def __init__(self, db: Database, chronicle: ChronicleStore, memopedia: MemopediaStore,
                 *, default_budget: int = DEFAULT_CONTEXT_TOKENS, pins: PinStore | None = None,
                 dense: DenseRecall | None = None) -> None:
        self.db = db
        self.chronicle = chronicle
        self.memopedia = memopedia
        self.pins = pins if pins is not None else PinStore(db)
        """Each persona's pinned lines (saiverse/memory/_pins.py): pin and unpin through it, so the kept
        snapshots see the change at once."""
        self.default_budget = default_budget
        self._kept: dict[str, _Kept] = {}
        self._lock = threading.Lock()
        self.dense = dense
        """The stored vectors reflex recall fuses in (saiverse/memory/_dense.py), when an embedding model is set."""

    def budget(self, persona_id: str) -> int:
        """The persona's CONTEXT_TOKENS, else the default; never below MIN_CONTEXT_TOKENS."""
        with self.db.engine.connect() as conn:
            return self._budget(conn, persona_id)

    def _budget(self, conn: Connection, persona_id: str) -> int:
        own = conn.execute(text("SELECT CONTEXT_TOKENS FROM ai WHERE AIID = :p"), {"p": persona_id}).scalar()
        value = own if isinstance(own, int) and own > 0 else self.default_budget
        return max(int(value), MIN_CONTEXT_TOKENS)

    def forget(self, persona_id: str | None = None) -> None:
        """Drop the kept snapshot of one persona (or all): the next one is read in full."""
        with self._lock:
            if persona_id is None:
                self._kept.clear()
            else:
                self._kept.pop(persona_id, None)

    def snapshot(self, persona_id: str, pulse_id: str | None = None) -> Snapshot:
        """Everything stored that a prompt of this pulse may use (the pulse's own messages excluded)."""
        with self.db.engine.connect() as conn:
            return self._snapshot(conn, persona_id, pulse_id)

    def pulse_view(self, persona_id: str, pulse_id: str, *, limit: int = OWN_LIMIT,
                   own: list[tuple[str, str, list[str]]] | None = None) -> \
            tuple[Snapshot, list[tuple[str, str, list[str]]]]:
        """`snapshot` plus the pulse's own stored messages as (role, content, tags), oldest first
        (the newest `limit`), read on one connection: what a pulse's first prompt needs. `own`, when
        the caller knows them exactly (it stored them itself under a pulse id it minted), is not read."""
        with self.db.engine.connect() as conn:
            snap = self._snapshot(conn, persona_id, pulse_id)
            if own is not None:
                return snap, own[-limit:] if limit else []
            rows = list(conn.execute(_OWN_SQL, {"p": persona_id, "pulse": pulse_id, "n": limit}))
        own = []
        for role, content, raw_tags in reversed(rows):
            try:
                tags = json.loads(raw_tags or "[]")
            except ValueError:
                tags = []
            own.append((role, content, [str(t) for t in tags] if isinstance(tags, list) else []))
        return snap, own

    def reflex(self, persona_id: str, message: str, pulse_id: str | None, snapshot: Snapshot) -> str:
        """Reflex recall's prompt text for the user's `message` ("" when off for the persona or nothing
        worth it is found); what `snapshot` already shows verbatim or pinned is left out."""
        return reflex_section(self.recalled(persona_id, message, pulse_id, snapshot))

    def reflex_on(self, persona_id: str) -> bool:
        """Whether reflex recall runs for the persona (`persona reflex-off ID` turns it off)."""
        with self.db.engine.connect() as conn:
            return conn.execute(text("SELECT VALUE FROM world_setting WHERE KEY = :k"),
                                {"k": reflex_setting_key(persona_id)}).scalar() != "0"

    def recalled(self, persona_id: str, message: str, pulse_id: str | None, snapshot: Snapshot) -> list[Recalled]:
        """`reflex`'s lines, each with its score and why ([] when off or nothing worth it is found)."""
        if not self.reflex_on(persona_id):
            return []
        shown = {" ".join(h.content.split()) for h in [*snapshot.history, *snapshot.pins]}
        return reflex_found(SAIMemory(self.db), self.chronicle, self.memopedia, persona_id, message,
                            pulse_id=pulse_id, shown=shown, max_chars=int(snapshot.budget * REFLEX_SHARE),
                            dense=self.dense)

    def _snapshot(self, conn: Connection, persona_id: str, pulse_id: str | None) -> Snapshot:
        version = (self.chronicle.writes, self.memopedia.writes, self.pins.writes)
        with self._lock:
            kept = self._kept.get(persona_id)
        if kept is None or kept.version != version or time.monotonic() - kept.built > CACHE_SECONDS:
            kept = self._read(conn, persona_id, conn.execute(_NEWEST_SQL, {"p": persona_id}).scalar() or 0, version)
        else:
            rows = read_all(conn, _NEWEST_AND_AFTER_SQL, {"p": persona_id, "after": kept.newest_id,  # every pulse
                                                          "upto": kept.newest_id + MAX_APPEND})
            newest = rows[0][0] or 0
            if not kept.newest_id <= newest <= kept.newest_id + MAX_APPEND:
                kept = self._read(conn, persona_id, newest, version)
            elif newest > kept.newest_id:
                self._append([r[1:] for r in rows if r[1] is not None], kept, newest)
        with self._lock:
            self._kept[persona_id] = kept
        snap = kept.snap
        # Lists of a kept snapshot are never changed in place (`_append` makes a new one): shared as they are.
        history, costs, shown = snap.history, kept.tokens, kept.shown
        if len(costs) != len(history) or len(shown) != len(history):  # another thread brought it up to date
            costs = [estimate_tokens(h.content) + MESSAGE_OVERHEAD for h in history]
            shown = [_message(h) for h in history]
        own = kept.pulses.get(pulse_id, 0) if pulse_id else 0
        if own:  # the pulse's lines came after its id was minted: from the newest back to its first one
            at, seen = len(history), 0
            while seen < own and at > 0:
                at -= 1
                seen += history[at].pulse_id == pulse_id
            keep = [n for n in range(at, len(history)) if history[n].pulse_id != pulse_id]
            history = history[:at] + [history[n] for n in keep]
            costs = costs[:at] + [costs[n] for n in keep]
            shown = shown[:at] + [shown[n] for n in keep]
        return replace(snap, history=history, costs=costs, shown=shown)

    def _read(self, conn: Connection, persona_id: str, newest: int, version: tuple[int, int, int]) -> _Kept:
        snap = Snapshot(budget=self._budget(conn, persona_id))
        lines: list[Line] = []
        costs: list[int] = []
        total = 0
        rows = conn.execute(text(_HISTORY_SQL + "ORDER BY t.MESSAGE_ID DESC LIMIT :n"),
                            {"p": persona_id, "n": MAX_HISTORY})
        for _id, role, content, created, pulse in rows:  # read only until the budget is full
            if role not in ("user", "assistant"):
                continue
            if total >= snap.budget:
                snap.older = parse_time(created) or datetime.min
                break
            lines.append(Line(role, content, parse_time(created), pulse))
            costs.append(estimate_tokens(content) + MESSAGE_OVERHEAD)
            total += costs[-1]
        snap.history = lines[::-1]
        snap.chronicle = self.chronicle.context_candidates(persona_id)
        snap.core = memo_core(self.memopedia, persona_id)
        snap.pins = [Line(p.role, p.content, parse_time(p.created_at)) for p in self.pins.pins(persona_id)]
        pulses: dict[str, int] = {}
        for line in lines:
            if line.pulse_id:
                pulses[line.pulse_id] = pulses.get(line.pulse_id, 0) + 1
        return _Kept(snap, newest, version, time.monotonic(), costs[::-1], [_message(h) for h in snap.history], pulses)

    @staticmethod
    def _append(rows: list[Any], kept: _Kept, newest: int) -> None:
        snap = kept.snap
        history = list(snap.history)
        tokens, shown = list(kept.tokens), list(kept.shown)  # new lists: a snapshot handed out shares the old ones
        pulses = kept.pulses
        for _id, role, content, created, pulse in rows:
            if role in ("user", "assistant"):
                history.append(Line(role, content, parse_time(created), pulse))
                tokens.append(estimate_tokens(content) + MESSAGE_OVERHEAD)
                shown.append(_message(history[-1]))
                if pulse:
                    pulses[pulse] = pulses.get(pulse, 0) + 1
        total = sum(tokens)
        while len(history) > 1 and (total - tokens[0] >= snap.budget or len(history) > MAX_HISTORY):
            total -= tokens.pop(0)
            shown.pop(0)
            gone = history.pop(0)
            snap.older = gone.created or datetime.min
            if gone.pulse_id:
                left = pulses.pop(gone.pulse_id) - 1
                if left:
                    pulses[gone.pulse_id] = left
        snap.history = history
        kept.tokens, kept.shown = tokens, shown
        kept.newest_id = newest
