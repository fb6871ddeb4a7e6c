"""The background indexer: every SAIMemory message embedded once, off the reply path (issue 33).

When `SAIVERSE_EMBEDDING_MODEL` names a model, the manager opens a `MemoryIndex`: the embedding model
(`local`, `local:<name or path>`: in its supervised process, saiverse/llm/local/_embedder.py, llama.cpp
never runs in the app; a provider's API: saiverse/llm/embeddings.py), a daemon thread that embeds
messages not yet embedded, and the dense side of recall (saiverse/memory/_dense.py) that reads the
vectors back.

- **Newest first, per persona, in turns.** What was said last is what a persona is most likely asked
  about; each persona gets one batch (`BATCH` messages) in turn, so one persona's million imported
  messages never starve another's new ones. Per persona the indexer keeps a cursor: the messages
  above the highest id it saw (new ones) first, then the catch-up below its lowest. When the
  catch-up ends, the whole persona is looked over again every `RECHECK_SECONDS` (an edited message
  lost its vector to step 14's trigger and is embedded anew).
- **Nothing waits for it.** A send and `import-saiverse` write messages as before; the indexer finds
  them by polling (`IDLE_SECONDS` when there is nothing to do). It holds one batch at a time, so its
  memory stays flat however many messages wait.
- **A crash fails one batch.** When the embedding process dies or hangs, that batch raises, is
  logged and is tried again after a pause (doubling up to `MAX_PAUSE`); the next batch starts the
  process anew. The app never sees it; a model broken on this machine is only tried every `MAX_PAUSE`.
- **Writes** are one transaction per batch (saiverse/memory/_vectors.py): a kill -9 loses the batch in
  flight, never a committed one, and two processes indexing one city both succeed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from database import Database
from portable import lower_priority

if TYPE_CHECKING:
    from saiverse.memory._dense import DenseRecall
    from saiverse.settings import Settings

log = logging.getLogger(__name__)

BATCH = 8
"""Messages per request to the embedding process: small, so a recall's query waits at most one batch."""
TEXT_CHARS = 2000
"""The part of a message embedded (the model reads 512 tokens at most)."""
IDLE_SECONDS = 5.0
START_DELAY = 5.0
"""The thread waits this long before its first batch: the app runs for hours, a CLI command for moments."""
RECHECK_SECONDS = 600.0
FIRST_PAUSE, MAX_PAUSE = 5.0, 300.0
CHAT_MODEL_WEIGHT = 0.5
"""The dense list's weight in recall's fusion for a chat model's mean-pooled vectors (a real embedding
model's is 1): benchmarks/RESULTS-recall.md, "Dense recall"."""


@dataclass
class _Cursor:
    top: int
    """Messages above this id are new since the catch-up began."""
    below: int | None
    """The catch-up continues below this id; None when it is done."""
    done_at: float = field(default_factory=time.monotonic)


