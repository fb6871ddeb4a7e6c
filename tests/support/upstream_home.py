"""Writes upstream SAIVerse (maha0525/SAIVerse v0.2.x) data homes for the import tests and benchmark.

Built from the documented layout of an upstream home, not from upstream code: `user_data/database/
saiverse.db` with upstream's table and column names (CAPS, `playbooks` with schema_json/nodes_json),
`personas/<id>/memory.db` (threads, messages with epoch times and JSON metadata, Stelis threads,
Memopedia, arasuji), building logs `cities/<city>/buildings/<id>/log.json` (one JSON array without
indentation, `old_log/<ts>.json` for archived parts), media under `image/` and `documents/` with
`.summary.txt` sidecars, and avatars under `user_data/icons/` referenced by a stale absolute path.
tests/support/upstream_small.py builds the standard small test home with it.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sqlite3
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PIL import Image

MAIN_SCHEMA = """
CREATE TABLE user (USERID INTEGER PRIMARY KEY, PASSWORD VARCHAR(32) NOT NULL, USERNAME VARCHAR(32) NOT NULL,
    MAILADDRESS VARCHAR(64), LOGGED_IN BOOLEAN NOT NULL, CURRENT_CITYID INTEGER, CURRENT_BUILDINGID VARCHAR(255),
    AVATAR_IMAGE VARCHAR(255));
CREATE TABLE city (USERID INTEGER NOT NULL, CITYID INTEGER PRIMARY KEY, CITYNAME VARCHAR(32) NOT NULL,
    DESCRIPTION VARCHAR(1024) NOT NULL, TIMEZONE VARCHAR(64) NOT NULL, UI_PORT INTEGER NOT NULL,
    API_PORT INTEGER NOT NULL, START_IN_ONLINE_MODE BOOLEAN NOT NULL, HOST_AVATAR_IMAGE VARCHAR(255));
CREATE TABLE building (CITYID INTEGER NOT NULL, BUILDINGID VARCHAR(255) PRIMARY KEY, BUILDINGNAME VARCHAR(32) NOT NULL,
    CAPACITY INTEGER NOT NULL, SYSTEM_INSTRUCTION VARCHAR(4096) NOT NULL, ENTRY_PROMPT VARCHAR(4096) NOT NULL,
    AUTO_PROMPT VARCHAR(4096) NOT NULL, DESCRIPTION VARCHAR(1024) NOT NULL, AUTO_INTERVAL_SEC INTEGER NOT NULL,
    IMAGE_PATH VARCHAR(512), EXTRA_PROMPT_FILES TEXT);
CREATE TABLE ai (AIID VARCHAR(255) PRIMARY KEY, HOME_CITYID INTEGER NOT NULL, AINAME VARCHAR(32) NOT NULL,
    SYSTEMPROMPT VARCHAR(4096) NOT NULL, DESCRIPTION VARCHAR(1024) NOT NULL, AVATAR_IMAGE VARCHAR(255),
    APPEARANCE_IMAGE_PATH VARCHAR(512), EMOTION VARCHAR(1024), AUTO_COUNT INTEGER NOT NULL,
    LAST_AUTO_PROMPT_TIMES VARCHAR(2048), INTERACTION_MODE VARCHAR(32) NOT NULL, IS_DISPATCHED BOOLEAN NOT NULL,
    DEFAULT_MODEL VARCHAR(255), LIGHTWEIGHT_MODEL VARCHAR(255), LIGHTWEIGHT_VISION_MODEL VARCHAR(255),
    VISION_MODEL VARCHAR(255), PRIVATE_ROOM_ID VARCHAR(255), PREVIOUS_INTERACTION_MODE VARCHAR(32) NOT NULL,
    CHRONICLE_ENABLED BOOLEAN NOT NULL, MEMORY_WEAVE_CONTEXT BOOLEAN NOT NULL, METABOLISM_ANCHORS TEXT);
CREATE TABLE building_occupancy_log (ID INTEGER PRIMARY KEY, CITYID INTEGER NOT NULL, BUILDINGID VARCHAR(255) NOT NULL,
    AIID VARCHAR(255) NOT NULL, ENTRY_TIMESTAMP DATETIME NOT NULL, EXIT_TIMESTAMP DATETIME);
