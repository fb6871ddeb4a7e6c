"""A small upstream v0.3 home of our own: tests/support/upstream_small.py's home brought to the v0.3 layout as
upstream's migration does (INTERACTION_MODE → ACTIVITY_STATE, map positions, item slots, message line
columns, memory_notes, tracks, notes, judgments), with a few rough edges an importer must report: a
track of a persona that is not in the home, a map position that is not a number, a column newer than
the importer, and an addon table with rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.support.upstream_small import small_home

V03_SQL = """
CREATE TABLE action_track (track_id VARCHAR(36) PRIMARY KEY, persona_id VARCHAR(255) NOT NULL, title VARCHAR(255),
  track_type VARCHAR(64) NOT NULL, is_persistent BOOLEAN NOT NULL, output_target VARCHAR(255) NOT NULL,
  status VARCHAR(32) NOT NULL, is_forgotten BOOLEAN NOT NULL, intent TEXT, track_metadata TEXT, pause_summary TEXT,
  pause_summary_updated_at DATETIME, last_active_at DATETIME, waiting_for TEXT, waiting_timeout_at DATETIME,
  created_at DATETIME NOT NULL, completed_at DATETIME, aborted_at DATETIME, priority INTEGER);
CREATE TABLE note (note_id VARCHAR(36) PRIMARY KEY, persona_id VARCHAR(255) NOT NULL, title VARCHAR(255) NOT NULL,
  note_type VARCHAR(32) NOT NULL, description TEXT, note_metadata TEXT, is_active BOOLEAN NOT NULL,
  created_at DATETIME NOT NULL, last_opened_at DATETIME, closed_at DATETIME);
CREATE TABLE note_page (note_id VARCHAR(36) NOT NULL, page_id VARCHAR(255) NOT NULL, PRIMARY KEY (note_id, page_id));
CREATE TABLE note_message (note_id VARCHAR(36) NOT NULL, message_id VARCHAR(255) NOT NULL, added_at DATETIME,
  auto_added BOOLEAN NOT NULL, PRIMARY KEY (note_id, message_id));
CREATE TABLE track_open_note (track_id VARCHAR(36) NOT NULL, note_id VARCHAR(36) NOT NULL, opened_at DATETIME,
  PRIMARY KEY (track_id, note_id));
CREATE TABLE meta_judgment_log (judgment_id VARCHAR(36) PRIMARY KEY, persona_id VARCHAR(255) NOT NULL,
  judged_at DATETIME NOT NULL, track_at_judgment_id VARCHAR(36), trigger_type VARCHAR(32) NOT NULL,
  trigger_context TEXT, prompt_snapshot TEXT, judgment_thought TEXT, spells_emitted TEXT,
  committed_to_main_cache BOOLEAN NOT NULL);
CREATE TABLE track_local_log (log_id VARCHAR(36) PRIMARY KEY, track_id VARCHAR(36) NOT NULL, occurred_at DATETIME,
  log_kind VARCHAR(64) NOT NULL, payload TEXT, source_line_id VARCHAR(36), visible_to_other_tracks BOOLEAN NOT NULL);
CREATE TABLE addon_config (addon_name VARCHAR(255) PRIMARY KEY, is_enabled BOOLEAN, params_json TEXT,
  updated_at DATETIME);
"""
MEMORY_SQL = """
ALTER TABLE messages ADD COLUMN origin_track_id TEXT;
ALTER TABLE messages ADD COLUMN line_role TEXT;
ALTER TABLE messages ADD COLUMN line_id TEXT;
ALTER TABLE messages ADD COLUMN scope TEXT NOT NULL DEFAULT 'committed';
ALTER TABLE messages ADD COLUMN paired_action_text TEXT;
ALTER TABLE messages ADD COLUMN pulse_id TEXT;
CREATE TABLE memory_notes (id TEXT PRIMARY KEY, thread_id TEXT, content TEXT NOT NULL, source_pulse_id TEXT,
  source_time INTEGER, resolved INTEGER DEFAULT 0, group_label TEXT, action TEXT, target_page_id TEXT,
  suggested_title TEXT, target_category TEXT, created_at INTEGER);
