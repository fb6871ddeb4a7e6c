"""Start-up repair: finish or undo what a killed process left in `image/`, `documents/` and `recordings/`.

Runs when the app opens a home and no other process has it open (`HomeLock.alone`), so nothing it
touches can be another process's write in flight; and a document's staged files are touched only
while repair holds that document's lock (`item_lock_free`): its writer holds the lock from staging to
renaming, so a save in flight in a process the home lock did not see is left alone. What it does, for
each kind of leftover:

- `.<file>.v<N>.tmp` whose item row names version N (the row committed, the rename did not
  happen): renamed into place — the newest complete copy wins (a text whose sha256 differs from
  the row's is not complete and is removed instead);
- any other `.*.tmp` (a write that never committed): removed;
- a file no item (and no avatar) refers to — a creation killed between file and row: moved to
  `home/orphans/` and reported by name, never deleted, so nothing the user made is lost.

It touches only what it can prove is its own (saiverse/care/_home_safety.py): regular files found without
following any link, inside the real home; orphans only when their name is one this app gives, and
only to a place inside the real home. A file that is not ours is left where it is and named in
`RepairReport.left`. The manager refuses a home whose media folder links out of it before repair runs.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import inspect, text

from database import Database
from saiverse.care._home_safety import OWN_TEMP, is_own_name, link_out_of_home, own_files, safe_destination
from saiverse.disk import ITEM_DIRS, sha256_of
from saiverse.locks import item_lock_free
from saiverse.world import SUMMARY_SUFFIX, commit_staged, remove_quietly

log = logging.getLogger(__name__)
MEDIA_DIRS = ITEM_DIRS
ORPHAN_DIR = "orphans"
_VERSIONED = re.compile(r"^\.(?P<name>.+)\.v(?P<version>\d+)\.tmp$")


@dataclass
class RepairReport:
    """What start-up repair did (empty lists: nothing needed doing)."""

    rolled_forward: list[str] = field(default_factory=list)
    """Staged files renamed into place because their version had committed."""
    removed: list[str] = field(default_factory=list)
    """Temp files of writes that never committed."""
    orphans: list[str] = field(default_factory=list)
    """Files no item refers to, moved under `orphans/` (paths there)."""
    left: list[str] = field(default_factory=list)
    """Files no item refers to whose names this app does not give: left in place, untouched."""
    in_use: list[str] = field(default_factory=list)
    """Staged files of a document whose lock a live writer holds: its save in flight, left alone."""

    def describe(self) -> str:
        parts = []
        if self.rolled_forward:
            parts.append(f"{len(self.rolled_forward)} 件の保存を完了")
        if self.removed:
            parts.append(f"{len(self.removed)} 個の一時ファイルを削除")
        if self.orphans:
            parts.append(f"{len(self.orphans)} 個の孤立ファイルを orphans/ に移動 ({', '.join(self.orphans[:5])}"
                         f"{' …' if len(self.orphans) > 5 else ''})")
        return "、".join(parts)


def _rows(db: Database) -> tuple[dict[str, tuple[int, str | None]], set[str], dict[str, str]]:
    """FILE_PATH → (version, sha256) of every file item, every referenced relative path, and FILE_PATH →
    item id (the key of the item's lock)."""
    by_path: dict[str, tuple[int, str | None]] = {}
    referenced: set[str] = set()
    ids: dict[str, str] = {}
    with db.engine.connect() as conn:
        for item_id, file_path, state_json in conn.execute(text(
                "SELECT ITEM_ID, FILE_PATH, STATE_JSON FROM item WHERE FILE_PATH IS NOT NULL")):
            ids[file_path] = item_id
            try:
                state = json.loads(state_json or "{}")
            except ValueError:
                state = {}
            state = state if isinstance(state, dict) else {}
            try:
                version = int(state.get("version", 1))
            except (TypeError, ValueError):
                version = 1
            sha = state.get("sha256") if isinstance(state.get("sha256"), str) else None
            by_path[file_path] = (version, sha)
            referenced.add(file_path)
            if isinstance(state.get("bundle"), str):
                referenced.add(state["bundle"])  # a production bundle zip named by its manifest document
        columns = {str(c["name"]).upper() for c in inspect(conn).get_columns("ai")}  # SQLite or PostgreSQL
        if "AVATAR_IMAGE" in columns:
            referenced.update(r[0] for r in conn.execute(text(
                "SELECT AVATAR_IMAGE FROM ai WHERE AVATAR_IMAGE IS NOT NULL")))
    return by_path, referenced, ids




def _owner_item(tmp: Path, home: Path, ids: dict[str, str]) -> str | None:
    """The item whose file (or summary) a staged `.<file>.v<N>.tmp` is a version of, if any."""
    m = _VERSIONED.match(tmp.name)
    if not m:
        return None
    rel = tmp.with_name(m.group("name")).relative_to(home).as_posix()
    return ids.get(rel) or (ids.get(rel[: -len(SUMMARY_SUFFIX)]) if rel.endswith(SUMMARY_SUFFIX) else None)


def _staged(tmp: Path, home: Path, by_path: dict[str, tuple[int, str | None]], report: RepairReport) -> None:
    m = _VERSIONED.match(tmp.name)
    final = tmp.with_name(m.group("name")) if m else None
    if m and final is not None:
        rel = final.relative_to(home).as_posix()
        is_summary = rel.endswith(SUMMARY_SUFFIX) and rel[: -len(SUMMARY_SUFFIX)] in by_path
        row = by_path.get(rel[: -len(SUMMARY_SUFFIX)] if is_summary else rel)
        if row is not None and row[0] == int(m.group("version")):
            if is_summary or row[1] is None or sha256_of(tmp) == row[1]:
                commit_staged(tmp, final)
                report.rolled_forward.append(rel)
                return
    remove_quietly(tmp)
    report.removed.append(tmp.relative_to(home).as_posix())


def repair_home(home: Path, db: Database) -> RepairReport:
    """Roll forward committed saves, remove uncommitted temp files, set orphans aside (see module doc)."""
    report = RepairReport()
    problem = link_out_of_home(home)
    if problem:  # the manager refuses such a home first; repair never walks through a link either way
        log.warning("start-up repair skipped: %s", problem)
        return report
    home = home.resolve()
    by_path, referenced, ids = _rows(db)
    for sub in MEDIA_DIRS:
        files = list(own_files(home / sub))  # one walk of the folder per start, never through a link
        for path in files:
            if OWN_TEMP.match(path.name):
                item_id = _owner_item(path, home, ids)
                if item_id is None:
                    _staged(path, home, by_path, report)
                    continue
                with item_lock_free(home, item_id) as free:
                    if free:
                        _staged(path, home, by_path, report)
                    else:
                        report.in_use.append(path.relative_to(home).as_posix())
        for path in files:
            if path.name.startswith("."):
                continue
            rel = path.relative_to(home).as_posix()
            owner = rel[: -len(SUMMARY_SUFFIX)] if rel.endswith(SUMMARY_SUFFIX) else rel
            if owner in referenced:
                continue
            _set_aside(home, path, rel, report)
    if report.rolled_forward or report.removed or report.orphans:
        log.warning("start-up repair of %s: %s", home, report.describe())
    return report


def _set_aside(home: Path, path: Path, rel: str, report: RepairReport) -> None:
    """Move an orphan of ours under `orphans/` (inside the real home), or leave a file not ours alone."""
    target = home / ORPHAN_DIR / rel
    if not is_own_name(path.name) or not safe_destination(home, target):
        report.left.append(rel)
        return
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    n = 1
    while os.path.lexists(target):
        target = target.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    if not safe_destination(home, target):
        report.left.append(rel)
        return
    os.rename(path, target)
    report.orphans.append(target.relative_to(home).as_posix())
