"""SAIMemory: every message of every thread of every persona, from `personas/<id>/memory.db`.

Messages are streamed oldest first (`created_at`, then upstream's insertion order) into `saimemory`
in batches: role and content as they are; `created_at` (epoch seconds) → naive UTC; metadata `tags`
→ TAGS (a `pulse:<id>` tag also fills PULSE_ID), each `with` partner → a `with:<id>` tag, any other
metadata key → METADATA (JSON); the upstream thread → THREAD_ID, its building (a building thread,
or the message's resource) → BUILDING_ID; the upstream message id → EXTERNAL_ID, unique per persona,
so importing the same home again adds nothing. A role we do not have is stored as `system` with
the original in METADATA.

Each persona's memory (messages, threads, Memopedia, Chronicle) is one savepoint: a damaged
memory.db is reported and leaves none of its rows behind, while the other personas come over.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Any

from saiverse.importer.context import BATCH, Context
from saiverse.importer.convert import dumps, from_epoch, json_value
from saiverse.importer.grams import GramIndex
from saiverse.importer.longterm import import_chronicle, import_memopedia
from saiverse.importer.report import Text
from saiverse.importer.source import SourceDamaged, has_table, open_readonly, read, read_dicts, select
from saiverse.importer.v03_memory import import_memory_notes
from saiverse.memory import ROLES

MESSAGE_COLUMNS = ("id", "thread_id", "role", "content", "resource_id", "created_at", "metadata",
                   "line_role", "line_id", "scope", "origin_track_id", "paired_action_text", "pulse_id")
"""Upstream's message columns; the last six are v0.3's (NULL from an older memory.db)."""


def _tags(meta: dict[str, Any]) -> tuple[list[str], str | None]:
    tags: dict[str, None] = {}
    raw = meta.get("tags")
    for tag in raw if isinstance(raw, list) else []:
        if isinstance(tag, str) and tag.strip():
            tags.setdefault(tag.strip(), None)
    partners = meta.get("with")
    for partner in partners if isinstance(partners, list) else []:
        if isinstance(partner, str) and partner.strip():
            tags.setdefault(f"with:{partner.strip()}", None)
    pulse = next((t[len("pulse:"):] for t in tags if t.startswith("pulse:") and len(t) > 6), None)
    return list(tags), pulse


class _Messages:
    """Turns upstream message rows into `saimemory` rows for one persona."""

    def __init__(self, ctx: Context, persona_id: str) -> None:
        self.persona_id = persona_id
        self.buildings = ctx.source_buildings
        self.last_time = from_epoch(0) or ""
        self.untimed = 0
        self.total = 0

    def building_of(self, thread_id: str, resource_id: Any) -> str | None:
        suffix = thread_id.split(":", 1)[1] if ":" in thread_id else ""
        if suffix in self.buildings:
            return suffix
        return str(resource_id) if resource_id in self.buildings else None

    def row(self, r: tuple[Any, ...]) -> tuple[Any, ...]:
        mid, thread, role, content, resource, created, metadata, line_role, line_id, scope, track, paired, pid = r
        meta = json_value(metadata, None)
        extra: dict[str, Any] = {}
        if metadata not in (None, "") and not isinstance(meta, dict):
            extra["raw_metadata"] = metadata
        meta = meta if isinstance(meta, dict) else {}
        tags, pulse = _tags(meta)
        pulse = pulse or (str(pid) if pid else None)
        extra.update({k: v for k, v in meta.items() if k not in ("tags", "with")})
        if role not in ROLES:
            extra["role"] = role
            role = "system"
        when = from_epoch(created)
        if when is None:
            self.untimed += 1
            when = self.last_time  # keeps the message in its place in time
        self.last_time = when
        self.total += 1
        thread = str(thread or f"{self.persona_id}:__persona__")
        return (self.persona_id, role, content if isinstance(content, str) else str(content or ""),
                json.dumps(tags, ensure_ascii=False), pulse, when, thread, self.building_of(thread, resource),
                str(mid) if mid not in (None, "") else None, dumps(extra) if extra else None,
                line_role, line_id, scope, track, paired)


def _import_threads(ctx: Context, persona_id: str, mem: sqlite3.Connection) -> int:
    if not has_table(mem, "threads"):
        return 0
    stelis = {str(rec.pop("thread_id")): rec for rec in read_dicts(mem, "stelis_threads")}
    added = 0
    sql = select(mem, "threads", ("id", "resource_id", "overview", "overview_updated_at"))
    for tid, resource, overview, updated in read(mem, sql):
        extra = {"stelis": stelis[str(tid)]} if str(tid) in stelis else {}
        if resource in (None, "", "default") and str(tid).startswith(f"{persona_id}:"):
            # Upstream's memory adapter keys a persona's threads by the persona id (the file says 'default').
            extra["upstream_resource_id"] = resource
            resource = persona_id
        cur = ctx.db.execute(
            "INSERT OR IGNORE INTO saimemory_thread (PERSONA_ID, THREAD_ID, RESOURCE_ID, OVERVIEW, "
            "OVERVIEW_UPDATED_AT, EXTRA_JSON) VALUES (?, ?, ?, ?, ?, ?)",
            (persona_id, str(tid), resource, overview, from_epoch(updated), dumps(extra)))
        added += cur.rowcount
    return added


def _keep_state(ctx: Context, persona_id: str, mem: sqlite3.Connection, folder: Path) -> None:
    """Upstream's working memory and active thread of a newly imported persona, into its EXTRA_JSON."""
    state: dict[str, Any] = {}
    if has_table(mem, "working_memory"):
        row = next(read(mem, "SELECT data FROM working_memory LIMIT 1"), None)
        if row is not None:
            state["working_memory"] = json_value(row[0], row[0])
    path = ctx.source.inside(f"personas/{persona_id}/active_state.json")
    try:
        if path is None:
            raise OSError("it leads outside the source home (a link); not read")
        state["active_state"] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        pass  # upstream writes it only once a thread was switched; most personas have none
    except (OSError, ValueError, RecursionError) as exc:
        where = path or f"personas/{persona_id}/active_state.json"
        ctx.report.problem(f"memory of {persona_id}",
                           Text(f"{where} を読めません ({exc})", f"cannot read {where} ({exc})"))
    for key, value in state.items():
        ctx.db.execute("UPDATE ai SET EXTRA_JSON = json_set(EXTRA_JSON, ?, json(?)) WHERE AIID = ?",
                       (f"$.upstream.{key}", dumps(value), persona_id))