CREATE TABLE item (ITEM_ID VARCHAR(36) PRIMARY KEY, NAME VARCHAR(255) NOT NULL, TYPE VARCHAR(64) NOT NULL,
    DESCRIPTION VARCHAR(2048) NOT NULL, FILE_PATH VARCHAR(512), STATE_JSON VARCHAR, CREATOR_ID VARCHAR(255),
    SOURCE_CONTEXT VARCHAR, CREATED_AT DATETIME NOT NULL, UPDATED_AT DATETIME NOT NULL);
CREATE TABLE item_location (LOCATION_ID INTEGER PRIMARY KEY, ITEM_ID VARCHAR(36) NOT NULL UNIQUE,
    OWNER_KIND VARCHAR(32) NOT NULL, OWNER_ID VARCHAR(255) NOT NULL, UPDATED_AT DATETIME NOT NULL);
CREATE TABLE persona_schedule (SCHEDULE_ID INTEGER PRIMARY KEY, PERSONA_ID VARCHAR(255) NOT NULL,
    SCHEDULE_TYPE VARCHAR(32) NOT NULL, META_PLAYBOOK VARCHAR(255) NOT NULL, ENABLED BOOLEAN NOT NULL,
    DESCRIPTION VARCHAR(512) NOT NULL, PRIORITY INTEGER NOT NULL, DAYS_OF_WEEK VARCHAR(255), TIME_OF_DAY VARCHAR(8),
    SCHEDULED_DATETIME DATETIME, COMPLETED BOOLEAN NOT NULL, INTERVAL_SECONDS INTEGER, LAST_EXECUTED_AT DATETIME,
    PLAYBOOK_PARAMS TEXT, CREATED_AT DATETIME NOT NULL, UPDATED_AT DATETIME NOT NULL);
CREATE TABLE persona_event_log (EVENT_ID INTEGER PRIMARY KEY, PERSONA_ID VARCHAR(255) NOT NULL,
    CREATED_AT DATETIME NOT NULL, CONTENT VARCHAR NOT NULL, STATUS VARCHAR(32) NOT NULL, EVENT_TYPE VARCHAR(64),
    PAYLOAD TEXT);
CREATE TABLE playbooks (id INTEGER PRIMARY KEY, name VARCHAR(255) NOT NULL UNIQUE, display_name VARCHAR(255),
    description VARCHAR(1024) NOT NULL, scope VARCHAR(32) NOT NULL, created_by_persona_id VARCHAR(255),
    building_id VARCHAR(255), schema_json TEXT NOT NULL, nodes_json TEXT NOT NULL, router_callable BOOLEAN NOT NULL,
    user_selectable BOOLEAN NOT NULL, dev_only BOOLEAN NOT NULL, required_credentials TEXT,
    created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL);
CREATE TABLE user_ai_link (USERID INTEGER NOT NULL, AIID VARCHAR(255) NOT NULL, PRIMARY KEY (USERID, AIID));
CREATE TABLE tool (TOOLID INTEGER PRIMARY KEY, TOOLNAME VARCHAR(32) NOT NULL, MODULE_PATH VARCHAR(255) NOT NULL,
    FUNCTION_NAME VARCHAR(255) NOT NULL, DESCRIPTION VARCHAR(1024) NOT NULL);
"""

MEMORY_SCHEMA = """
CREATE TABLE threads (id TEXT PRIMARY KEY, resource_id TEXT, overview TEXT, overview_updated_at INTEGER);
CREATE TABLE messages (id TEXT PRIMARY KEY, thread_id TEXT, role TEXT, content TEXT, resource_id TEXT,
    created_at INTEGER, metadata TEXT);
CREATE INDEX idx_messages_thread_created ON messages(thread_id, created_at);
CREATE TABLE embeddings (message_id TEXT PRIMARY KEY, vector TEXT);
CREATE TABLE stelis_threads (thread_id TEXT PRIMARY KEY, parent_thread_id TEXT, depth INTEGER NOT NULL DEFAULT 0,
    window_ratio REAL NOT NULL DEFAULT 0.8, status TEXT NOT NULL DEFAULT 'active', chronicle_prompt TEXT,
    chronicle_summary TEXT, created_at INTEGER, completed_at INTEGER, label TEXT);
