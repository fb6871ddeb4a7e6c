"""What every phase of an import shares: the source, the target transaction, the report, the files."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from saiverse.importer.files import FileStager
from saiverse.importer.progress import Progress
from saiverse.importer.report import ImportReport
from saiverse.importer.source import SourceHome, table_columns
from saiverse.importer.target import TargetState

BATCH = 2000
"""Rows per executemany: memory stays flat however large the source is."""


@dataclass
class Context:
    """State of one import, passed from phase to phase."""

    source: SourceHome
    src: sqlite3.Connection
    """The upstream main database, read-only."""
    db: sqlite3.Connection
    """The target database, inside the import transaction."""
    state: TargetState
    report: ImportReport
    stager: FileStager
    progress: Progress
    scratch: Path
    """Where copies of source databases with pending WAL content are read."""
    connection: Connection
    """The SQLAlchemy connection of `db` (for code written against `Database`)."""
    now: datetime = field(default_factory=datetime.now)
    city_ids: dict[Any, str] = field(default_factory=dict)
    """Upstream CITYID → our CITYID (the upstream city name)."""
    city_names: dict[str, str] = field(default_factory=dict)
    """Our CITYID → the upstream CITYNAME (the folder of its building logs)."""
    source_buildings: dict[str, str] = field(default_factory=dict)
    """Upstream building id → our CITYID."""
    buildings_ok: set[str] = field(default_factory=set)
    """Buildings whose history is imported: new ones, and those of an earlier SAIVerse import."""
    personas_ok: set[str] = field(default_factory=set)
    """Personas whose memory, schedules and events are imported (same rule as buildings_ok)."""
    persona_names: dict[str, str] = field(default_factory=dict)
    user_name: str = "あなた"

    def in_target(self, building_id: str | None) -> bool:
        """Whether a building exists in the target once this import commits."""
        return bool(building_id) and (building_id in self.state.buildings or building_id in self.buildings_ok)


def rows(conn: sqlite3.Connection, table: str, order: str = "rowid") -> list[dict[str, Any]]:
    """Every row of a small upstream table as a dict of its columns (empty if the table is missing)."""
    if not table_columns(conn, table):
        return []
    cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY {order}')
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur]
