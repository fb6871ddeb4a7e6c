"""Settings kept in the world's database (`world_setting`), not in settings.json: they belong to
this city, travel with its backup and survive a restart. The 自律 switch is one (`autonomous`)."""

from __future__ import annotations

from datetime import datetime
from importlib import import_module

from database import Database
from database.models import WorldSetting

AUTONOMOUS = "autonomous"
"""Whether autonomous mode is on: `auto` personas take turns on their own ("1" / "0")."""


class WorldSettings:
    """Read and write the world's own settings; each write is one committed transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str, default: str | None = None) -> str | None:
        with self.db.session() as s:
            row = s.get(WorldSetting, key)
            return row.value if row is not None else default

    def set(self, key: str, value: str) -> None:
        """Insert or replace in one statement, so two writers at once never collide on the key."""
        now = datetime.now()
        with self.db.session() as s:
            # Both dialects speak `INSERT … ON CONFLICT DO UPDATE`; each builds its own statement. Only
            # the one in use is imported (an SQLite home's start never loads the PostgreSQL dialect).
            dialect = "postgresql" if s.get_bind().dialect.name == "postgresql" else "sqlite"
            insert = import_module(f"sqlalchemy.dialects.{dialect}").insert
            stmt = insert(WorldSetting).values(key=key, value=value, updated_at=now)
            s.execute(stmt.on_conflict_do_update(index_elements=[WorldSetting.key],
                                                 set_={WorldSetting.value: value, WorldSetting.updated_at: now}))

    def flag(self, key: str, default: bool = False) -> bool:
        """A yes/no setting ("1" is yes)."""
        value = self.get(key)
        return default if value is None else value == "1"

    def set_flag(self, key: str, on: bool) -> None:
        self.set(key, "1" if on else "0")
