"""Building logs (`cities/<city>/buildings/<id>/log.json`, archived parts in `old_log/`) → building history.

Files are read in order (`old_log/*.json` by name, then `log.json`), streamed, and each entry becomes
one history line: `user` → the user, `assistant` → its persona (speaker name from the personas),
`host`/`system` → a notice. HTML note-boxes (`<div class="note-box">…`) are turned into readable text;
the original HTML and every other field of the entry (metadata, seq, heard_by…) are kept in METADATA.
EXTERNAL_ID is the upstream `message_id` plus a hash of the entry (upstream's `<building>:<seq>`
repeats when its counter restarts); the host notices that have no id get one from the entry before
them, their place after it and a hash of their text. The same log imported again adds nothing.
An entry without a time takes the time of the entry before it (or after it, at the start).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from saiverse.importer.context import BATCH, Context
from saiverse.importer.convert import dumps, naive_text, readable_note, stamp
from saiverse.importer.jsonarray import JSONArrayError, ReadStats, iter_json_array
from saiverse.importer.report import Text

_KEPT_OUT = ("content", "timestamp", "message_id", "persona_id")


def log_files(ctx: Context, building_id: str) -> list[Path]:
    """The building's log files, oldest first (the manager's copy under cities/ wins over buildings/)."""
    city = ctx.city_names.get(ctx.source_buildings.get(building_id, ""), "")
    for rel in (f"cities/{city}/buildings/{building_id}", f"buildings/{building_id}"):
        folder = ctx.source.inside(rel)
        if folder is None:
            continue
        old = sorted(p for p in (folder / "old_log").glob("*.json") if _readable(ctx, building_id, p))
        main = folder / "log.json"
        if old or main.is_file():
            return old + ([main] if _readable(ctx, building_id, main) else [])
    return []


def _readable(ctx: Context, building_id: str, path: Path) -> bool:
    """A log file to read: a file inside the source home (a link out of it is reported, never followed)."""
    if not path.is_file():
        return False
    if ctx.source.inside(path) is None:
        ctx.report.problem(f"log of {building_id}", Text(
            f"{path} は元のホームの外を指すリンクのため読んでいません",
            f"{path} is a link leading outside the source home; it was not read"))
        return False
    return True


class _Lines:
    """Turns log entries of one building into history rows, carrying ids and times along."""

    def __init__(self, ctx: Context, building_id: str) -> None:
        self.ctx, self.building_id = ctx, building_id
        self.anchor, self.since_anchor = f"{building_id}:start", 0
        self.last_time: str | None = None
        self.untimed: list[tuple[Any, ...]] = []
        self.malformed = 0
        self.total = 0

    def _speaker(self, entry: dict[str, Any]) -> tuple[str, str | None, str]:
        role = entry.get("role")
        if role == "user":
            return "user", "user", self.ctx.user_name
        if role == "assistant":
            pid = str(entry.get("persona_id") or "")
            name = self.ctx.persona_names.get(pid) or self.ctx.state.persona_names.get(pid) or pid
            return "persona", pid or None, name
        return "system", None, ""

    def _external_id(self, entry: dict[str, Any], content: str) -> str:
        parts = (entry.get("role"), entry.get("persona_id"), entry.get("timestamp"), content)
        digest = hashlib.sha1("\n".join(str(p) for p in parts).encode()).hexdigest()[:12]
        mid = entry.get("message_id")
        if isinstance(mid, str | int) and str(mid):
            # Upstream's `<building>:<seq>` repeats when its counter restarts, so the id alone is not unique.
            self.anchor, self.since_anchor = f"{mid}:{digest}", 0
            return self.anchor
        self.since_anchor += 1
        return f"{self.anchor}+{self.since_anchor}:{digest}"

    def rows(self, entries: Iterator[Any]) -> Iterator[tuple[Any, ...]]:
        for entry in entries:
            if not isinstance(entry, dict):
                self.malformed += 1
                continue
            self.total += 1
            raw = entry.get("content")
            content = raw if isinstance(raw, str) else dumps(raw) if raw is not None else ""
            meta = {k: v for k, v in entry.items() if k not in _KEPT_OUT}
            note = readable_note(content)
            if note is not None:
                meta["html"], content = content, note
            tags = (entry.get("metadata") or {}).get("tags") if isinstance(entry.get("metadata"), dict) else None
            pulse = next((t[6:] for t in tags or [] if isinstance(t, str) and t.startswith("pulse:")), None)
            kind, speaker_id, name = self._speaker(entry)
            row = (self.building_id, kind, speaker_id, name, content, pulse, naive_text(entry.get("timestamp")),
                   self._external_id(entry, content), dumps(meta))
            if row[6] is None:
                if self.last_time is None:
                    self.untimed.append(row)  # before any timed entry: it gets the first time seen
                    continue
                row = (*row[:6], self.last_time, *row[7:])
            self.last_time = row[6]
            if self.untimed:
                yield from ((*r[:6], row[6], *r[7:]) for r in self.untimed)
                self.untimed.clear()
            yield row

    def leftover(self) -> list[tuple[Any, ...]]:
        """Entries of a log that has no time at all: they get the import's time."""
        rows = [(*r[:6], stamp(self.ctx.now), *r[7:]) for r in self.untimed]
        self.untimed.clear()
        return rows