CREATE TABLE working_memory (persona_id TEXT PRIMARY KEY, data TEXT, updated_at REAL);
CREATE TABLE memopedia_pages (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT NOT NULL, summary TEXT DEFAULT '',
    content TEXT DEFAULT '', category TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    keywords TEXT DEFAULT '[]', is_deleted INTEGER DEFAULT 0, vividness TEXT DEFAULT 'rough',
    is_trunk INTEGER DEFAULT 0, is_important INTEGER DEFAULT 0, last_referenced_at INTEGER);
CREATE TABLE memopedia_page_states (thread_id TEXT NOT NULL, page_id TEXT NOT NULL, is_open INTEGER DEFAULT 0,
    opened_at INTEGER, PRIMARY KEY (thread_id, page_id));
CREATE TABLE memopedia_page_edit_history (id TEXT PRIMARY KEY, page_id TEXT NOT NULL, edited_at INTEGER NOT NULL,
    diff_text TEXT NOT NULL, ref_start_message_id TEXT, ref_end_message_id TEXT, edit_type TEXT NOT NULL,
    edit_source TEXT);
CREATE TABLE arasuji_entries (id TEXT PRIMARY KEY, level INTEGER NOT NULL, content TEXT NOT NULL,
    source_ids_json TEXT NOT NULL, start_time INTEGER, end_time INTEGER, source_count INTEGER NOT NULL,
    message_count INTEGER NOT NULL, parent_id TEXT, is_consolidated INTEGER DEFAULT 0, created_at INTEGER NOT NULL);
CREATE TABLE arasuji_progress (id TEXT PRIMARY KEY DEFAULT 'main', last_processed_message_id TEXT,
    last_processed_at INTEGER);
"""

T0 = 1_792_800_000
"""An epoch second in late 2026 (upstream stores SAIMemory times as epoch seconds)."""
STALE_HOME = "/home/someone-else/.saiverse"
"""Where the avatar's absolute path points: a home that does not exist on this machine."""


def png_bytes(color: tuple[int, int, int] = (20, 40, 120), size: int = 24) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buf, format="PNG")
    return buf.getvalue()


