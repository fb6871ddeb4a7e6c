"""Dense recall: the stored message vectors (saiverse/memory/_vectors.py) as a ranked list for recall.

`DenseRecall.prepare(persona, query)` embeds the query (one short request to the embedding process,
kept for repeats) and returns a `DenseQuery`, which recall (saiverse/memory/_recall.py) uses twice:
- `near`: a dense-only candidate pass, the cosine of the query against the persona's newest
  `SCAN_ROWS` vectors, kept in memory as one float32 matrix (loaded on the first query, grown as the
  indexer of this process writes, reloaded when another process has written), its best `NEAR` ids;
- `similarities`: the cosine of the query against the stored vectors of a candidate set (messages
  only; Chronicle entries and Memopedia pages have none and stay out of the dense list).
Recall fuses the dense list with the lexical one by reciprocal rank, at `weight`.

A send never waits for a model to load: when the embedding process is not running (not started yet,
or dead), `prepare` returns None and recall is lexical for that query; the indexer starts it. Nor for
a slow model: a query's vector is waited for at most `wait` seconds (`QUERY_WAIT`), one at a time, and
not at all once the model is known to take more than twice that (it is still asked, for the next time).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import text

from database import Database
from saiverse.memory._vectors import has_vectors, persona_rows, unpack, vectors_of

log = logging.getLogger(__name__)

SCAN_ROWS = 100_000
"""The newest vectors per persona the dense-only pass looks at: 4 × dim bytes each in memory (146 MiB at
dim 384), one matrix-vector product per query (benchmarks/recall_dense.py)."""
NEAR = 20
"""Dense-only candidates a query adds."""
RECHECK_SECONDS = 30.0
"""How often the kept matrix is compared with the store's count (another process may have written)."""
QUERY_CACHE = 256
QUERY_WAIT = 0.25
"""How long a recall waits for its query's vector before going on lexically (a send must not wait on a
slow model: the packaged 270M chat model takes ~1 s a query on this loaded machine, a small encoder
tens of milliseconds)."""


@dataclass
class _Matrix:
    ids: np.ndarray
    mat: np.ndarray
    checked: float = field(default_factory=time.monotonic)
    stored: int = 0
    """The store's row count when last compared."""


@dataclass
class DenseQuery:
    """One query's vector and what it is close to."""

    vector: np.ndarray
    near: list[tuple[int, float]]
    """(message id, cosine) of the dense-only pass, best first."""
    _lookup: Callable[[Sequence[int]], dict[int, np.ndarray]]

    def similarities(self, hits: Sequence[dict[str, Any]]) -> list[float | None]:
        """The cosine of each hit with a stored vector (None for the rest)."""
        ids = [int(h["id"]) for h in hits if h.get("kind") == "message"]
        found = self._lookup(ids)
        out: list[float | None] = []
        for h in hits:
            vec = found.get(int(h["id"])) if h.get("kind") == "message" else None
            out.append(None if vec is None or len(vec) != len(self.vector) else float(vec @ self.vector))
        return out


