"""Dense recall latency: what stored vectors add to `recall` at 100k+ vectors per persona.

    python benchmarks/recall_dense.py [--messages 250000] [--dims 384,640] [--queries 100]

Reuses benchmarks/recall.py's database (its persona mina holds 40% of the messages: 100k of 250k),
writes one random unit vector per message of mina into `saimemory_vec` (the model's taste does not
matter for latency), and times, on the "question" queries of benchmarks/recall_rank.py:
- the first query of a persona (its newest `SCAN_ROWS` vectors read into one matrix) and the memory
  that matrix takes;
- `DenseRecall.near` alone (the dense-only pass over the matrix);
- the whole `recall` with the dense side (its query vector given at once: a stand-in for the model,
  whose own time is separate: `benchmarks/RESULTS-recall.md`), against `recall` without it.
Prints a table and, as the last line, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.recall import build, existing_build, percentile, queries  # noqa: E402
from benchmarks.recall_rank import questions  # noqa: E402
from database.engine import Database  # noqa: E402
from portable import peak_rss_mib  # noqa: E402
from saiverse.memory import ChronicleStore, DenseRecall, MemopediaStore, SAIMemory, recall  # noqa: E402

PERSONA = "mina"


def fill_vectors(db: Database, model: str, dim: int, seed: int) -> int:
    """One random unit vector per message of PERSONA under `model` (kept when already there)."""
    raw = db.engine.raw_connection()
    try:
        cur = raw.cursor()
        have = cur.execute("SELECT count(*) FROM saimemory_vec WHERE MODEL = ?", (model,)).fetchone()[0]
        ids = [r[0] for r in cur.execute("SELECT ID FROM saimemory WHERE PERSONA_ID = ?", (PERSONA,))]
        if have == len(ids):
            return len(ids)
        rng = np.random.default_rng(seed)
        for start in range(0, len(ids), 20_000):
            chunk = ids[start:start + 20_000]
            vecs = rng.standard_normal((len(chunk), dim)).astype("<f4")
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            rows = [(i, PERSONA, model, dim, v.tobytes()) for i, v in zip(chunk, vecs, strict=True)]
            cur.executemany("INSERT OR IGNORE INTO saimemory_vec (MESSAGE_ID, PERSONA_ID, MODEL, DIM, VEC) "
                            "VALUES (?, ?, ?, ?, ?)", rows)
            raw.commit()
        return len(ids)
    finally:
        raw.close()


def timed(fn, items) -> dict[str, float]:  # type: ignore[no-untyped-def]
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1),
            "max_ms": round(max(times), 1)}


def measure(db: Database, dim: int, asked: list[str], seed: int) -> dict[str, object]:
    """One vector width: the matrix's first load, the dense-only pass, recall with the dense side."""
    memory, chronicle, memopedia = SAIMemory(db), ChronicleStore(db), MemopediaStore(db)
    model = f"bench:{dim}"
    n = fill_vectors(db, model, dim, seed)
    rng = np.random.default_rng(dim)
    vectors = {q: v / np.linalg.norm(v) for q in asked for v in [rng.standard_normal(dim).astype(np.float32)]}
    dense = DenseRecall(db, model, lambda texts: [vectors[t] for t in texts])
    dense.wait = 60.0
    before = peak_rss_mib() or 0.0
    t0 = time.perf_counter()
    dense.near(PERSONA, vectors[asked[0]])
    load_s = time.perf_counter() - t0
    grown = (peak_rss_mib() or 0.0) - before
    near = timed(lambda q: dense.near(PERSONA, vectors[q]), asked)
    fused = timed(lambda q: recall(memory, chronicle, memopedia, PERSONA, q, limit=8, dense=dense), asked)
    dense.close()
    print(f"dim {dim}: {n:,} vectors, first query {load_s:.2f} s, matrix {n * dim * 4 / 2**20:.0f} MiB")
    print(f"  dense-only pass       p50 {near['p50_ms']:>7} p95 {near['p95_ms']:>7} max {near['max_ms']:>7}")
    print(f"  recall with dense     p50 {fused['p50_ms']:>7} p95 {fused['p95_ms']:>7} max {fused['max_ms']:>7}")
    return {"vectors": n, "load_s": round(load_s, 2), "matrix_mib": round(n * dim * 4 / 2**20, 1),
            "peak_rss_growth_mib": round(grown, 1), "near": near, "recall_with_dense": fused}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=250_000)
    ap.add_argument("--dims", default="384,640")
    ap.add_argument("--dir", type=Path, default=ROOT / "bench-data")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / f"recall-{args.messages}-s{args.seed}-g1.db"
    if existing_build(path, args.messages, args.seed) is None:
        print(f"building {path}…", file=sys.stderr)
        build(path, args.messages, args.seed)
    from database.migrate import migrate

    migrate(path, backup=False)  # a database built before step 14 gets the vector table
    db = Database(f"sqlite:///{path}")
    memory, chronicle, memopedia = SAIMemory(db), ChronicleStore(db), MemopediaStore(db)
    kinds = queries(args.queries, args.seed)
    asked = [q for p, q in questions(kinds, args.seed)]
    out: dict[str, object] = {"messages": args.messages}
    lexical = timed(lambda q: recall(memory, chronicle, memopedia, PERSONA, q, limit=8), asked[:5] + asked)
    out["lexical"] = lexical
    print(f"lexical recall          p50 {lexical['p50_ms']:>7} p95 {lexical['p95_ms']:>7} max {lexical['max_ms']:>7}")
    for dim in (int(d) for d in args.dims.split(",")):
        out[f"dim{dim}"] = measure(db, dim, asked, args.seed)
    db.dispose()
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