class MemoryIndex:
    """One embedding model: its indexer and the dense side of recall."""

    def __init__(self, db: Database, key: str, embed: Callable[[list[str]], list[Any]], *,
                 ready: Callable[[], bool] = lambda: True, weight: float = 1.0, query_prefix: str = "",
                 passage_prefix: str = "", close: Callable[[], None] = lambda: None,
                 pid: Callable[[], int | None] = lambda: None,
                 embed_query: Callable[[list[str]], list[Any]] | None = None, batch: int = BATCH,
                 warm_up: bool = True) -> None:
        from saiverse.memory._dense import DenseRecall

        self.db = db
        self.key = key
        """What the vectors are stored under (`local:<file stem>`)."""
        self._embed = embed
        self._passage = passage_prefix
        self._close = close
        self._pid = pid
        self.batch = batch
        """Messages per request to the model."""
        self._warm_up = warm_up
        """Start the model's process with the thread (a local model; a provider's API has none to start)."""
        self.dense: DenseRecall = DenseRecall(
            db, key, embed_query or (lambda texts: embed([query_prefix + t for t in texts])), ready=ready,
            weight=weight)
        self._cursors: dict[str, _Cursor] = {}
        self._step_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pause = 0.0
        self._niced: int | None = None
        self.failures = 0
        """Batches that failed (the embedding process died, hung or refused)."""
        self.last_error = ""

    @property
    def pid(self) -> int | None:
        """The embedding process's id while it runs."""
        return self._pid()

    # ---- the thread ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the daemon thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memory-indexer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and the embedding process at once (a batch in flight is dropped: it was not
        stored, and the next start embeds it); closing never waits for a slow model."""
        self._stop.set()
        self.dense.close()
        self._close()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        if self._stop.wait(START_DELAY):
            return  # a CLI command opens the world and closes it again: no model process for that
        if self._warm_up:
            threading.Thread(target=self._nice_soon, name="memory-indexer-nice", daemon=True).start()
            try:  # the model's process up from the start: after a restart with every message indexed, no batch
                self._embed(["."])  # would ever start it, and a recall's query never waits for a load
                self._nice()
            except Exception as exc:  # noqa: BLE001 - a failure here is a failed batch: logged, tried again
                self._failed(exc)
        while not self._stop.is_set():
            try:
                done = self.step()
            except Exception as exc:  # noqa: BLE001 - the indexer never takes anything down; the batch is retried
                if self._stop.is_set():
                    break  # the process was closed under it
                self._failed(exc)
                self._stop.wait(self._pause)
                continue
            self._pause = 0.0
            if not done:
                self._stop.wait(IDLE_SECONDS)

    def _nice(self) -> None:
        """The embedding process is background work: the app's own goes first (once per process)."""
        pid = self.pid
        if pid is not None and pid != self._niced:
            lower_priority(pid)
            self._niced = pid

    def _nice_soon(self) -> None:
        """Renice the process as soon as it exists: its load (a second or two of CPU) is background work too."""
        deadline = time.monotonic() + 120
        while self.pid is None and not self._stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.02)
        self._nice()

    def _failed(self, exc: BaseException) -> None:
        self.failures += 1
        self.last_error = str(exc)
        self._pause = min(max(self._pause * 2, FIRST_PAUSE), MAX_PAUSE)
        log.warning("memory index: a batch failed (%s: %s); trying again in %.0f s", type(exc).__name__, exc,
                    self._pause)

    # ---- the work ------------------------------------------------------------------------
    def personas(self) -> list[str]:
        """Every persona of the world."""
        with self.db.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(text("SELECT AIID FROM ai ORDER BY AIID"))]

    def step(self, persona_ids: Sequence[str] | None = None) -> int:
        """One batch for each persona with messages waiting; the number of messages stored."""
        with self._step_lock:
            return sum(self._persona_step(p) for p in (persona_ids or self.personas()))

    def _persona_step(self, persona_id: str) -> int:
        from saiverse.memory._vectors import pending

        cur = self._cursors.get(persona_id)
        if cur is None:
            top = self._top(persona_id)
            cur = self._cursors[persona_id] = _Cursor(top, top + 1)
        rows = pending(self.db, persona_id, self.key, limit=self.batch, above=cur.top)
        if rows:
            return self._store(persona_id, rows)
        if cur.below is not None:
            rows = pending(self.db, persona_id, self.key, limit=self.batch, below=cur.below)
            if rows:
                stored = self._store(persona_id, rows)  # raises when the batch fails: the cursor stays
                cur.below = min(r[0] for r in rows)
                return stored
            cur.below, cur.top, cur.done_at = None, self._top(persona_id), time.monotonic()
        if time.monotonic() - cur.done_at > RECHECK_SECONDS:
            del self._cursors[persona_id]  # look the whole persona over again (edited messages)
        return 0

    def _top(self, persona_id: str) -> int:
        with self.db.engine.connect() as conn:
            return int(conn.execute(text("SELECT coalesce(max(ID), 0) FROM saimemory WHERE PERSONA_ID = :p"),
                                    {"p": persona_id}).scalar_one())

    def _store(self, persona_id: str, rows: list[tuple[int, str]]) -> int:
        import numpy as np

        from saiverse.memory._vectors import write

        texts = [(i, c, " ".join(c.split())[:TEXT_CHARS]) for i, c in rows]
        wanted = [(i, c, t) for i, c, t in texts if t]
        vectors = self._embed([self._passage + t for _, _, t in wanted]) if wanted else []
        self._nice()
        by_id = {i: np.asarray(v, dtype=np.float32) for (i, _, _), v in zip(wanted, vectors, strict=True)}
        written = write(self.db, persona_id, self.key, [(i, c, by_id.get(i)) for i, c, _ in texts])
        if by_id:
            ids = list(by_id)
            self.dense.added(persona_id, ids, [by_id[i] for i in ids])
        log.debug("memory index: %s: %d of %d stored", persona_id, written, len(rows))
        return len(rows)

    def drain(self, persona_id: str | None = None, progress: Callable[[dict[str, tuple[int, int]]], None] | None = None,
              *, every: float = 2.0) -> dict[str, tuple[int, int]]:
        """Index until every message (of `persona_id`, or of all) has its vector; `progress` gets the counts
        every `every` seconds. Raises what the embedding model raises (the caller says it)."""
        from saiverse.memory._vectors import counts

        shown = 0.0
        while True:
            did = self.step([persona_id] if persona_id else None)
            now = time.monotonic()
            if progress is not None and (now - shown >= every or not did):
                progress(counts(self.db, self.key, persona_id))
                shown = now
            if not did:
                return counts(self.db, self.key, persona_id)

    def status(self, persona_id: str | None = None) -> dict[str, tuple[int, int]]:
        """Per persona: (messages, messages indexed)."""
        from saiverse.memory._vectors import counts

        return counts(self.db, self.key, persona_id)