def webp_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 120, 40)).save(buf, format="WEBP")
    return buf.getvalue()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (incl. -wal/-shm side files) → its sha256: a home is unchanged iff this is."""
    return {str(p.relative_to(root)): sha256(p) for p in sorted(root.rglob("*")) if p.is_file()}


class UpstreamHome:
    """An upstream data home being written; `close()` when done."""

    def __init__(self, root: Path, *, city: str = "city_a", city_label: str = "シティA", username: str = "ユーザー") -> None:
        self.root = root
        self.city = city
        db_path = root / "user_data" / "database" / "saiverse.db"
        db_path.parent.mkdir(parents=True, exist_ok=True)
        (root / "user_data" / "icons").mkdir(parents=True, exist_ok=True)
        self.db_path = db_path
        self.db = sqlite3.connect(db_path)
        self.db.executescript(MAIN_SCHEMA)
        self.db.execute("INSERT INTO user VALUES (1, 'password', ?, NULL, 0, 1, NULL, NULL)", (username,))
        self.db.execute("INSERT INTO city VALUES (1, 1, ?, ?, 'UTC', 8000, 8001, 0, NULL)", (city, city_label))
        self._mem: dict[str, sqlite3.Connection] = {}

    # ---- main database ---------------------------------------------------------------------
    def building(self, bid: str, name: str, *, capacity: int = 10, instruction: str = "", description: str = "",
                 entry_prompt: str = "", auto_interval: int = 600, extra_prompt_files: str | None = None) -> None:
        self.db.execute("INSERT INTO building VALUES (1, ?, ?, ?, ?, ?, '', ?, ?, NULL, ?)",
                        (bid, name, capacity, instruction, entry_prompt, description, auto_interval,
                         extra_prompt_files))

    def persona(self, pid: str, name: str, building: str, *, mode: str = "user", system_prompt: str = "",
                description: str = "", models: tuple[str | None, str | None, str | None, str | None] = (
                    None, None, None, None), private_room: str | None = None, avatar: bytes | None = None,
                moves: Iterable[str] = ()) -> None:
        """A persona; `moves` are buildings it was in before (closed occupancy rows), `building` the open one."""
        avatar_path = None
        if avatar is not None:
            icon = self.root / "user_data" / "icons" / f"{pid}_1795439843.webp"
            icon.write_bytes(avatar)
            avatar_path = f"{STALE_HOME}/user_data/icons/{icon.name}"
        default, light, light_vision, vision = models
        self.db.execute(
            "INSERT INTO ai VALUES (?, 1, ?, ?, ?, ?, NULL, '{\"affect\": {\"mean\": 0.2}}', 0, NULL, ?, 0, ?, ?, ?, "
            "?, ?, 'auto', 1, 1, NULL)",
            (pid, name, system_prompt, description, avatar_path, mode, default, light, light_vision, vision,
             private_room))
        stamp = 0
        for before in moves:
            self.db.execute("INSERT INTO building_occupancy_log (CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP, "
                            "EXIT_TIMESTAMP) VALUES (1, ?, ?, ?, ?)",
                            (before, pid, f"2026-10-0{stamp + 1} 09:00:00", f"2026-10-0{stamp + 2} 09:00:00"))
            stamp += 1
        self.db.execute("INSERT INTO building_occupancy_log (CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP, "
                        "EXIT_TIMESTAMP) VALUES (1, ?, ?, ?, NULL)", (building, pid, f"2026-10-0{stamp + 1} 09:00:00"))

    def user_at(self, building: str) -> None:
        self.db.execute("UPDATE user SET CURRENT_BUILDINGID = ?", (building,))

    def item(self, name: str, kind: str, owner_kind: str, owner_id: str, *, data: bytes | str | None = None,
             summary: str | None = None, description: str = "", absolute: bool = False, state: str | None = None,
             ext: str = "png") -> tuple[str, Path | None]:
        """An item (and its file); returns its id and file. `absolute` stores an old install's absolute path."""
        item_id = str(uuid.uuid4())
        file_path, path = None, None
        if data is not None:
            folder = {"picture": "image", "audio": "audio"}.get(kind, "documents")  # upstream's media folders
            path = self.root / folder / f"20261123_131723_{uuid.uuid4().hex}.{ext}"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
            if summary is not None:
                path.with_name(path.name + ".summary.txt").write_text(summary, encoding="utf-8")
            rel = f"{folder}/{path.name}"
            file_path = f"{STALE_HOME}/{rel}" if absolute else rel
        self.db.execute("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, '2026-11-01 15:00:00.000000', "
                        "'2026-11-01 15:00:00.000000')", (item_id, name, kind, description, file_path, state))
        self.db.execute("INSERT INTO item_location (ITEM_ID, OWNER_KIND, OWNER_ID, UPDATED_AT) VALUES (?, ?, ?, "
                        "'2026-11-02 10:00:00.000000')", (item_id, owner_kind, owner_id))
        return item_id, path

    def schedule(self, persona: str, kind: str, *, meta: str = "meta_auto", days: str | None = None,
                 time_of_day: str | None = None, when: str | None = None, interval: int | None = None,
                 params: dict[str, Any] | None = None, completed: bool = False, description: str = "") -> None:
        self.db.execute(
            "INSERT INTO persona_schedule (PERSONA_ID, SCHEDULE_TYPE, META_PLAYBOOK, ENABLED, DESCRIPTION, PRIORITY, "
            "DAYS_OF_WEEK, TIME_OF_DAY, SCHEDULED_DATETIME, COMPLETED, INTERVAL_SECONDS, LAST_EXECUTED_AT, "
            "PLAYBOOK_PARAMS, CREATED_AT, UPDATED_AT) VALUES (?, ?, ?, 1, ?, 1, ?, ?, ?, ?, ?, NULL, ?, "
            "'2026-11-23 13:17:23', '2026-11-23 13:17:23')",
            (persona, kind, meta, description, days, time_of_day, when, int(completed), interval,
             json.dumps(params) if params is not None else None))

    def event(self, persona: str, content: str, *, kind: str | None = None, when: str = "2026-11-06 10:00:00") -> None:
        self.db.execute("INSERT INTO persona_event_log (PERSONA_ID, CREATED_AT, CONTENT, STATUS, EVENT_TYPE, PAYLOAD) "
                        "VALUES (?, ?, ?, 'archived', ?, NULL)", (persona, when, content, kind))

    def playbook(self, doc: dict[str, Any], *, persona: str | None = None) -> None:
        """A `playbooks` row as upstream's seed and editor write it (nodes_json = the whole document)."""
        schema = {k: doc[k] for k in ("name", "description", "input_schema", "start_node") if k in doc}
        self.db.execute(
            "INSERT INTO playbooks (name, display_name, description, scope, created_by_persona_id, schema_json, "
            "nodes_json, router_callable, user_selectable, dev_only, created_at, updated_at) "
            "VALUES (?, ?, ?, 'public', ?, ?, ?, ?, ?, 0, '2026-11-23', '2026-11-23')",
            (doc["name"], doc.get("display_name"), doc.get("description", ""), persona,
             json.dumps(schema, ensure_ascii=False), json.dumps(doc, ensure_ascii=False),
             int(bool(doc.get("router_callable"))), int(bool(doc.get("user_selectable")))))

    # ---- SAIMemory ----------------------------------------------------------------------------
    def memory(self, pid: str) -> sqlite3.Connection:
        if pid not in self._mem:
            path = self.root / "personas" / pid / "memory.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(MEMORY_SCHEMA)
            conn.execute("INSERT INTO threads VALUES (?, 'default', NULL, NULL)", (f"{pid}:__persona__",))
            (path.parent / "active_state.json").write_text(
                json.dumps({"active_thread_id": "__persona__", "updated_at": "2026-11-23T13:17:23"}), encoding="utf-8")
            self._mem[pid] = conn
        return self._mem[pid]

    def messages(self, pid: str, rows: Iterable[tuple[str, str, str, int, dict[str, Any] | None]]) -> list[str]:
        """(thread suffix, role, content, epoch seconds, metadata) rows; returns the message ids."""
        conn, ids = self.memory(pid), []
        threads = {r[0] for r in conn.execute("SELECT id FROM threads")}
        batch = []
        for suffix, role, content, created, meta in rows:
            thread = f"{pid}:{suffix}"
            if thread not in threads:
                resource = suffix if not suffix.startswith(("__", "stelis_")) else "default"
                conn.execute("INSERT INTO threads VALUES (?, ?, NULL, NULL)", (thread, resource))
                threads.add(thread)
            mid = str(uuid.uuid4())
            ids.append(mid)
            batch.append((mid, thread, role, content, "default", created,
                          json.dumps(meta, ensure_ascii=False) if meta is not None else None))
            if len(batch) >= 5000:
                conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
                batch.clear()
        conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
        conn.commit()
        return ids

    def stelis(self, pid: str, suffix: str, label: str, summary: str) -> None:
        self.memory(pid).execute(
            "INSERT INTO stelis_threads VALUES (?, ?, 0, 0.8, 'completed', 'まとめる', ?, ?, ?, ?)",
            (f"{pid}:{suffix}", f"{pid}:__persona__", summary, T0, T0 + 60, label))

    def memopedia(self, pid: str, page_id: str, parent: str, title: str, content: str, category: str,
                  keywords: list[str], *, vividness: str = "rough", important: int = 0) -> None:
        conn = self.memory(pid)
        if conn.execute("SELECT 1 FROM memopedia_pages WHERE id = ?", (parent,)).fetchone() is None:
            conn.execute("INSERT INTO memopedia_pages (id, parent_id, title, category, created_at, updated_at) "
                         "VALUES (?, NULL, ?, ?, ?, ?)", (parent, parent, category, T0, T0))
        conn.execute(
            "INSERT INTO memopedia_pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?)",
            (page_id, parent, title, title + "の要約", content, category, T0, T0 + 5,
             json.dumps(keywords), vividness, important, T0 + 9))
        conn.execute("INSERT INTO memopedia_page_edit_history VALUES (?, ?, ?, ?, NULL, NULL, 'create', 'test')",
                     (str(uuid.uuid4()), page_id, T0, f"+title: {title}"))
        conn.execute("INSERT INTO memopedia_page_states VALUES (?, ?, 1, ?)", (f"{pid}:__persona__", page_id, T0))

    def arasuji(self, pid: str, entry_id: str, level: int, content: str, sources: list[str], *,
                parent: str | None = None) -> None:
        self.memory(pid).execute(
            "INSERT INTO arasuji_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
            (entry_id, level, content, json.dumps(sources), T0, T0 + 3600, len(sources), len(sources) * 2, parent,
             T0 + 7200))
        if level == 1:
            self.memory(pid).execute("INSERT OR REPLACE INTO arasuji_progress VALUES ('main', ?, ?)",
                                     (sources[-1], T0 + 7200))

    def working_memory(self, pid: str, data: dict[str, Any]) -> None:
        self.memory(pid).execute("INSERT OR REPLACE INTO working_memory VALUES (?, ?, ?)",
                                 (pid, json.dumps(data, ensure_ascii=False), T0 + 0.5))

    # ---- building logs -------------------------------------------------------------------------
    def log(self, bid: str, entries: Iterable[dict[str, Any]], *, old_parts: Iterable[list[dict[str, Any]]] = (),
            legacy_copy: bool = True) -> Path:
        """Writes log.json (and old_log parts) under cities/<city>/buildings/<id>/, like upstream's manager."""
        folder = self.root / "cities" / self.city / "buildings" / bid
        folder.mkdir(parents=True, exist_ok=True)
        for n, part in enumerate(old_parts):
            (folder / "old_log").mkdir(exist_ok=True)
            (folder / "old_log" / f"2026110{n + 1}_000000.json").write_text(
                json.dumps(part, ensure_ascii=False), encoding="utf-8")
        path = folder / "log.json"
        with path.open("w", encoding="utf-8") as fh:
            fh.write("[")
            for n, entry in enumerate(entries):
                fh.write(("," if n else "") + json.dumps(entry, ensure_ascii=False))
            fh.write("]")
        if legacy_copy:
            (self.root / "buildings" / bid).mkdir(parents=True, exist_ok=True)
            (self.root / "buildings" / bid / "log.json").write_bytes(path.read_bytes())
        return path

    def close(self) -> None:
        self.db.commit()
        self.db.close()
        for conn in self._mem.values():
            conn.commit()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
        self._mem.clear()


