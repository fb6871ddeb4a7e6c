"""Persistence: SQLAlchemy models (`database.models`), engine/session setup (`database.engine`)
and the migration chain (`database.migrate`, also a script)."""

from database.engine import Database, make_engine

__all__ = ["Database", "make_engine"]