def open_memory_index(settings: Settings, db: Database, *, start: bool = True) -> MemoryIndex | None:
    """The configured embedding model's index (its thread started), or None when none is configured."""
    name = settings.embedding_model.strip()
    if not name:
        return None
    if not (name == "local" or name.startswith("local:")):
        return _cloud_index(settings, db, name, start)
    from saiverse.llm.local import HealthBook, LocalEmbedder, ensure_file, entry, model_kind, model_path

    spec = name.split(":", 1)[1] if ":" in name else ""
    try:
        path = model_path(settings, spec)
    except Exception as exc:  # noqa: BLE001 - a bad setting leaves recall lexical; the app still starts
        log.warning("embedding model %s cannot be used (%s): recall stays lexical", name, exc)
        return None
    listed = entry(path.name)
    holder: dict[str, Any] = {}

    def embedder() -> Any:
        if "e" not in holder:  # the packaged model is assembled on first use, in the indexer's thread
            holder["e"] = LocalEmbedder(name, ensure_file(path), health=HealthBook(settings.home))
        return holder["e"]

    def ready() -> bool:
        return "e" in holder and holder["e"].pid is not None

    def close() -> None:
        if "e" in holder:
            holder["e"].close()

    weight = 1.0 if (listed and listed.kind == "embedding") or (path.is_file() and model_kind(path) == "embedding") \
        else CHAT_MODEL_WEIGHT
    index = MemoryIndex(db, f"local:{path.stem}", lambda texts: embedder().embed(texts), ready=ready, weight=weight,
                        query_prefix=listed.query_prefix if listed else "",
                        passage_prefix=listed.passage_prefix if listed else "", close=close,
                        pid=lambda: holder["e"].pid if "e" in holder else None)
    if start:
        index.start()
    return index


def _cloud_index(settings: Settings, db: Database, name: str, start: bool) -> MemoryIndex | None:
    """A provider's embedding API (saiverse/llm/embeddings.py): no process to start, bigger batches."""
    from saiverse.llm.embeddings import BATCH as CLOUD_BATCH
    from saiverse.llm.embeddings import cloud_embedder

    try:
        embedder = cloud_embedder(settings, name)
    except ValueError as exc:  # a key or URL missing leaves recall lexical; the app still starts
        log.warning("embedding model %s cannot be used (%s): recall stays lexical", name, exc)
        return None
    index = MemoryIndex(db, embedder.key, embedder.embed, embed_query=embedder.embed_query, close=embedder.close,
                        batch=CLOUD_BATCH, warm_up=False)
    if start:
        index.start()
    return index