def add_pending_wal(memory_db: Path, rows: Iterable[tuple[str, str, str, int]]) -> None:
    """Leave `rows` (thread, role, content, epoch) in memory.db's -wal, not yet in the main file.

    That is what a home looks like when upstream is still running or was killed: the import must
    see those messages without writing to the file (it reads a copy).
    """
    work = memory_db.parent / ".wal-work"
    work.mkdir()
    copy = work / "memory.db"
    shutil.copyfile(memory_db, copy)
    conn = sqlite3.connect(copy)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, 'default', ?, NULL)",
                     [(str(uuid.uuid4()), thread, role, content, when) for thread, role, content, when in rows])
    conn.commit()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(work / f"memory.db{suffix}", memory_db.with_name(f"memory.db{suffix}"))
    conn.close()
    shutil.rmtree(work)


def user_line(building: str, seq: int, text: str, when: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": when, "metadata": {"with": ["user"], "tags": ["conversation"]},
            "seq": seq, "message_id": f"{building}:{seq}", "heard_by": [], "ingested_by": []}


def persona_line(building: str, seq: int, persona: str, text: str, when: str, pulse: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "persona_id": persona, "timestamp": when,
            "metadata": {"tags": ["conversation", f"pulse:{pulse}"], "with": ["user"]},
            "seq": seq, "message_id": f"{building}:{seq}", "heard_by": [persona], "ingested_by": []}


def host_notice(text: str) -> dict[str, Any]:
    """A move notice as upstream's occupancy manager adds it: role and HTML content only."""
    return {"role": "host", "content": f'<div class="note-box">🚶 AI Action:<br><b>{text}</b></div>'}
