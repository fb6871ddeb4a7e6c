"""SAIMemory: each persona's long-term message store — writing, recent context, recall, export.

Messages live in `saimemory` (role, content, the TAGS JSON list, pulse id, timestamp).
`saimemory_tag` holds one row per tag so `required_tags` filtering uses an index. The automatic
`pulse:<id>` tag is kept in TAGS but not in `saimemory_tag`: the indexed PULSE_ID column already
answers "messages of this pulse", and leaving it out saves ~170 bytes a message.

Recall design (`search`)
------------------------
Japanese has no spaces and its useful terms are often 1-2 characters (猫, 図書), which an FTS5
trigram index silently never finds, while `instr()` over the base table is a full scan. So the
index (`saimemory_fts`, migration step 3) is a contentless FTS5 table holding, per message, every
1-, 2- and 3-character gram of CONTENT plus one persona token `p:<hex of PERSONA_ID>`. SQL
triggers compute the grams (`substr` over a number table), so every writer keeps it current, and
deletes/updates remove exactly what was added. It uses `detail=none` (no positions), which makes
it smaller than the trigram index it replaced (≈0.29 vs 0.35 KB a message at 1M messages; benchmarks/RESULTS-recall.md).

A query is split on whitespace into terms (AND). A term of 1-3 characters is one token; a
longer term becomes the AND of its trigrams. The MATCH string is built only from double-quoted
tokens (inner quotes doubled), so user input is never FTS syntax: `AND`, `NEAR(`, `*`, `"` are
just text. Without positions the trigram AND can over-match (grams present but not adjacent), so
every candidate is re-checked with a case-insensitive substring test on its CONTENT: results are
exactly the messages containing every term.

Ranking: FTS5 walks the matches newest first (`ORDER BY rowid DESC`), which stops early, so the
cost is bounded however common a term is. The newest `SEARCH_WINDOW` verified matches are scored
— relevance is BM25-style saturated term frequency with length normalisation, multiplied by a
recency factor with a 30-day half-life — and the best `limit` returned. The trade-off: for a term
with more than `SEARCH_WINDOW` matches, older matches are not considered (recall prefers the recent
past); with fewer matches, all of them are ranked.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, Any, TypedDict

from sqlalchemy import Connection, bindparam, text
from sqlalchemy.orm import Session

from database import Database
from database.direct import fetch_one, run_many
from saiverse.memory._recall_pg import candidate_ids

ROLES = frozenset({"user", "assistant", "system"})
SEARCH_WINDOW = 300
"""How many of the newest matching messages are ranked by `search`."""
FTS_PAGE = 400
"""Rowids fetched per FTS round; candidates failing the substring re-check cost another round."""
MAX_FTS_ROUNDS = 8
MAX_MATCH_TOKENS = 24
"""Tokens put in MATCH; the substring re-check still applies every term."""
RECENCY_HALF_LIFE_DAYS = 30.0
BM25_K1, BM25_B = 1.2, 0.75

_COLUMNS = "ID, PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT"


class MemoryRecord(TypedDict, total=False):
    """One SAIMemory message as callers see it (`score` only on search results)."""

    id: int
    persona_id: str
    role: str
    content: str
    tags: list[str]
    pulse_id: str | None
    created_at: str
    score: float


def _utc_naive(value: datetime | str | None) -> datetime:
    """Timestamps are stored as naive UTC, like SQLite's CURRENT_TIMESTAMP."""
    if value is None:
        return datetime.now(UTC).replace(tzinfo=None)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def _parse_stored(raw: Any) -> datetime:
    if isinstance(raw, datetime):
        return raw
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError:
        return datetime(1970, 1, 1)


def _record(row: Any) -> MemoryRecord:
    try:
        tags = json.loads(row[4] or "[]")
    except ValueError:
        tags = []
    return MemoryRecord(
        id=int(row[0]), persona_id=row[1], role=row[2], content=row[3],
        tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        pulse_id=row[5], created_at=_parse_stored(row[6]).replace(tzinfo=UTC).isoformat(),
    )


