"""The upstream home being imported: where it is, and its SQLite files opened without writing to them.

Upstream's default home is `~/.saiverse`, the same as ours, so a user may point at the home folder or
straight at `user_data/database/saiverse.db`; both are accepted. Nothing under the source is ever
written. That rules out a plain `mode=ro` open for upstream's WAL-mode memory databases: SQLite
then creates `-wal`/`-shm` files beside them (and writes read marks into an existing `-shm`). So a
file without pending WAL content is opened `immutable=1` (no locks, no side files), and a file whose
`-wal` (or rollback `-journal`) holds writes not yet in the main file is copied, with that file, into
a scratch folder of the target home and read from there, where SQLite may replay it.
"""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from database.migrate import (
    SQLITE_MAGIC,
    UpstreamDatabaseError,
    is_upstream_database,
    upstream_home_of,
    upstream_refusal,
)
from saiverse.errors import UserError
from saiverse.world import UnsafePathError, resolve_in_home

DB_RELATIVE = Path("user_data") / "database" / "saiverse.db"


FETCH = 2000


class ImportRefused(UserError, ValueError):
    """The import cannot start (bad source, bad target); the message says why and nothing was changed."""


class SourceDamaged(Exception):
    """A source database could not be read; the part it holds is skipped and reported."""


@dataclass(frozen=True)
class SourceHome:
    """A located upstream data home."""

    home: Path
    db_path: Path

    def inside(self, rel: str | Path) -> Path | None:
        """`home / rel` resolved, or None when it (through a link or `..`) leads outside the home."""
        return inside(self.home, rel)

    def persona_dir(self, persona_id: str) -> Path | None:
        """`personas/<id>` of the source (None if the id would lead outside the home)."""
        return inside(self.home, f"personas/{persona_id}")


def inside(home: Path, rel: str | Path) -> Path | None:
    """`home / rel` resolved, or None when it (through a link or `..`) leads outside `home`: the importer
    reads its source only inside the upstream home."""
    try:
        return resolve_in_home(home, rel)
    except UnsafePathError:
        return None


def locate(path: Path) -> SourceHome:
    """The upstream home at `path` (its folder, or the path of its `saiverse.db`)."""
    path = path.expanduser()
    if not path.exists():
        raise ImportRefused(f"{path} does not exist: give the folder of an upstream SAIVerse data home "
                            f"(the one holding {DB_RELATIVE}) or the path of its saiverse.db.")
    path = path.resolve()
    if path.is_dir():
        db = path / DB_RELATIVE
        if not db.is_file():
            if (path / "saiverse.db").is_file():
                raise ImportRefused(f"{path} holds saiverse.db at its top: that is a home of this app, not an "
                                    f"upstream SAIVerse home (which keeps it in {DB_RELATIVE}).")
            raise ImportRefused(f"{path} is not an upstream SAIVerse data home: {DB_RELATIVE} is missing.")
        home = path
    else:
        db, home = path, upstream_home_of(path)
    with db.open("rb") as fh:
        if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise ImportRefused(f"{db} is not a SQLite database.")
    try:
        with open_readonly(db, None) as conn:
            upstream = is_upstream_database(conn)
    except sqlite3.DatabaseError as exc:
        raise ImportRefused(f"{db} cannot be read as a SQLite database ({exc}).") from exc
    if not upstream:
        raise ImportRefused(f"{db} is not an upstream SAIVerse database (no building_occupancy_log table, no "
                            "ai.HOME_CITYID column); if it is a database of this app, it needs no import.")
    return SourceHome(home=home, db_path=db)


def refuse_upstream_home(home: Path, db_path: Path | None) -> None:
    """Refuse to make a new database of ours inside an upstream home (both default to ~/.saiverse).

    Our `image/` and `documents/` would mix with upstream's; the message names the import command.
    A home where this app already has its database is left alone.
    """
    upstream_db = home / DB_RELATIVE
    if upstream_db.is_file() and not (db_path is not None and db_path.exists()):
        raise UpstreamDatabaseError(upstream_refusal(f"{home} (its {DB_RELATIVE})", home.resolve()))


def _pending_side_file(path: Path) -> Path | None:
    for suffix in ("-wal", "-journal"):
        side = path.with_name(path.name + suffix)
        # a side file that is a link is never followed (it could lead out of the home): the file alone is read
        if not side.is_symlink() and side.is_file() and side.stat().st_size > 0:
            return side
    return None


@contextmanager
def open_readonly(path: Path, scratch: Path | None) -> Iterator[sqlite3.Connection]:
    """A connection reading `path` that can never change it or create files beside it."""
    side = _pending_side_file(path)
    if side is None or scratch is None:
        # Without a scratch folder (locating only) pending WAL content is ignored: the schema is enough.
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            yield conn
        finally:
            conn.close()
        return
    folder = scratch / uuid.uuid4().hex
    folder.mkdir(parents=True)
    copy = folder / path.name
    try:
        shutil.copyfile(path, copy)
        shutil.copyfile(side, copy.with_name(copy.name + side.name[len(path.name):]))
        conn = sqlite3.connect(copy)
        try:
            yield conn
        finally:
            conn.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def table_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """Column names of `table` (empty when the table does not exist)."""
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


# Reading a per-persona database: every SQLite error becomes SourceDamaged, so damage in the source
# is told apart from a failure of the target (which aborts the whole import).

def has_table(conn: sqlite3.Connection, table: str) -> bool:
    try:
        return bool(table_columns(conn, table))
    except sqlite3.DatabaseError as exc:
        raise SourceDamaged(str(exc)) from exc


def read(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The rows of a source query, fetched in batches."""
    try:
        cur = conn.execute(sql, params)
        while chunk := cur.fetchmany(FETCH):
            yield from chunk
    except sqlite3.DatabaseError as exc:
        raise SourceDamaged(str(exc)) from exc


def select(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], order: str = "rowid") -> str:
    """The SELECT of `columns` from `table`, NULL for the columns an older upstream version lacks."""
    try:
        have = table_columns(conn, table)
    except sqlite3.DatabaseError as exc:
        raise SourceDamaged(str(exc)) from exc
    parts = [f'"{c}"' if c in have else "NULL" for c in columns]
    return f'SELECT {", ".join(parts)} FROM "{table}" ORDER BY {order}'


def read_dicts(conn: sqlite3.Connection, table: str) -> Iterator[dict[str, Any]]:
    """Every row of a source table as a dict (nothing if the table is missing)."""
    if not has_table(conn, table):
        return
    try:
        cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
        names = [d[0] for d in cur.description]
        while chunk := cur.fetchmany(FETCH):
            yield from (dict(zip(names, r, strict=True)) for r in chunk)
    except sqlite3.DatabaseError as exc:
        raise SourceDamaged(str(exc)) from exc