"""
TALK, PROJECT, GONE = "t-talk", "t-project", "t-ghost"
PERSON_NOTE = "n-user"


def small_v03_home(root: Path) -> dict[str, Any]:
    """The v0.3 home; returns the facts an import of it must reproduce."""
    facts = small_home(root)
    db = sqlite3.connect(root / "user_data" / "database" / "saiverse.db")
    with db:
        db.executescript(V03_SQL)
        db.execute("ALTER TABLE ai ADD COLUMN ACTIVITY_STATE VARCHAR(32) NOT NULL DEFAULT 'Idle'")
        db.execute("ALTER TABLE ai ADD COLUMN SPELL_ENABLED BOOLEAN NOT NULL DEFAULT 0")
        for pid, state in (("air_city_a", "Active"), ("eris_city_a", "Idle"), ("nova_city_a", "Stop")):
            db.execute("UPDATE ai SET ACTIVITY_STATE = ? WHERE AIID = ?", (state, pid))
        db.execute("ALTER TABLE ai DROP COLUMN INTERACTION_MODE")
        db.execute("ALTER TABLE ai DROP COLUMN PREVIOUS_INTERACTION_MODE")
        db.execute("ALTER TABLE building ADD COLUMN MAP_X FLOAT")
        db.execute("ALTER TABLE building ADD COLUMN MAP_Y FLOAT")
        db.execute("UPDATE building SET MAP_X = 12.5, MAP_Y = -40 WHERE BUILDINGID = 'cafe_city_a'")
        db.execute("UPDATE building SET MAP_X = 'left', MAP_Y = 3 WHERE BUILDINGID = 'library_city_a'")
        db.execute("ALTER TABLE item_location ADD COLUMN SLOT_NUMBER INTEGER")
        counters: dict[tuple[str, str], int] = {}  # upstream's migration: 1, 2, 3… per container
        slot_of: dict[str, int] = {}
        for iid, kind, owner in db.execute("SELECT ITEM_ID, OWNER_KIND, OWNER_ID FROM item_location ORDER BY ITEM_ID"):
            counters[(kind, owner)] = counters.get((kind, owner), 0) + 1
            slot_of[iid] = counters[(kind, owner)]
        for iid, slot in slot_of.items():
            db.execute("UPDATE item_location SET SLOT_NUMBER = ? WHERE ITEM_ID = ?", (slot, iid))
        when = "2026-11-20 10:00:00"
        db.executemany("INSERT INTO action_track VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, NULL, NULL, ?, ?, NULL, ?, ?, "
                       "NULL, ?)", [
                           (TALK, "air_city_a", "ユーザーとの会話", "user_conversation", 1, "building:current", "running",
                            None, None, when, '{"type": "user_response"}', when, None, 1),
                           (PROJECT, "air_city_a", "星図づくり", "autonomous", 0, "none", "completed", "星図を描く",
                            '{"origin": "meta"}', when, None, when, when, 5),
                           (GONE, "ghost_city_a", "いない人", "autonomous", 0, "none", "pending", None, None, when, None,
                            when, None, None)])
        db.execute("INSERT INTO note VALUES (?, 'air_city_a', 'ユーザー', 'person', '関係', '{\"target\": \"user\"}', 1, "
                   "?, ?, NULL)", (PERSON_NOTE, when, when))
        db.execute("INSERT INTO note_page VALUES (?, 'p-user')", (PERSON_NOTE,))
        db.execute("INSERT INTO track_open_note VALUES (?, ?, ?)", (TALK, PERSON_NOTE, when))
        db.execute("INSERT INTO track_local_log VALUES ('l-1', ?, ?, 'event_message', '{\"text\": \"入室\"}', NULL, 0)",
                   (PROJECT, when))
        db.execute("INSERT INTO track_local_log VALUES ('l-2', ?, ?, 'event_message', '{}', NULL, 0)", (GONE, when))
        db.execute("INSERT INTO meta_judgment_log VALUES ('j-1', 'air_city_a', ?, ?, 'periodic_tick', '{}', 'p', "
                   "'会話を続ける', '[]', 0)", (when, TALK))
        db.execute("INSERT INTO addon_config VALUES ('tts', 1, '{}', ?)", (when,))
    air_ids = facts["message_ids"]["air_city_a"]
    with db:
        db.executemany("INSERT INTO note_message VALUES (?, ?, ?, ?)",
                       [(PERSON_NOTE, air_ids[1], when, 1), (PERSON_NOTE, air_ids[2], when, 0)])
    db.close()
    mem = sqlite3.connect(root / "personas" / "air_city_a" / "memory.db")
    with mem:
        mem.executescript(MEMORY_SQL)
        mem.execute("UPDATE messages SET line_role = 'main_line', origin_track_id = ?, line_id = 'line-main', "
                    "paired_action_text = '挨拶に答えて' WHERE id = ?", (TALK, air_ids[4]))
        mem.execute("UPDATE messages SET line_role = 'meta_judgment', scope = 'discardable', origin_track_id = ? "
                    "WHERE id = ?", (TALK, air_ids[3]))
        mem.execute("UPDATE messages SET line_role = 'sub_line', line_id = 'line-sub', origin_track_id = ? WHERE id = ?",
                    (PROJECT, air_ids[2]))
        mem.execute("INSERT INTO memory_notes (id, thread_id, content, source_time, resolved, created_at) "
                    "VALUES ('m-1', 'air_city_a:__persona__', 'ユーザーは朝型', 1795439843, 0, 1795439843)")
    mem.close()
    texts = {row_id: text for row_id, text in zip(air_ids, (
        "[定期実行] 朝の挨拶を開始しました。", "図書館に猫の本はある？", "二階に猫の写真集がありますよ。", "おはよう、エア。",
        "おはようございます！", "星図の計画を立てた。"), strict=True)}
    return {**facts, "slots": slot_of, "texts": texts, "states": {"air_city_a": ("auto", "Active"),
            "eris_city_a": ("user", "Idle"), "nova_city_a": ("sleep", "Stop")}}
