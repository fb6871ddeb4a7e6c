"""Each persona's last autonomous turn, in the world's database (`autonomous_turn`, migration step 11).

Several processes may tick one city — app windows on one PostgreSQL database, pulse workers
(saiverse/pulse/_queue.py), two apps on one SQLite home — and each asks which `auto` personas are
due. A turn is started only by the process that claims it: the stored times are read (a round with
nothing due ends there, writing nothing), then the personas that look due are claimed with one
upsert per building interval, `INSERT … ON CONFLICT (PERSONA_ID) DO UPDATE … WHERE LAST_AT_US <=
:due RETURNING PERSONA_ID`, where `:due` is now less the interval. The database decides: PostgreSQL
locks each conflicting row and evaluates the WHERE on its latest committed version (a second
process ticking at the same moment waits, then finds the turn taken, and gets no row back); SQLite
runs the whole statement inside its one write lock. A persona with no row yet is due (its first
turn), and after a restart the stored times hold, so reopening the city does not start every turn
at once. Rows are claimed in persona order, so two processes never wait on each other in a cycle.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from database import Database

CHUNK = 500
"""Personas claimed per statement (well under SQLite's limit on bound parameters)."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(when: datetime) -> int:
    """`when` as Unix microseconds, exactly (a naive time is the machine's local time, like datetime.now())."""
    aware = when if when.tzinfo is not None else when.astimezone()
    return (aware - _EPOCH) // timedelta(microseconds=1)


class AutonomousTurns:
    """Claims autonomous turns so that, across every process on the city, one starts per interval."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim(self, due: Iterable[tuple[str, int]], now: datetime) -> set[str]:
        """The personas of `due` ((persona id, interval in seconds)) whose turn this process now takes:
        those with no turn in the last `interval` seconds, recorded as taken at `now` in the same
        statement. A persona another process claimed first is not among them."""
        at = micros(now)
        with self.db.engine.connect() as conn:  # a plain read first: a tick with nothing due writes nothing
            last = {r[0]: int(r[1]) for r in conn.execute(text("SELECT PERSONA_ID, LAST_AT_US FROM autonomous_turn"))}
        by_interval: dict[int, list[str]] = defaultdict(list)
        for persona_id, interval in due:
            seen = last.get(persona_id)
            if seen is None or seen <= at - int(interval) * 1_000_000:
                by_interval[int(interval)].append(persona_id)
        won: set[str] = set()
        if not by_interval:
            return won
        with self.db.session() as s:
            for interval, personas in sorted(by_interval.items()):
                ordered = sorted(set(personas))
                for start in range(0, len(ordered), CHUNK):
                    chunk = ordered[start:start + CHUNK]
                    params: dict[str, object] = {"at": at, "due": at - interval * 1_000_000}
                    params.update({f"p{i}": p for i, p in enumerate(chunk)})
                    values = ", ".join(f"(:p{i}, :at)" for i in range(len(chunk)))
                    won.update(s.execute(text(
                        f"INSERT INTO autonomous_turn (PERSONA_ID, LAST_AT_US) VALUES {values} "
                        "ON CONFLICT (PERSONA_ID) DO UPDATE SET LAST_AT_US = excluded.LAST_AT_US "
                        "WHERE autonomous_turn.LAST_AT_US <= :due RETURNING PERSONA_ID"), params).scalars())
        return won

    def last(self, persona_id: str) -> datetime | None:
        """When the persona's last autonomous turn was taken (UTC), if it ever took one."""
        with self.db.session() as s:
            value = s.execute(text("SELECT LAST_AT_US FROM autonomous_turn WHERE PERSONA_ID = :p"),
                              {"p": persona_id}).scalar()
        return None if value is None else _EPOCH + timedelta(microseconds=int(value))