def _import_persona(ctx: Context, persona_id: str, mem: sqlite3.Connection, fresh: Path | None) -> Counter[str]:
    """One persona's memory; `fresh` is its source folder when the persona is new here (its state is kept)."""
    counts: Counter[str] = Counter()
    mem.text_factory = lambda b: b.decode("utf-8", "replace")
    total = int(next(read(mem, "SELECT count(*) FROM messages"))[0]) if has_table(mem, "messages") else 0
    counts["memory_threads"] = _import_threads(ctx, persona_id, mem)
    phase = ctx.progress.phase(f"memory {persona_id}", total)
    conv = _Messages(ctx, persona_id)
    if total:
        rows = (conv.row(r) for r in read(mem, select(mem, "messages", MESSAGE_COLUMNS, "created_at, rowid")))
        while chunk := list(islice(rows, BATCH)):
            cur = ctx.db.executemany(
                "INSERT OR IGNORE INTO saimemory (PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT, THREAD_ID, "
                "BUILDING_ID, EXTERNAL_ID, METADATA, LINE_ROLE, LINE_ID, SCOPE, ORIGIN_TRACK_ID, PAIRED_ACTION_TEXT) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
            counts["memory_messages"] += cur.rowcount
            phase.advance(len(chunk))
    counts["existing_messages"] = conv.total - counts["memory_messages"]
    counts["memory_notes"] = import_memory_notes(ctx, persona_id, mem)
    counts.update(import_memopedia(ctx, persona_id, mem))
    counts.update(import_chronicle(ctx, persona_id, mem))
    if fresh is not None:
        _keep_state(ctx, persona_id, mem, fresh)
    phase.close()
    if counts.get("malformed"):
        ctx.report.problem(f"memory of {persona_id}", Text(
            f"ID のない Memopedia / Chronicle の行 {counts['malformed']} 件は取り込んでいません",
            f"{counts['malformed']} Memopedia / Chronicle rows without an id were not imported"))
    if conv.untimed:
        ctx.report.problem(f"memory of {persona_id}", Text(
            f"時刻のないメッセージ {conv.untimed} 件は直前のメッセージの時刻にしました",
            f"{conv.untimed} messages had no time; they were given the time of the message before"))
    return counts


def import_memory(ctx: Context, fresh_personas: set[str]) -> None:
    index = GramIndex(ctx.db)
    for persona_id in [p for p in ctx.persona_names if p in ctx.personas_ok]:
        folder = ctx.source.persona_dir(persona_id)
        rel = f"personas/{persona_id}/memory.db"
        path = ctx.source.inside(rel)
        if folder is None or path is None:  # a link out of the home: never followed
            ctx.report.problem(f"memory of {persona_id}", Text(
                f"{rel} は元のホームの外を指しています (リンクか ..)。読まず、記憶は取り込んでいません",
                f"{rel} leads outside the source home (a link or ..); it was not read and no memory was imported"))
            continue
        if not path.is_file():
            ctx.report.problem(f"memory of {persona_id}", Text(
                f"{path} がないため、記憶は取り込んでいません", f"{path} is missing: no memory was imported"))
            continue
        ctx.db.execute("SAVEPOINT persona_memory")
        try:
            with open_readonly(path, ctx.scratch) as mem:
                counts = _import_persona(ctx, persona_id, mem, folder if persona_id in fresh_personas else None)
        except (SourceDamaged, OSError) as exc:
            ctx.db.execute("ROLLBACK TO persona_memory")
            ctx.db.execute("RELEASE persona_memory")
            ctx.report.problem(f"memory of {persona_id}", Text(
                f"{path} を読めません ({exc})。このペルソナの記憶は取り込んでいません",
                f"{path} cannot be read ({exc}); none of this persona's memory was imported"))
            continue
        ctx.db.execute("RELEASE persona_memory")
        ctx.report.existing["memory_messages"] += counts.pop("existing_messages", 0)
        counts.pop("malformed", None)
        ctx.report.per_owner["memory_messages"][persona_id] = counts["memory_messages"]
        ctx.report.imported.update(counts)
    phase = ctx.progress.phase("recall index", sum(ctx.report.per_owner["memory_messages"].values()))
    index.finish(phase)
    phase.close()
