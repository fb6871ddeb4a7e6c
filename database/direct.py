"""The hottest write statements, run on SQLite's own cursor inside a SQLAlchemy transaction.

Every message said is written by a few plain statements (its SAIMemory row and tag rows, its
building line). SQLAlchemy's Core execution spends ~16 µs of Python on each (execution context,
parameter processing, result set-up) around a ~3 µs sqlite3 call; a user's turn runs six of them
(docs/ARCHITECTURE.md, "What a pulse costs"). Here a `text()` statement runs on the DBAPI connection
of the caller's `Connection` instead: sqlite3 takes its `:name` parameters as they are, the write
joins the transaction the caller opened (pysqlite begins it at the first write either way; the
caller's commit or rollback ends it), and a driver error is raised as SQLAlchemy's (`DBAPIError`
subclasses: `OperationalError` for a locked database), as if SQLAlchemy had run it.

Anything else — PostgreSQL, an ORM session, a connection with no transaction begun (its pool would
roll a write back on return) — runs through SQLAlchemy as before.

Reads every user's turn makes (its building and persona by key, `read_row`; the kept snapshot's new
lines, `read_all`) run the same way, with or without a transaction: a SELECT needs none on SQLite.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable
from sqlalchemy.sql.elements import TextClause


def _driver(conn: Session | Connection) -> Any:
    """The sqlite3 connection under `conn` when the direct path applies, else None."""
    if not isinstance(conn, Connection) or conn.dialect.name != "sqlite" or not conn.in_transaction():
        return None
    return conn.connection.driver_connection


class _as_sqlalchemy:  # noqa: N801 - used as `with _as_sqlalchemy(conn, sql):`
    """A driver error raised inside, as SQLAlchemy would have raised it (`OperationalError` for a locked
    database); never with the parameters (they hold what the user said). A class, not a generator
    `@contextmanager`: a turn enters it for each of its ~9 statements (0.2 against 0.9 µs a time)."""

    __slots__ = ("conn", "sql")

    def __init__(self, conn: Connection, sql: str) -> None:
        self.conn, self.sql = conn, sql

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: Any) -> bool:
        dbapi = self.conn.dialect.loaded_dbapi
        if kind is not None and issubclass(kind, dbapi.Error):
            raise DBAPIError.instance(self.sql, None, err, dbapi.Error, hide_parameters=True,  # type: ignore[arg-type]
                                      dialect=self.conn.dialect) from err
        return False


def sqlite_sql(stmt: Executable) -> str:
    """A Core statement as SQLite text with `:name` parameters (compiled once, for `read_row`)."""
    return str(stmt.compile(dialect=sqlite.dialect(paramstyle="named")))  # type: ignore[attr-defined]


def read_row(conn: Connection, stmt: Executable, sql: str, params: dict[str, Any]) -> Any:
    """The first row of `stmt` (`sql` is it as `sqlite_sql` made it): on SQLite's own cursor there,
    through SQLAlchemy elsewhere. Only for statements whose columns need no result processing."""
    if conn.dialect.name != "sqlite":
        return conn.execute(stmt, params).first()
    with _as_sqlalchemy(conn, sql):
        return conn.connection.driver_connection.execute(sql, params).fetchone()


def read_all(conn: Connection, stmt: TextClause, params: dict[str, Any]) -> list[Any]:
    """Every row of a plain `text()` SELECT: on SQLite's own cursor there, through SQLAlchemy elsewhere."""
    if conn.dialect.name != "sqlite":
        return list(conn.execute(stmt, params))
    with _as_sqlalchemy(conn, stmt.text):
        return conn.connection.driver_connection.execute(stmt.text, params).fetchall()


def fetch_one(conn: Session | Connection, stmt: TextClause, params: dict[str, Any]) -> Any:
    """Run `stmt` with `params` and return its first row (a `RETURNING` insert's new id, say)."""
    raw = _driver(conn)
    if raw is None:
        return conn.execute(stmt, params).first()
    with _as_sqlalchemy(conn, stmt.text):  # type: ignore[arg-type]
        return raw.execute(stmt.text, params).fetchone()


def run_many(conn: Session | Connection, stmt: TextClause, rows: list[dict[str, Any]]) -> None:
    """Run `stmt` once per row of `rows` (no result)."""
    if not rows:
        return
    raw = _driver(conn)
    if raw is None:
        conn.execute(stmt, rows)
        return
    with _as_sqlalchemy(conn, stmt.text):  # type: ignore[arg-type]
        if len(rows) == 1:
            raw.execute(stmt.text, rows[0])
        else:
            raw.executemany(stmt.text, rows)
