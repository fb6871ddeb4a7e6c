"""Search in one building's chat: the lines whose text contains every word asked for, newest first."""

from __future__ import annotations

from sqlalchemy import select

from database import Database
from database.models import BuildingHistory
from saiverse.world._world import HistoryEntry, _entry

MAX_QUERY_CHARS = 200
"""A longer query is cut: nobody types more into a search box, and each word is one LIKE."""


def _like(word: str) -> str:
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def search_history(db: Database, building_id: str, query: str, *, limit: int = 50) -> list[HistoryEntry]:
    """Lines of `building_id` containing every word of `query` (case-insensitive), newest first.

    An empty query finds nothing. `%` and `_` are matched as themselves."""
    words = [w for w in query[:MAX_QUERY_CHARS].split() if w]
    if not words:
        return []
    q = select(BuildingHistory).where(BuildingHistory.building_id == building_id)
    for word in words:
        q = q.where(BuildingHistory.content.ilike(_like(word), escape="\\"))
    with db.session() as s:
        rows = s.scalars(q.order_by(BuildingHistory.id.desc()).limit(max(1, min(int(limit), 500)))).all()
        return [_entry(h) for h in rows]