class DenseRecall:
    """The dense half of recall for one embedding model (`model`: the key its vectors are stored under)."""

    def __init__(self, db: Database, model: str, embed: Callable[[list[str]], list[Any]], *,
                 ready: Callable[[], bool] = lambda: True, weight: float = 1.0) -> None:
        self.db = db
        self.model = model
        self.weight = weight
        """The dense list's weight in the fusion (the lexical list's is 1)."""
        self._embed = embed
        self._ready = ready
        self._lock = threading.Lock()
        self._mats: dict[str, _Matrix] = {}
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-embedding")
        self._work = ThreadPoolExecutor(max_workers=2, thread_name_prefix="dense-recall")
        self._asking: Future[np.ndarray] | None = None
        self._seconds = 0.0
        """How long a query's vector has been taking (a running mean)."""
        self.wait = QUERY_WAIT
        """Seconds a recall waits for its query's vector (benchmarks and the CLI wait longer)."""

    def query_vector(self, query: str, wait: float | None = None) -> np.ndarray | None:
        """The query's unit vector; None when the embedding process is not running (nothing waits for a
        load) or has not answered within `wait` seconds (it is kept when it comes, for the next ask)."""
        with self._lock:
            kept = self._queries.get(query)
            if kept is not None:
                self._queries.move_to_end(query)
                return kept
            if not self._ready() or (self._asking is not None and not self._asking.done()):
                return None  # one query in flight at a time: a slow model never piles requests up
            self._asking = self._pool.submit(self._embed_query, query)
            asking = self._asking
        timeout = self.wait if wait is None else wait
        if self._seconds > 2 * timeout:
            return None  # this model answers slower than that: asked for the next time, not waited for
        try:
            return asking.result(timeout=timeout)
        except FutureTimeout:
            log.info("query embedding took over %.2f s: recall is lexical for it", self.wait if wait is None else wait)
            return None

    def _embed_query(self, query: str) -> np.ndarray:
        started = time.monotonic()
        vec = np.asarray(self._embed([query])[0], dtype=np.float32)
        took = time.monotonic() - started
        with self._lock:
            self._seconds = took if not self._seconds else 0.7 * self._seconds + 0.3 * took
            self._queries[query] = vec
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vec

    def prepare(self, persona_id: str, query: str, wait: float | None = None) -> DenseQuery | None:
        """The query's dense side, or None (no vectors for the persona, the model is not running, or its
        vector took longer than `wait`, default `self.wait`)."""
        with self.db.engine.connect() as conn:
            if persona_id not in self._mats and not has_vectors(conn, self.model, persona_id):
                return None
        try:
            vec = self.query_vector(query, wait)
        except Exception as exc:  # noqa: BLE001 - a dead embedding process makes recall lexical, never fails it
            log.warning("query embedding failed (%s): recall is lexical for it", type(exc).__name__)
            return None
        if vec is None:
            return None
        return DenseQuery(vec, self.near(persona_id, vec), self._lookup)

    def start(self, persona_id: str, query: str, wait: float | None = None) -> Future[DenseQuery | None]:
        """`prepare` in a thread of its own: recall runs its lexical part meanwhile (numpy's product and
        SQLite's reads both let go of the GIL), then takes the result."""
        return self._work.submit(self.prepare, persona_id, query, wait)

    def _lookup(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        with self.db.engine.connect() as conn:
            return vectors_of(conn, self.model, ids)

    def near(self, persona_id: str, vec: np.ndarray, limit: int = NEAR) -> list[tuple[int, float]]:
        """The persona's `limit` stored messages closest to `vec` (dense-only candidates)."""
        _one_blas_thread()
        m = self._matrix(persona_id)
        if m is None or not len(m.ids) or m.mat.shape[1] != len(vec):
            return []
        sims = m.mat @ vec
        k = min(limit, len(sims))
        best = np.argpartition(-sims, k - 1)[:k]
        best = best[np.argsort(-sims[best])]
        return [(int(m.ids[i]), float(sims[i])) for i in best]

    def _matrix(self, persona_id: str) -> _Matrix | None:
        with self._lock:
            m = self._mats.get(persona_id)
            if m is not None and time.monotonic() - m.checked < RECHECK_SECONDS:
                return m
        with self.db.engine.connect() as conn:
            stored = int(conn.execute(_COUNT, {"k": self.model, "p": persona_id}).scalar_one())
            if m is not None and stored == m.stored:
                m.checked = time.monotonic()
                return m
            rows = _newest(conn, self.model, persona_id)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        dim = rows[0][1] if rows else 0
        mat = np.empty((len(rows), dim), dtype=np.float32)
        for i, r in enumerate(rows):
            if r[1] == dim:
                mat[i] = unpack(r[2], dim)
            else:  # another model's width under the same key: cannot be compared
                mat[i] = 0.0
        fresh = _Matrix(ids, mat, stored=stored)
        with self._lock:
            self._mats[persona_id] = fresh
        return fresh

    def added(self, persona_id: str, ids: Sequence[int], vectors: Sequence[np.ndarray]) -> None:
        """What this process's indexer just stored, added to a kept matrix (no reload)."""
        with self._lock:
            m = self._mats.get(persona_id)
            if m is None or not ids or m.mat.shape[1] not in (0, len(vectors[0])):
                return
            m.ids = np.concatenate([m.ids, np.asarray(ids, dtype=np.int64)])
            m.mat = np.concatenate([m.mat.reshape(-1, len(vectors[0])), np.stack(vectors).astype(np.float32)])
            m.stored += len(ids)
            if len(m.ids) > SCAN_ROWS:
                keep = np.argsort(m.ids)[-SCAN_ROWS:]
                m.ids, m.mat = m.ids[keep], m.mat[keep]

    def forget(self) -> None:
        """Drop the kept matrices and query vectors."""
        with self._lock:
            self._mats.clear()
            self._queries.clear()

    def close(self) -> None:
        """End the query thread (a query in flight finishes on its own)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._work.shutdown(wait=False, cancel_futures=True)


_BLAS_LIMITED: list[object] = []


def _one_blas_thread() -> None:
    """numpy's BLAS on one thread, once per process: the product runs beside recall's lexical part, and a
    second BLAS thread only fought it for the other core (benchmarks/RESULTS-recall.md: p95 67 → 45 ms)."""
    if not _BLAS_LIMITED:
        from threadpoolctl import threadpool_limits

        _BLAS_LIMITED.append(threadpool_limits(limits=1, user_api="blas"))


_COUNT = text("SELECT count(*) FROM saimemory_vec WHERE MODEL = :k AND PERSONA_ID = :p AND DIM > 0")


def _newest(conn: Any, model: str, persona_id: str) -> list[tuple[int, int, bytes]]:
    """The persona's newest `SCAN_ROWS` vectors."""
    floor = conn.execute(text(
        "SELECT MESSAGE_ID FROM saimemory_vec WHERE MODEL = :k AND PERSONA_ID = :p AND DIM > 0 "
        "ORDER BY MESSAGE_ID DESC LIMIT 1 OFFSET :n"), {"k": model, "p": persona_id, "n": SCAN_ROWS}).scalar()
    return persona_rows(conn, model, persona_id, above=int(floor or 0), limit=SCAN_ROWS)