def _insert(ctx: Context, chunk: list[tuple[Any, ...]]) -> int:
    cur = ctx.db.executemany(
        "INSERT OR IGNORE INTO building_history (BUILDINGID, SPEAKER_KIND, SPEAKER_ID, SPEAKER_NAME, CONTENT, "
        "PULSE_ID, CREATED_AT, EXTERNAL_ID, METADATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
    return cur.rowcount


def _import_building(ctx: Context, building_id: str, files: list[Path]) -> None:
    lines = _Lines(ctx, building_id)
    phase = ctx.progress.phase(f"log {building_id}")
    added = 0
    for path in files:
        stats = ReadStats()
        rows = lines.rows(iter_json_array(path, stats=stats))
        try:
            while chunk := list(islice(rows, BATCH)):
                added += _insert(ctx, chunk)
                phase.advance(len(chunk))
        except JSONArrayError as exc:
            ctx.report.problem(f"log of {building_id}", Text(
                f"{path} が壊れています ({exc})。それより前の {exc.read} 行は取り込みました",
                f"{path} is damaged ({exc}); the {exc.read} lines before the damage were imported"))
        except OSError as exc:
            ctx.report.problem(f"log of {building_id}", Text(f"{path} を読めません ({exc})",
                                                              f"{path} cannot be read ({exc})"))
        if stats.replaced:
            ctx.report.problem(f"log of {building_id}", Text(
                f"{path} に UTF-8 でないバイトが {stats.replaced} 個あり、その文字は � に置き換えて取り込みました",
                f"{path} holds {stats.replaced} bytes that are not UTF-8; they were imported as �"))
    added += _insert(ctx, lines.leftover()) if lines.untimed else 0
    phase.close()
    if lines.malformed:
        ctx.report.problem(f"log of {building_id}", Text(
            f"オブジェクトでない項目 {lines.malformed} 件は取り込んでいません",
            f"{lines.malformed} entries that are not objects were not imported"))
    ctx.report.imported["building_log_lines"] += added
    ctx.report.existing["building_log_lines"] += lines.total - added
    ctx.report.per_owner["building_log_lines"][building_id] = added


def import_logs(ctx: Context) -> None:
    for building_id in ctx.source_buildings:
        if building_id not in ctx.buildings_ok:
            continue
        files = log_files(ctx, building_id)
        if files:
            _import_building(ctx, building_id, files)
    known = set(ctx.source_buildings)
    for folder in sorted(ctx.source.home.glob("cities/*/buildings/*")):
        if folder.is_dir() and folder.name not in known and (folder / "log.json").is_file():
            ctx.report.skip("building log", folder.name, Text(
                f"{folder} の建物はデータベースにありません (削除された建物)",
                f"the building of {folder} is not in the database (a deleted building)"))
