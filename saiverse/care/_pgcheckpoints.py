"""Production checkpoints between the backends: PostgresSaver's tables ↔ a SqliteSaver `checkpoints.db`.

A production run checkpoints through LangGraph's own savers (sea/production/engine.py): SqliteSaver in
the home's `checkpoints.db`, PostgresSaver in a PostgreSQL city's database. Their tables differ, so a
copy goes through the savers' public API rather than their SQL: every checkpoint is `list`ed from
the source (newest first, so written oldest first, each after its parent) and `put` into the target
with all its channel versions, and its pending writes are `put_writes` per task. A run restored or
moved this way resumes and reports as it did before the copy.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, inspect


def _copy(source: Any, target: Any) -> int:
    tuples = list(source.list(None))
    for item in reversed(tuples):
        conf = item.config["configurable"]
        parent = {"configurable": {"thread_id": conf["thread_id"], "checkpoint_ns": conf.get("checkpoint_ns", "")}}
        if item.parent_config is not None:
            parent["configurable"]["checkpoint_id"] = item.parent_config["configurable"]["checkpoint_id"]
        saved = target.put(parent, item.checkpoint, item.metadata, dict(item.checkpoint["channel_versions"]))
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in item.pending_writes or ():
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            target.put_writes(saved, writes, task_id)
    return len(tuples)


def has_pg_checkpoints(conn: Connection) -> bool:
    """Whether the city's database holds PostgresSaver's tables (a city that never made a picture book has none)."""
    return {"checkpoints", "checkpoint_blobs", "checkpoint_writes"} <= set(inspect(conn).get_table_names())


def pg_checkpoints_into_sqlite(conn: Connection, dest: Path) -> int:
    """The checkpoints `conn`'s open snapshot sees, into a new SqliteSaver file `dest`; how many.

    Nothing is written when the city has no checkpoint tables."""
    if not has_pg_checkpoints(conn):
        return 0
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    source = PostgresSaver(conn.connection.driver_connection)  # the snapshot's own transaction
    sink = sqlite3.connect(dest, check_same_thread=False)
    try:
        target = SqliteSaver(sink)
        target.setup()
        n = _copy(source, target)
        sink.commit()
        sink.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, like a snapshot of the home's
    finally:
        sink.close()
    return n


def setup_pg_checkpoints(url: str) -> None:
    """PostgresSaver's tables in the city's database (its `setup()` builds indexes CONCURRENTLY, which
    cannot run inside a transaction: so this runs before, autocommit, and leaves only empty tables)."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    with psycopg.connect("postgresql://" + url.split("://", 1)[1], autocommit=True, prepare_threshold=0,
                         row_factory=dict_row) as conn:
        PostgresSaver(conn).setup()  # type: ignore[arg-type]


def sqlite_checkpoints_into_pg(source_path: Path, conn: Connection) -> int:
    """The checkpoints of a SqliteSaver file into `conn`'s open transaction (tables made by
    `setup_pg_checkpoints`); how many."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    src = sqlite3.connect(source_path, check_same_thread=False)
    try:
        names = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "checkpoints" not in names:
            return 0
        return _copy(SqliteSaver(src), PostgresSaver(conn.connection.driver_connection))
    finally:
        src.close()
