"""The two stores the reliability campaigns run against: SQLite in the home, and PostgreSQL (tests/support/pg.py).

`store` (a fixture, parametrized `sqlite` / `postgres`) points the test's home at its store — for
PostgreSQL an empty database of the test's own on the session's throwaway cluster, through
SAIVERSE_DATABASE_URL, which child processes inherit — and hands back a `Store` that reads rows with
plain SQL and checks the database's own consistency afterwards: SQLite's `PRAGMA integrity_check`, or
PostgreSQL's `amcheck` (every table's heap with `verify_heapam`, every B-tree index against its table
with `bt_index_check(…, heapallindexed)`). Both also check that no row points at a missing parent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ORPHAN_CHECKS = {
    "memory message of a missing persona":
        "SELECT count(*) FROM saimemory m WHERE NOT EXISTS (SELECT 1 FROM ai a WHERE a.AIID = m.PERSONA_ID)",
    "building line of a missing building":
        "SELECT count(*) FROM building_history h WHERE NOT EXISTS "
        "(SELECT 1 FROM building b WHERE b.BUILDINGID = h.BUILDINGID)",
    "tag of a missing memory message":
        "SELECT count(*) FROM saimemory_tag t WHERE NOT EXISTS (SELECT 1 FROM saimemory m WHERE m.ID = t.MESSAGE_ID)",
    "place of a missing item":
        "SELECT count(*) FROM item_location l WHERE NOT EXISTS (SELECT 1 FROM item i WHERE i.ITEM_ID = l.ITEM_ID)",
}
"""Rows that must always have their parent (both stores; the app deletes children with the parent)."""


@dataclass
class Store:
    """How a test reaches the city's database, whichever store it lives in."""

    kind: str
    home: Path
    url: str | None = None
    """SAIVERSE_DATABASE_URL for PostgreSQL; None for the home's SQLite file."""

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """Plain SQL with `?` placeholders, on either store."""
        if self.url is None:
            conn = sqlite3.connect(self.home / "saiverse.db")
            try:
                with conn:  # commits a write
                    return list(conn.execute(query, params).fetchall())
            finally:
                conn.close()
        import psycopg

        from saiverse.pulse._remote import libpq_url

        with psycopg.connect(libpq_url(self.url), autocommit=True) as pg:
            cur = pg.execute(query.replace("?", "%s"), params)  # type: ignore[arg-type]
            return list(cur.fetchall()) if cur.description else []

    def check_consistent(self) -> str:
        """The database's own check, and no orphaned rows; returns what was checked (for the report)."""
        if self.url is None:
            assert self.rows("PRAGMA integrity_check") == [("ok",)]
            checked = "PRAGMA integrity_check ok"
        else:
            checked = self._amcheck()
        for what, query in ORPHAN_CHECKS.items():
            assert self.rows(query) == [(0,)], what
        return checked

    def _amcheck(self) -> str:
        import psycopg

        from saiverse.pulse._remote import libpq_url

        with psycopg.connect(libpq_url(str(self.url)), autocommit=True) as pg:
            pg.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
            tables = [r[0] for r in pg.execute(
                "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind = 'r'").fetchall()]
            for table in tables:
                bad = pg.execute("SELECT blkno, offnum, msg FROM verify_heapam(%s::regclass)", (table,)).fetchall()
                assert not bad, f"{table}: {bad[:3]}"
            indexes = [r[0] for r in pg.execute(
                "SELECT c.oid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = "
                "c.relam JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
                "AND a.amname = 'btree' AND i.indisvalid").fetchall()]
            for oid in indexes:
                pg.execute("SELECT bt_index_check(%s, true)", (oid,))
        return f"amcheck ok ({len(tables)} tables, {len(indexes)} B-tree indexes)"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The test's city in SQLite (the home) or in a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield Store("sqlite", saiverse_home)
        return
    url = request.getfixturevalue("pg_url")
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", url)
    yield Store("postgres", saiverse_home, url)
