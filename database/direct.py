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
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import TextClause


def _driver(conn: Session | Connection) -> Any:
    """The sqlite3 connection under `conn` when the direct path applies, else None."""
    if not isinstance(conn, Connection) or conn.dialect.name != "sqlite" or not conn.in_transaction():
        return None
    return conn.connection.driver_connection


def _raise(conn: Connection, stmt: TextClause, err: Exception) -> None:
    dbapi = conn.dialect.loaded_dbapi
    if isinstance(err, dbapi.Error):
        # As SQLAlchemy wraps it; never the parameters (they hold what the user said).
        raise DBAPIError.instance(stmt.text, None, err, dbapi.Error, hide_parameters=True,
                                  dialect=conn.dialect) from err
    raise err


def fetch_one(conn: Session | Connection, stmt: TextClause, params: dict[str, Any]) -> Any:
    """Run `stmt` with `params` and return its first row (a `RETURNING` insert's new id, say)."""
    raw = _driver(conn)
    if raw is None:
        return conn.execute(stmt, params).first()
    try:
        return raw.execute(stmt.text, params).fetchone()
    except Exception as err:  # noqa: BLE001 - re-raised as SQLAlchemy's error, or as it is
        _raise(conn, stmt, err)  # type: ignore[arg-type]
        raise


def run_many(conn: Session | Connection, stmt: TextClause, rows: list[dict[str, Any]]) -> None:
    """Run `stmt` once per row of `rows` (no result)."""
    if not rows:
        return
    raw = _driver(conn)
    if raw is None:
        conn.execute(stmt, rows)
        return
    try:
        if len(rows) == 1:
            raw.execute(stmt.text, rows[0])
        else:
            raw.executemany(stmt.text, rows)
    except Exception as err:  # noqa: BLE001 - re-raised as SQLAlchemy's error, or as it is
        _raise(conn, stmt, err)  # type: ignore[arg-type]
        raise
