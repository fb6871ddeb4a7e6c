"""Building the Chronicle: incremental, checkpointed, off the reply path.

Level 1: a persona's `conversation` messages after its progress mark (`chronicle_progress`), except
the newest `KEEP_RECENT` (still verbatim in every prompt), are cut into batches of `BATCH_MESSAGES`
messages or `BATCH_TOKENS` tokens, whichever comes first; a smaller batch is flushed once its
newest message is `IDLE_FLUSH` old (a conversation that paused). Level n+1: once `GROUP_SIZE`
unconsolidated level-n entries exist, the oldest `GROUP_SIZE` are summarised together and marked
consolidated, pointing to the new entry.

Checkpointing: the model is asked first, outside any transaction; then the new entry and the
progress mark (level 1) or the children's consolidation (level n) are written in one transaction
that first checks nothing moved meanwhile (another builder, the CLI). A crash before the commit
repeats only the model call; after it nothing is repeated. Each message is summarised once, so the
cost grows linearly with history. `ChronicleWorker` runs builds in a background thread the manager
starts and stops; a pulse never waits for it.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.exc import SQLAlchemyError

from chat import ChatModel, LLMError
from database import Database
from saiverse.llm.offline import estimate_tokens
from saiverse.memory._chronicle import ENTRY_COLUMNS, ChronicleStore, Entry, entry_from_row
from saiverse.memory._chronicle_summary import (
    model_summary_entries,
    model_summary_messages,
    summarize_entries,
    summarize_messages,
)
from saiverse.memory._common import LongTermMemoryError, parse_time, stamp, utc_now

BATCH_MESSAGES = 50
BATCH_TOKENS = 6_000
KEEP_RECENT = 10
IDLE_FLUSH = timedelta(minutes=30)
MIN_IDLE_BATCH = 10
GROUP_SIZE = 10
MAX_LEVEL = 8
log = logging.getLogger(__name__)


class _Moved(Exception):
    """Someone else wrote this part of the Chronicle first; the build re-reads and goes on."""


@dataclass
class BuildReport:
    """What one build did."""

    persona_id: str
    created: list[dict[str, Any]] = field(default_factory=list)
    """The entries written (entry_id, level, message_count)."""
    messages: int = 0
    """Messages summarised into new level-1 entries."""

    def to_dict(self) -> dict[str, Any]:
        return {"persona_id": self.persona_id, "created": self.created, "messages": self.messages}


def enabled_personas(db: Database) -> list[str]:
    """Personas whose Chronicle is on (`ai.CHRONICLE_ENABLED`)."""
    with db.engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT AIID FROM ai WHERE CHRONICLE_ENABLED = 1 ORDER BY AIID"))]


class ChronicleBuilder:
    """Writes due Chronicle entries for a persona (see the module docstring)."""

    def __init__(self, db: Database, store: ChronicleStore, model_for: Callable[[str], ChatModel]) -> None:
        self.db = db
        self.store = store
        self.model_for = model_for
        """persona id → the model that writes its summaries (its lightweight chain)."""

    # ---- where the build stands ---------------------------------------------------------------
    def _names(self, persona_id: str) -> tuple[str, str]:
        with self.db.engine.connect() as conn:
            persona = conn.execute(text("SELECT AINAME FROM ai WHERE AIID = :p"), {"p": persona_id}).scalar()
            user = conn.execute(text('SELECT USERNAME FROM "user" ORDER BY USERID LIMIT 1')).scalar()
        return str(persona or persona_id), "ユーザー" if not user or user == "あなた" else str(user)

    def _resolve(self, conn: Any, persona_id: str, raw: str | None) -> int | None:
        """A stored message reference (our id as text, or an upstream uuid) as our message id."""
        if raw is None or not str(raw).strip():
            return None
        raw = str(raw).strip()
        if raw.isdigit():
            return int(raw)
        found = conn.execute(text("SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND EXTERNAL_ID = :e"),
                             {"p": persona_id, "e": raw}).scalar()
        return int(found) if found is not None else None

    def progress(self, persona_id: str) -> tuple[str | None, int]:
        """(the stored progress mark as written, the message id it stands for). Without a usable mark
        (none yet, or an imported one that names no message here) the newest message any level-1
        entry summarises is used, so imported entries are never summarised again."""
        with self.db.engine.connect() as conn:
            raw = conn.execute(text("SELECT LAST_MESSAGE_ID FROM chronicle_progress WHERE PERSONA_ID = :p"),
                               {"p": persona_id}).scalar()
            resolved = self._resolve(conn, persona_id, raw)
            if resolved is not None:
                return raw, resolved
            best = 0
            for (ids,) in conn.execute(text(
                    "SELECT SOURCE_IDS FROM chronicle_entry WHERE PERSONA_ID = :p AND LEVEL = 1"), {"p": persona_id}):
                try:
                    listed = json.loads(ids)
                except (TypeError, ValueError):
                    continue
                if isinstance(listed, list) and listed:
                    best = max(best, self._resolve(conn, persona_id, str(listed[-1])) or 0)
            return raw, best

    def _next_batch(self, persona_id: str, after: int, now: datetime) -> list[dict[str, Any]] | None:
        with self.db.engine.connect() as conn:
            boundary = conn.execute(text(
                "SELECT MESSAGE_ID FROM saimemory_tag WHERE PERSONA_ID = :p AND TAG = 'conversation' "
                "ORDER BY MESSAGE_ID DESC LIMIT 1 OFFSET :k"), {"p": persona_id, "k": KEEP_RECENT - 1}).scalar()
            if boundary is None:
                return None
            rows = list(conn.execute(text(
                "SELECT m.ID, m.ROLE, m.CONTENT, m.CREATED_AT FROM saimemory_tag t "
                "JOIN saimemory m ON m.ID = t.MESSAGE_ID WHERE t.PERSONA_ID = :p AND t.TAG = 'conversation' "
                "AND t.MESSAGE_ID > :a AND t.MESSAGE_ID < :b "
                "ORDER BY t.MESSAGE_ID LIMIT :n"), {"p": persona_id, "a": after, "b": boundary, "n": BATCH_MESSAGES}))
        batch: list[dict[str, Any]] = []
        tokens = 0
        for r in rows:
            batch.append({"id": int(r[0]), "role": r[1], "content": r[2], "created_at": r[3]})
            tokens += estimate_tokens(r[2] or "")
            if tokens >= BATCH_TOKENS:
                return batch
        if len(batch) >= BATCH_MESSAGES:
            return batch
        newest = parse_time(batch[-1]["created_at"]) if batch else None
        if len(batch) >= MIN_IDLE_BATCH and newest is not None and now - newest >= IDLE_FLUSH:
            return batch
        return None

    def _due_group(self, persona_id: str) -> list[Entry] | None:
        with self.db.engine.connect() as conn:
            counts = conn.execute(text(
                "SELECT LEVEL, count(*) FROM chronicle_entry WHERE PERSONA_ID = :p AND IS_CONSOLIDATED = 0 "
                "GROUP BY LEVEL ORDER BY LEVEL"), {"p": persona_id}).all()
        for level, n in counts:
            if not isinstance(level, int) or level < 1 or level >= MAX_LEVEL or n < GROUP_SIZE:
                continue
            with self.db.engine.connect() as conn:
                rows = conn.execute(text(
                    f"SELECT {ENTRY_COLUMNS} FROM chronicle_entry WHERE PERSONA_ID = :p AND LEVEL = :lv "
                    "AND IS_CONSOLIDATED = 0"), {"p": persona_id, "lv": level})
                usable = [e for e in map(entry_from_row, rows) if e.problem is None]
            if len(usable) >= GROUP_SIZE:
                return sorted(usable, key=lambda e: e.end or datetime.min)[:GROUP_SIZE]
        return None

    # ---- writing ------------------------------------------------------------------------------
    def _summary(self, persona_id: str, messages: list[dict[str, Any]] | None = None,
                 entries: list[Entry] | None = None) -> str:
        persona, user = self._names(persona_id)
        model = self.model_for(persona_id)
        if model.provider == "offline":
            # The offline model cannot summarise; the Chronicle composes a deterministic summary itself.
            return summarize_messages(persona, user, messages) if messages is not None else \
                summarize_entries(persona, user, entries or [])
        text_ = model_summary_messages(model, persona, user, messages) if messages is not None else \
            model_summary_entries(model, persona, entries or [])
        if not text_:
            raise LLMError(f"{model.name} returned an empty summary", kind="empty")
        return text_

    def _insert(self, s: Any, persona_id: str, entry: Entry) -> None:
        s.execute(text(
            "INSERT INTO chronicle_entry (PERSONA_ID, ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, START_TIME, END_TIME, "
            "SOURCE_COUNT, MESSAGE_COUNT, PARENT_ID, IS_CONSOLIDATED, CREATED_AT) "
            "VALUES (:p, :id, :lv, :c, :src, :st, :en, :sc, :mc, NULL, 0, :now)"),
            {"p": persona_id, "id": entry.entry_id, "lv": entry.level, "c": entry.content,
             "src": json.dumps(entry.source_ids), "st": stamp(entry.start) if entry.start else None,
             "en": stamp(entry.end) if entry.end else None, "sc": entry.source_count, "mc": entry.message_count,
             "now": stamp()})

    def _write_level1(self, persona_id: str, mark: str | None, batch: list[dict[str, Any]], content: str) -> Entry:
        times = [t for t in (parse_time(m["created_at"]) for m in batch) if t]
        entry = Entry(entry_id=str(uuid.uuid4()), level=1, content=content, source_ids=[str(m["id"]) for m in batch],
                      start=min(times, default=None), end=max(times, default=None), source_count=len(batch),
                      message_count=len(batch))
        with self.db.session() as s:
            now_mark = s.execute(text("SELECT LAST_MESSAGE_ID FROM chronicle_progress WHERE PERSONA_ID = :p"),
                                 {"p": persona_id}).scalar()
            if now_mark != mark:
                raise _Moved()
            self._insert(s, persona_id, entry)
            s.execute(text(
                "INSERT INTO chronicle_progress (PERSONA_ID, LAST_MESSAGE_ID, UPDATED_AT) VALUES (:p, :m, :now) "
                "ON CONFLICT (PERSONA_ID) DO UPDATE SET LAST_MESSAGE_ID = :m, UPDATED_AT = :now"),
                {"p": persona_id, "m": str(batch[-1]["id"]), "now": stamp()})
        return entry

    def _write_group(self, persona_id: str, children: list[Entry], content: str) -> Entry:
        starts = [e.start or e.end for e in children if e.start or e.end]
        ends = [e.end or e.start for e in children if e.end or e.start]
        entry = Entry(entry_id=str(uuid.uuid4()), level=children[0].level + 1, content=content,
                      source_ids=[e.entry_id for e in children], start=min(starts, default=None),
                      end=max(ends, default=None), source_count=len(children),
                      message_count=sum(e.message_count for e in children))
        with self.db.session() as s:
            stmt = text("UPDATE chronicle_entry SET IS_CONSOLIDATED = 1, PARENT_ID = :parent WHERE PERSONA_ID = :p "
                        "AND ENTRY_ID IN :ids AND IS_CONSOLIDATED = 0").bindparams(bindparam("ids", expanding=True))
            done = s.execute(stmt, {"parent": entry.entry_id, "p": persona_id, "ids": entry.source_ids})
            if done.rowcount != len(children):
                raise _Moved()
            self._insert(s, persona_id, entry)
        return entry

    def build_due(self, persona_id: str, *, now: datetime | None = None, max_entries: int | None = None,
                  stop: threading.Event | None = None) -> BuildReport:
        """Write every entry that is due now (or up to `max_entries`); a model failure stops the build
        with what was written kept (LLMError propagates)."""
        report = BuildReport(persona_id)
        now = now or utc_now()
        while max_entries is None or len(report.created) < max_entries:
            if stop is not None and stop.is_set():
                break
            try:
                mark, after = self.progress(persona_id)
                batch = self._next_batch(persona_id, after, now)
                if batch:
                    entry = self._write_level1(persona_id, mark, batch, self._summary(persona_id, messages=batch))
                    report.messages += len(batch)
                else:
                    group = self._due_group(persona_id)
                    if not group:
                        break
                    entry = self._write_group(persona_id, group, self._summary(persona_id, entries=group))
            except _Moved:
                continue
            self.store.writes += 1
            report.created.append({"entry_id": entry.entry_id, "level": entry.level,
                                   "message_count": entry.message_count})
        return report


class ChronicleWorker:
    """Builds due Chronicle entries in a background thread: every `interval` seconds, or at once
    after `wake()`. Errors are kept per persona (`last_error`) and retried on the next round."""

    def __init__(self, builder: ChronicleBuilder, personas: Callable[[], list[str]], *, interval: float = 20.0) -> None:
        self.builder = builder
        self.personas = personas
        self.interval = interval
        self.last_error: dict[str, str] = {}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="chronicle", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Look for due work now (e.g. after many messages were added)."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def run_once(self) -> list[BuildReport]:
        """One round over every enabled persona (what the thread does each time it wakes)."""
        reports = []
        for persona_id in self.personas():
            if self._stop.is_set():
                break
            try:
                reports.append(self.builder.build_due(persona_id, stop=self._stop))
                self.last_error.pop(persona_id, None)
            except (LLMError, LongTermMemoryError, SQLAlchemyError) as exc:
                self.last_error[persona_id] = str(exc)
            except Exception as exc:  # noqa: BLE001 - one persona's failure must not stop the worker
                log.exception("Chronicle build for %s failed", persona_id)
                self.last_error[persona_id] = f"{type(exc).__name__}: {exc}"
        return reports

    def _run(self) -> None:
        # The first round waits too: a short CLI command that opens the world never starts a build.
        while True:
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.run_once()
            except Exception as exc:  # noqa: BLE001 - listing the personas failed (the database busy): next round
                log.exception("Chronicle round failed; retrying in %s s", self.interval)
                self.last_error["*"] = f"{type(exc).__name__}: {exc}"
            else:
                self.last_error.pop("*", None)
