"""SAIMemory's message vectors in the store itself (`saimemory_vec`, migration step 14; issue 33).

One row per message and embedding model: `MODEL` names the model (`local:<file stem>`), `VEC` holds
`DIM` little-endian float32 values (a unit vector, as the embedder makes it). A message with nothing
to embed gets a row with DIM 0 and an empty VEC, so the indexer never asks for it again.

Why plain blobs scanned with numpy, on SQLite and PostgreSQL alike: sqlite-vec is a loadable
extension (Python's sqlite3 may be built without extension loading, and every connection would have
to load it), and pgvector is an extension a user's PostgreSQL may not have, or may not let them
create; a fallback would be needed anyway, and one code path gives both stores the same results.
Measured where pgvector is there (benchmarks/recall_pgvector.py), its exact search was several times
slower than the numpy scan at 20k vectors of a persona; its HNSW index needs one vector width per
index and filters personas after the search (benchmarks/RESULTS-recall.md, "pgvector").
A persona's vectors are a few hundred thousand at most; scanning them as one numpy matrix in memory
(saiverse/memory/_dense.py) costs milliseconds.

Writes are one transaction per batch, `ON CONFLICT DO NOTHING`: a kill -9 loses at most the batch in
flight (SQLite's WAL and PostgreSQL roll it back; it is embedded again), and two processes indexing
the same persona at once both succeed, the second adding nothing. A vector is written only while its
message still exists with the text that was embedded; the triggers of step 14 drop it when the
message is deleted or its text or persona changes, so the indexer embeds the new text.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, bindparam, text

from database import Database

LE_FLOAT32 = np.dtype("<f4")


def pack(vector: Sequence[float] | np.ndarray) -> bytes:
    """A vector as little-endian float32 bytes."""
    return np.asarray(vector, dtype=LE_FLOAT32).tobytes()


def unpack(blob: bytes, dim: int) -> np.ndarray:
    """The float32 vector a blob holds (native byte order)."""
    vec = np.frombuffer(bytes(blob), dtype=LE_FLOAT32, count=dim)
    return vec.astype(np.float32) if sys.byteorder != "little" else vec


def pending(db: Database, persona_id: str, model: str, *, limit: int, below: int | None = None,
            above: int | None = None) -> list[tuple[int, str]]:
    """Up to `limit` (id, text) of the persona's messages with no vector for `model`, newest first;
    `below` / `above` bound the ids looked at (the indexer's cursor)."""
    where = ["m.PERSONA_ID = :p",
             "NOT EXISTS (SELECT 1 FROM saimemory_vec v WHERE v.MODEL = :k AND v.MESSAGE_ID = m.ID)"]
    params: dict[str, Any] = {"p": persona_id, "k": model, "n": limit}
    if below is not None:
        where.append("m.ID < :below")
        params["below"] = below
    if above is not None:
        where.append("m.ID > :above")
        params["above"] = above
    with db.engine.connect() as conn:
        return [(int(r[0]), str(r[1])) for r in conn.execute(text(
            f"SELECT m.ID, m.CONTENT FROM saimemory m WHERE {' AND '.join(where)} ORDER BY m.ID DESC LIMIT :n"),
            params)]


def write(db: Database, persona_id: str, model: str, rows: Iterable[tuple[int, str, np.ndarray | None]]) -> int:
    """Store (message id, the text embedded, its vector or None for nothing to embed) in one transaction;
    a message deleted or edited since it was read gets nothing. Returns the rows written."""
    written = 0
    with db.engine.begin() as conn:
        for message_id, content, vec in rows:
            dim = 0 if vec is None else int(len(vec))
            blob = b"" if vec is None else pack(vec)
            written += conn.execute(text(
                "INSERT INTO saimemory_vec (MESSAGE_ID, PERSONA_ID, MODEL, DIM, VEC) "
                "SELECT ID, PERSONA_ID, :k, :d, :v FROM saimemory WHERE ID = :id AND PERSONA_ID = :p AND CONTENT = :c "
                "ON CONFLICT DO NOTHING"),
                {"id": message_id, "p": persona_id, "k": model, "d": dim, "v": blob, "c": content}).rowcount or 0
    return written


def counts(db: Database, model: str, persona_id: str | None = None) -> dict[str, tuple[int, int]]:
    """Per persona: (messages, messages with a row for `model`)."""
    where, params = ("WHERE m.PERSONA_ID = :p", {"p": persona_id, "k": model}) if persona_id else ("", {"k": model})
    with db.engine.connect() as conn:
        total = {r[0]: r[1] for r in conn.execute(text(
            f"SELECT m.PERSONA_ID, count(*) FROM saimemory m {where} GROUP BY m.PERSONA_ID"), params)}
        done = {r[0]: r[1] for r in conn.execute(text(
            "SELECT PERSONA_ID, count(*) FROM saimemory_vec WHERE MODEL = :k "
            + ("AND PERSONA_ID = :p " if persona_id else "") + "GROUP BY PERSONA_ID"), params)}
    return {str(p): (int(n), int(done.get(p, 0))) for p, n in total.items()}


def has_vectors(conn: Connection, model: str, persona_id: str) -> bool:
    """Whether the persona has any vector for `model`."""
    return conn.execute(text("SELECT 1 FROM saimemory_vec WHERE MODEL = :k AND PERSONA_ID = :p AND DIM > 0 LIMIT 1"),
                        {"k": model, "p": persona_id}).first() is not None


def vectors_of(conn: Connection, model: str, ids: Sequence[int]) -> dict[int, np.ndarray]:
    """The stored vectors of these messages for `model` (messages without one are left out)."""
    if not ids:
        return {}
    rows = conn.execute(text("SELECT MESSAGE_ID, DIM, VEC FROM saimemory_vec WHERE MODEL = :k AND DIM > 0 "
                             "AND MESSAGE_ID IN :ids").bindparams(bindparam("ids", expanding=True)),
                        {"k": model, "ids": list(ids)})
    return {int(r[0]): unpack(r[2], int(r[1])) for r in rows}


def persona_rows(conn: Connection, model: str, persona_id: str, *, above: int = 0,
                 limit: int) -> list[tuple[int, int, bytes]]:
    """(message id, dim, blob) of the persona's vectors with ids above `above`, oldest first, at most `limit`."""
    return [(int(r[0]), int(r[1]), bytes(r[2])) for r in conn.execute(text(
        "SELECT MESSAGE_ID, DIM, VEC FROM saimemory_vec WHERE MODEL = :k AND PERSONA_ID = :p AND MESSAGE_ID > :a "
        "AND DIM > 0 ORDER BY MESSAGE_ID LIMIT :n"), {"k": model, "p": persona_id, "a": above, "n": limit})]
