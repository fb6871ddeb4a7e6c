"""Chronicle (upstream "arasuji"): reading a persona's rolling summaries of older conversation.

A level-1 entry summarises a batch of SAIMemory messages; a level-n entry summarises level-(n-1)
entries, which are then marked consolidated and point to it (`PARENT_ID`). Each entry keeps its
source ids, time range and message count. Building entries is `saiverse/memory/_chronicle_build.py`.

Entries imported from upstream are used as they are: their source ids are upstream message uuids
(the importer keeps them as `saimemory.EXTERNAL_ID`) where ours are our integer ids as text, and
their times may be epoch seconds. A row that cannot be read (source ids that are not a JSON list,
no level, no content) is listed with its `problem` and never used as a summary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, text

from database import Database
from saiverse.memory._common import LongTermMemoryError, iso, parse_time
from saiverse.memory._store import query_terms

ENTRY_COLUMNS = ("ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, START_TIME, END_TIME, SOURCE_COUNT, MESSAGE_COUNT, PARENT_ID, "
         "IS_CONSOLIDATED, CREATED_AT")


@dataclass
class Entry:
    """One Chronicle entry (`problem` is set when the stored row is broken)."""

    entry_id: str
    level: int
    content: str
    source_ids: list[str] = field(default_factory=list)
    start: datetime | None = None
    end: datetime | None = None
    source_count: int = 0
    message_count: int = 0
    parent_id: str | None = None
    is_consolidated: bool = False
    created_at: datetime | None = None
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id, "level": self.level, "content": self.content, "source_ids": self.source_ids,
            "start_time": iso(self.start), "end_time": iso(self.end), "source_count": self.source_count,
            "message_count": self.message_count, "parent_id": self.parent_id,
            "is_consolidated": self.is_consolidated, "created_at": iso(self.created_at), "problem": self.problem,
        }


def _ids_ok(checked: Any) -> bool:
    """SQLite's verdict on SOURCE_IDS (1/0), or PostgreSQL's raw text: a JSON array?"""
    if not isinstance(checked, str):
        return bool(checked)
    try:
        return isinstance(json.loads(checked), list)
    except ValueError:
        return False


def entry_from_row(row: Any) -> Entry:
    """A stored row as an `Entry`; what is wrong with it goes to `problem` instead of raising."""
    problems: list[str] = []
    try:
        level = int(row[1])
        if level < 1:
            raise ValueError
    except (TypeError, ValueError):
        level = 0
        problems.append(f"LEVEL {row[1]!r} は 1 以上の整数ではありません")
    try:
        ids = json.loads(row[3]) if isinstance(row[3], str) else row[3]
        if not isinstance(ids, list) or not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in ids):
            raise ValueError
        source_ids = [str(i) for i in ids]
    except ValueError:
        source_ids = []
        problems.append("SOURCE_IDS が ID の JSON 配列ではありません")
    content = row[2] if isinstance(row[2], str) else ""
    if not content.strip():
        problems.append("CONTENT が空です")

    def count(raw: Any) -> int:
        try:
            return max(int(raw or 0), 0)
        except (TypeError, ValueError):
            return 0

    return Entry(
        entry_id=str(row[0]), level=level, content=content, source_ids=source_ids, start=parse_time(row[4]),
        end=parse_time(row[5]), source_count=count(row[6]) or len(source_ids), message_count=count(row[7]),
        parent_id=row[8], is_consolidated=bool(row[9]), created_at=parse_time(row[10]),
        problem="、".join(problems) or None,
    )


def parse_day(value: str | None, what: str, *, end: bool = False) -> datetime | None:
    """`YYYY-MM-DD` as the start of that local day (or of the next, for an end bound), in naive UTC
    like the stored times: a persona reads times and Chronicle dates in local time (tools/text.py)."""
    if value is None or not str(value).strip():
        return None
    try:
        day = datetime.strptime(str(value).strip()[:10], "%Y-%m-%d")
    except ValueError as exc:
        raise LongTermMemoryError(f"{what} {value!r} は YYYY-MM-DD の形の日付ではありません。") from exc
    day = day + timedelta(days=1) if end else day
    return day.astimezone(UTC).replace(tzinfo=None)  # a naive datetime's astimezone() reads it as local


class ChronicleStore:
    """Chronicle entries of every persona, in the main database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.writes = 0
        """Entries written through this process (builders count them; prompt snapshots watch it)."""

    def _select(self, conn: Connection, persona_id: str, where: str = "", args: dict[str, Any] | None = None,
                tail: str = "") -> list[Entry]:
        sql = f"SELECT {ENTRY_COLUMNS} FROM chronicle_entry WHERE PERSONA_ID = :p {where} {tail}"
        return [entry_from_row(r) for r in conn.execute(text(sql), {"p": persona_id, **(args or {})})]

    def entries(self, persona_id: str, *, level: int | None = None, before: datetime | None = None,
                limit: int = 200) -> list[Entry]:
        """Entries newest first (by end time), of one level or all, ending before `before` if given."""
        where, args = ("AND LEVEL = :lv", {"lv": level}) if level is not None else ("", {})
        with self.db.engine.connect() as conn:
            found = self._select(conn, persona_id, where, args)
        # Sorted here, not in SQL: imported rows may keep epoch seconds where ours keep text.
        found.sort(key=lambda e: (e.end or datetime.min, e.level), reverse=True)
        if before is not None:
            found = [e for e in found if (e.end or datetime.min) < before]
        return found[:max(int(limit), 0)]

    def levels(self, persona_id: str) -> dict[int, int]:
        """level → how many entries the persona has at it."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT LEVEL, count(*) FROM chronicle_entry WHERE PERSONA_ID = :p GROUP BY LEVEL"), {"p": persona_id})
            return {int(r[0]): int(r[1]) for r in rows if isinstance(r[0], int)}

    def count(self, persona_id: str) -> int:
        """How many entries the persona has."""
        return sum(self.levels(persona_id).values())

    def get(self, persona_id: str, entry_id: str) -> Entry:
        """One entry; an unknown id is an error naming it."""
        with self.db.engine.connect() as conn:
            found = self._select(conn, persona_id, "AND ENTRY_ID = :id", {"id": (entry_id or "").strip()})
        if not found:
            raise LongTermMemoryError(
                f"Chronicle にエントリ {entry_id!r} はありません。chronicle_search で探してください。")
        return found[0]

    def context_candidates(self, persona_id: str, *, per_level: int = 12) -> list[Entry]:
        """The newest unconsolidated, readable entries of each level, newest first: what a prompt's
        summary of the past is chosen from. Each level is read newest first from its index and
        stops at `per_level`, so it stays fast however many entries there are; source ids are
        checked in SQL (`json_valid`) and not read."""
        found: list[Entry] = []
        with self.db.engine.connect() as conn:
            # PostgreSQL (15) has no json_valid: there the few rows' ids are read and checked here instead.
            ids_check = ("SOURCE_IDS" if conn.dialect.name == "postgresql"
                         else "CASE WHEN json_valid(SOURCE_IDS) THEN json_type(SOURCE_IDS) = 'array' ELSE 0 END")
            level: Any = 0
            for _ in range(32):
                # The next level present, by an index seek; SQLite sorts text after numbers, so an
                # imported non-integer LEVEL ends the walk.
                level = conn.execute(text(
                    "SELECT LEVEL FROM chronicle_entry WHERE PERSONA_ID = :p AND LEVEL > :lv ORDER BY LEVEL LIMIT 1"),
                    {"p": persona_id, "lv": level}).scalar()
                if not isinstance(level, int):
                    break
                # The newest rows of the level only: entries are consolidated oldest first, so the open
                # ones are among the newest, and the walk never goes through a long consolidated past.
                rows = conn.execute(text(
                    "SELECT ENTRY_ID, LEVEL, CONTENT, '[]', START_TIME, END_TIME, SOURCE_COUNT, MESSAGE_COUNT, "
                    f"PARENT_ID, IS_CONSOLIDATED, CREATED_AT, {ids_check} "
                    "FROM chronicle_entry WHERE PERSONA_ID = :p AND LEVEL = :lv ORDER BY END_TIME DESC LIMIT :n"),
                    {"p": persona_id, "lv": level, "n": per_level * 2})
                found += [entry_from_row(r) for r in rows if _ids_ok(r[11]) and not r[9]][:per_level]
        usable = [e for e in found if e.problem is None and e.end is not None]
        return sorted(usable, key=lambda e: e.end or datetime.min, reverse=True)

    def search(self, persona_id: str, query: str | None = None, *, start: datetime | None = None,
               end: datetime | None = None, level: int | None = None, limit: int = 10) -> list[Entry]:
        """Entries containing every term of `query` whose time range meets [start, end), newest first."""
        where, args = "", {}
        for i, term in enumerate(query_terms(query or "")):
            where += f" AND instr(lower(CONTENT), :t{i}) > 0"
            args[f"t{i}"] = term
        if level:
            where += " AND LEVEL = :lv"
            args["lv"] = int(level)
        with self.db.engine.connect() as conn:
            found = self._select(conn, persona_id, where, args)
        out = [e for e in found if e.problem is None
               and (start is None or (e.end or e.start or datetime.max) >= start)
               and (end is None or (e.start or e.end or datetime.min) < end)]
        out.sort(key=lambda e: (e.end or datetime.min, e.level), reverse=True)
        return out[:max(int(limit), 0)]

    def search_any(self, persona_id: str, terms: Sequence[str], *, limit: int = 200) -> list[Entry]:
        """Entries containing any of `terms` (lower-case substrings), newest first, in one scan: recall's
        candidates (saiverse/memory/_recall.py ranks them)."""
        if not terms:
            return []
        args: dict[str, Any] = {f"t{i}": t for i, t in enumerate(terms)}
        where = "AND (" + " OR ".join(f"instr(lower(CONTENT), :t{i}) > 0" for i in range(len(terms))) + ")"
        with self.db.engine.connect() as conn:
            found = self._select(conn, persona_id, where, args, tail=f"ORDER BY END_TIME DESC LIMIT {int(limit)}")
        return [e for e in found if e.problem is None]

    def children(self, persona_id: str, entry: Entry) -> list[Entry]:
        """The entries a level-2+ entry summarises, oldest first (those that still exist)."""
        if entry.level < 2 or not entry.source_ids:
            return []
        with self.db.engine.connect() as conn:
            stmt = text(f"SELECT {ENTRY_COLUMNS} FROM chronicle_entry WHERE PERSONA_ID = :p "
                        "AND ENTRY_ID IN :ids").bindparams(bindparam("ids", expanding=True))
            rows = [entry_from_row(r) for r in conn.execute(stmt, {"p": persona_id, "ids": entry.source_ids})]
        order = {sid: i for i, sid in enumerate(entry.source_ids)}
        return sorted(rows, key=lambda e: order.get(e.entry_id, 0))

    def source_messages(self, persona_id: str, entry: Entry, limit: int = 20) -> list[dict[str, Any]]:
        """The messages a level-1 entry summarises, oldest first: its source ids are our message ids
        or upstream message uuids (kept as EXTERNAL_ID by the importer); both are found."""
        if entry.level != 1 or not entry.source_ids:
            return []
        wanted = entry.source_ids[:max(int(limit), 0)]
        ints = [int(s) for s in wanted if s.isdigit()]
        with self.db.engine.connect() as conn:
            stmt = text(
                "SELECT ID, ROLE, CONTENT, CREATED_AT, EXTERNAL_ID FROM saimemory WHERE PERSONA_ID = :p "
                "AND (ID IN :ints OR EXTERNAL_ID IN :ext)").bindparams(
                bindparam("ints", expanding=True), bindparam("ext", expanding=True))
            rows = list(conn.execute(stmt, {"p": persona_id, "ints": ints or [-1], "ext": wanted}))
        by_key: dict[str, Any] = {}
        for r in rows:
            by_key[str(r[0])] = r
            if r[4]:
                by_key[str(r[4])] = r
        out = []
        for sid in wanted:
            r = by_key.get(sid)
            if r is not None:
                out.append({"id": int(r[0]), "role": r[1], "content": r[2], "created_at": iso(parse_time(r[3]))})
        return out