def _is_separator(ch: str) -> bool:
    """Characters the index tokenizer splits on (Unicode Z* and Cc; U+180E was Zs in 6.1)."""
    cat = unicodedata.category(ch)
    return cat[0] == "Z" or cat == "Cc" or ch.isspace() or ch == "\u180e"


def query_terms(query: str) -> list[str]:
    """The AND-ed terms of a query: separator-split, lower-cased, de-duplicated, in order."""
    cleaned = "".join(" " if _is_separator(ch) else ch for ch in query)
    seen: dict[str, None] = {}
    for term in cleaned.lower().split():
        seen.setdefault(term, None)
    return list(seen)


def _fts_phrase(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def match_expression(persona_id: str, terms: Sequence[str]) -> str:
    """The FTS5 MATCH string: quoted tokens only, so no input can be parsed as query syntax."""
    tokens: dict[str, None] = {}
    for term in terms:
        grams = [term] if len(term) <= 3 else [term[i:i + 3] for i in range(len(term) - 2)]
        for gram in grams:
            tokens.setdefault(gram, None)
    # Longer grams are rarer, so they narrow the candidate set most when tokens must be capped.
    chosen = sorted(tokens, key=len, reverse=True)[:MAX_MATCH_TOKENS]
    persona_token = "p:" + persona_id.encode("utf-8").hex()
    return " AND ".join(_fts_phrase(t) for t in [persona_token, *chosen])


def _score(content_lower: str, terms: Sequence[str], avg_len: float, age_days: float) -> float:
    length = max(len(content_lower), 1)
    norm = BM25_K1 * (1 - BM25_B + BM25_B * length / max(avg_len, 1.0))
    relevance = 0.0
    for term in terms:
        tf = content_lower.count(term)
        # Longer terms are more specific, so a hit on them weighs more.
        relevance += (1 + math.log(len(term))) * tf * (BM25_K1 + 1) / (tf + norm)
    recency = 0.5 ** (max(age_days, 0.0) / RECENCY_HALF_LIFE_DAYS)
    return relevance * (0.5 + 0.5 * recency)


def _clean_tags(tags: Iterable[str]) -> list[str]:
    out: dict[str, None] = {}
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip():
            raise ValueError(f"memory tags must be non-empty strings, got {tag!r}")
        out.setdefault(tag.strip(), None)
    return list(out)


_INSERT_MESSAGE = text(  # built once: every message said goes through it
    "INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT, LINE_ROLE, LINE_ID, "
    "SCOPE, ORIGIN_TRACK_ID, PAIRED_ACTION_TEXT) VALUES (:p, :r, :c, :t, :pulse, :at, :lr, :li, :sc, "
    ":ot, :pa) RETURNING ID")  # lastrowid is SQLite's alone
_INSERT_TAG = text("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (:m, :t, :p)")


class SAIMemory:
    """The per-persona message store over a `Database` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ---- writing ------------------------------------------------------------------------------
    def add(
        self,
        persona_id: str,
        role: str,
        content: str,
        *,
        tags: Iterable[str] = (),
        pulse_id: str | None = None,
        created_at: datetime | str | None = None,
        session: Session | Connection | None = None,
        line: dict[str, Any] | None = None,
    ) -> MemoryRecord:
        """Store one message; with `pulse_id` the tag `pulse:<id>` is added automatically. `line`
        holds upstream v0.3's line fields (`line_role`, `line_id`, `scope`, ...; sea/lines.py).

        With `session` (an ORM session or a Core connection), the write joins that transaction
        uncommitted (a pulse commits all of its writes together); otherwise it commits on its own.
        """
        if not isinstance(persona_id, str) or not persona_id.strip():
            raise ValueError("persona_id must be a non-empty string")
        if role not in ROLES:
            raise ValueError(f"role must be one of {sorted(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise ValueError(f"content must be a string, got {type(content).__name__}")
        clean = _clean_tags(tags)
        pulse_tag = f"pulse:{pulse_id}" if pulse_id else None
        if pulse_tag and pulse_tag not in clean:
            clean.append(pulse_tag)
        when = _utc_naive(created_at)
        if session is None:
            with self.db.session() as own:
                return self._insert(own, persona_id, role, content, clean, pulse_id, pulse_tag, when, line)
        return self._insert(session, persona_id, role, content, clean, pulse_id, pulse_tag, when, line)

    @staticmethod
    def _insert(
        s: Session | Connection, persona_id: str, role: str, content: str, tags: list[str],
        pulse_id: str | None, pulse_tag: str | None, when: datetime, line: dict[str, Any] | None = None,
    ) -> MemoryRecord:
        stamp = when.isoformat(sep=" ", timespec="microseconds")
        line = line or {}
        dialect = s.dialect if isinstance(s, Connection) else s.get_bind().dialect
        if "\x00" in content and dialect.name == "postgresql":
            content = content.replace("\x00", "\ufffd")  # PostgreSQL's text cannot hold NUL; SQLite keeps it
        # On SQLite's own cursor inside the caller's transaction (database/direct.py): every message said.
        new_id = int(fetch_one(
            s, _INSERT_MESSAGE,
            {"p": persona_id, "r": role, "c": content, "t": json.dumps(tags, ensure_ascii=False),
             "pulse": pulse_id or None, "at": stamp, "lr": line.get("line_role"), "li": line.get("line_id"),
             "sc": line.get("scope"), "ot": line.get("origin_track_id"), "pa": line.get("paired_action_text")},
        )[0])
        run_many(s, _INSERT_TAG, [{"m": new_id, "t": t, "p": persona_id} for t in tags if t != pulse_tag])
        return MemoryRecord(
            id=new_id, persona_id=persona_id, role=role, content=content, tags=tags,
            pulse_id=pulse_id or None, created_at=when.replace(tzinfo=UTC).isoformat(),
        )

    # ---- reading ------------------------------------------------------------------------------
    @staticmethod
    def _rows(conn: Connection, ids: Iterable[int]) -> list[Any]:
        id_list = sorted(set(ids))
        if not id_list:
            return []
        stmt = text(f"SELECT {_COLUMNS} FROM saimemory WHERE ID IN :ids ORDER BY ID").bindparams(
            bindparam("ids", expanding=True)
        )
        return list(conn.execute(stmt, {"ids": id_list}))

    @staticmethod
    def _ids_with_tag(
        conn: Connection, persona_id: str, tag: str, limit: int, before_id: int | None = None
    ) -> list[int]:
        """Newest ids carrying `tag`, newest first (an automatic pulse tag is the PULSE_ID column)."""
        before = before_id if before_id is not None else 2**63 - 1
        args = {"p": persona_id, "t": tag, "n": limit, "b": before}
        ids = [r[0] for r in conn.execute(text(
            "SELECT MESSAGE_ID FROM saimemory_tag WHERE PERSONA_ID = :p AND TAG = :t "
            "AND MESSAGE_ID < :b ORDER BY MESSAGE_ID DESC LIMIT :n"), args)]
        if tag.startswith("pulse:"):
            args["pulse"] = tag[len("pulse:"):]
            ids += [r[0] for r in conn.execute(text(
                "SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse AND ID < :b "
                "ORDER BY ID DESC LIMIT :n"), args)]
        return sorted(set(ids), reverse=True)[:limit]

    def recent_persona_messages(
        self,
        persona_id: str,
        required_tags: Sequence[str] | None = ("conversation",),
        *,
        pulse_id: str | None = None,
        limit: int = 50,
    ) -> list[MemoryRecord]:
        """Context for a pulse, oldest first.

        The newest `limit` messages carrying any of `required_tags` (all messages when None; none
        when empty), plus every message of `pulse_id` whatever its tags — those are never cut by
        `limit`; that is how sub-playbook results reach the final speak.
        """
        limit = max(int(limit), 0)
        with self.db.engine.connect() as conn:
            if required_tags is None:
                ids = {r[0] for r in conn.execute(text(
                    "SELECT ID FROM saimemory WHERE PERSONA_ID = :p ORDER BY ID DESC LIMIT :n"),
                    {"p": persona_id, "n": limit})}
            else:
                # One index range per tag, each stopping at `limit`, then merged: never a sort of
                # every conversation message the persona has.
                found: set[int] = set()
                for tag in dict.fromkeys(required_tags):
                    found.update(self._ids_with_tag(conn, persona_id, tag, limit))
                ids = set(sorted(found, reverse=True)[:limit])
            if pulse_id:
                ids.update(r[0] for r in conn.execute(text(
                    "SELECT ID FROM saimemory WHERE PERSONA_ID = :p AND PULSE_ID = :pulse"),
                    {"p": persona_id, "pulse": pulse_id}))
            if ids:  # upstream v0.3: a `discardable` line is kept but never fed back into context (sea/lines.py)
                ids -= {r[0] for r in conn.execute(text(
                    "SELECT ID FROM saimemory WHERE ID IN :ids AND SCOPE = 'discardable'").bindparams(
                    bindparam("ids", expanding=True)), {"ids": sorted(ids)})}
            return [_record(r) for r in self._rows(conn, ids)]

    def list_messages(
        self, persona_id: str, *, tag: str | None = None, limit: int = 200, before_id: int | None = None
    ) -> list[MemoryRecord]:
        """Newest first, for browsing; page on with `before_id` = the last id seen."""
        limit = max(int(limit), 0)
        with self.db.engine.connect() as conn:
            if tag is not None:
                ids = self._ids_with_tag(conn, persona_id, tag, limit, before_id)
                rows = self._rows(conn, ids)
            else:
                rows = list(conn.execute(text(
                    f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p AND ID < :b "
                    "ORDER BY ID DESC LIMIT :n"),
                    {"p": persona_id, "n": limit,
                     "b": before_id if before_id is not None else 2**63 - 1}))
        return sorted((_record(r) for r in rows), key=lambda r: r["id"], reverse=True)

    def around(self, persona_id: str, message_id: int, *, before: int, after: int) -> list[MemoryRecord]:
        """The message and up to `before`/`after` messages around it, oldest first ([] if not the persona's).

        A message of a thread (imported from upstream) is read within its thread; ours have none.
        """
        with self.db.engine.connect() as conn:
            anchor = conn.execute(text("SELECT THREAD_ID FROM saimemory WHERE ID = :i AND PERSONA_ID = :p"),
                                  {"i": int(message_id), "p": persona_id}).first()
            if anchor is None:
                return []
            same = "AND THREAD_ID = :t" if anchor[0] is not None else ""
            args = {"i": int(message_id), "p": persona_id, "t": anchor[0],
                    "b": max(int(before), 0), "a": max(int(after), 0) + 1}
            rows = list(conn.execute(text(
                f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p {same} AND ID < :i "
                "ORDER BY ID DESC LIMIT :b"), args))
            rows += list(conn.execute(text(
                f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p {same} AND ID >= :i "
                "ORDER BY ID LIMIT :a"), args))
        return sorted((_record(r) for r in rows), key=lambda r: r["id"])

    def between(self, persona_id: str, start: datetime, end: datetime, *, limit: int = 50) -> list[MemoryRecord]:
        """The persona's messages with `start <= created_at <= end` (oldest first, at most `limit`)."""
        lo = _utc_naive(start).isoformat(sep=" ", timespec="microseconds")
        hi = _utc_naive(end).isoformat(sep=" ", timespec="microseconds")
        with self.db.engine.connect() as conn:
            rows = conn.execute(text(
                f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p AND CREATED_AT >= :lo "
                "AND CREATED_AT <= :hi ORDER BY CREATED_AT, ID LIMIT :n"),
                {"p": persona_id, "lo": lo, "hi": hi, "n": max(int(limit), 0)})
            return [_record(r) for r in rows]

    def delete(self, persona_id: str, message_id: int) -> bool:
        """Remove one of the persona's messages (its tags and index entries go with it)."""
        with self.db.session() as s:
            found = s.execute(text("SELECT 1 FROM saimemory WHERE ID = :i AND PERSONA_ID = :p"),
                              {"i": int(message_id), "p": persona_id}).first()
            if found is None:
                return False
            s.execute(text("DELETE FROM saimemory_tag WHERE MESSAGE_ID = :i"), {"i": int(message_id)})
            s.execute(text("DELETE FROM saimemory WHERE ID = :i"), {"i": int(message_id)})
            return True

    def iter_messages(self, persona_id: str, *, limit: int | None = None) -> Iterator[MemoryRecord]:
        """The newest `limit` messages (all when None), oldest first, read in pages so memory stays flat."""
        with self.db.engine.connect() as conn:
            last = 0
            if limit is not None:
                if limit <= 0:
                    return
                row = conn.execute(text(
                    "SELECT ID FROM saimemory WHERE PERSONA_ID = :p ORDER BY ID DESC LIMIT 1 OFFSET :n"),
                    {"p": persona_id, "n": limit - 1}).first()
                last = int(row[0]) - 1 if row else 0
            while rows := list(conn.execute(text(
                    f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p AND ID > :last ORDER BY ID LIMIT 1000"),
                    {"p": persona_id, "last": last})):
                yield from (_record(r) for r in rows)
                last = rows[-1][0]

    def count(self, persona_id: str) -> int:
        """How many messages the persona has."""
        with self.db.engine.connect() as conn:
            return int(conn.execute(
                text("SELECT count(*) FROM saimemory WHERE PERSONA_ID = :p"), {"p": persona_id}
            ).scalar_one())

    def export_jsonl(self, persona_id: str, fh: IO[str]) -> int:
        """Write every message of the persona, oldest first, one JSON object a line; returns the count."""
        written, last = 0, 0
        with self.db.engine.connect() as conn:
            while True:
                rows = list(conn.execute(text(
                    f"SELECT {_COLUMNS} FROM saimemory WHERE PERSONA_ID = :p AND ID > :last "
                    "ORDER BY ID LIMIT 1000"), {"p": persona_id, "last": last}))
                if not rows:
                    return written
                for row in rows:
                    fh.write(json.dumps(_record(row), ensure_ascii=False) + "\n")
                written += len(rows)
                last = rows[-1][0]

    # ---- recall -------------------------------------------------------------------------------
    def search(self, persona_id: str, query: str, *, limit: int = 20) -> list[MemoryRecord]:
        """Messages of the persona containing every term of `query`, best first (with `score`)."""
        terms = query_terms(query or "")
        if not terms or limit <= 0:
            return []
        match = match_expression(persona_id, terms)
        candidates: list[tuple[Any, str]] = []
        with self.db.engine.connect() as conn:
            last = 2**63 - 1
            for _ in range(MAX_FTS_ROUNDS):
                if conn.dialect.name == "postgresql":  # pg_trgm instead of FTS5 (saiverse/memory/_recall_pg.py)
                    ids = candidate_ids(conn, persona_id, terms, last, FTS_PAGE)
                else:
                    ids = [r[0] for r in conn.execute(text(
                        "SELECT rowid FROM saimemory_fts WHERE saimemory_fts MATCH :m AND rowid < :last "
                        "ORDER BY rowid DESC LIMIT :n"), {"m": match, "last": last, "n": FTS_PAGE})]
                for row in self._rows(conn, ids):
                    lowered = row[3].lower()
                    if row[1] == persona_id and all(t in lowered for t in terms):
                        candidates.append((row, lowered))
                if len(ids) < FTS_PAGE or len(candidates) >= SEARCH_WINDOW:
                    break
                last = ids[-1]
            if candidates:  # upstream v0.3: a `discardable` line is never recalled into context (sea/lines.py)
                hidden = {r[0] for r in conn.execute(text(
                    "SELECT ID FROM saimemory WHERE ID IN :ids AND SCOPE = 'discardable'").bindparams(
                    bindparam("ids", expanding=True)), {"ids": [c[0][0] for c in candidates]})}
                candidates = [c for c in candidates if c[0][0] not in hidden]
        candidates.sort(key=lambda c: c[0][0], reverse=True)
        candidates = candidates[:SEARCH_WINDOW]
        if not candidates:
            return []
        avg_len = sum(len(lowered) for _, lowered in candidates) / len(candidates)
        now = datetime.now(UTC).replace(tzinfo=None)
        scored: list[tuple[float, int, MemoryRecord]] = []
        for row, lowered in candidates:
            age = (now - _parse_stored(row[6])).total_seconds() / 86400
            rec = _record(row)
            rec["score"] = round(_score(lowered, terms, avg_len, age), 6)
            scored.append((rec["score"], rec["id"], rec))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return [rec for _, _, rec in scored[:limit]]
