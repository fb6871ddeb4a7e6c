"""Persistence: SQLAlchemy models, engine/session setup and the migration chain."""

from database.engine import Database, make_engine
from database.migrate import LATEST_VERSION, MigrationError, migrate

__all__ = ["Database", "make_engine", "migrate", "MigrationError", "LATEST_VERSION"]
