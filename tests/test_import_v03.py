"""import-saiverse on a small upstream v0.3 home of our own (tests/support/upstream_v03.py): what v0.3 adds comes
over, is shown and used, and what does not come over is named with why. A v0.2 home still imports, its
modes converted to activity states as upstream's migration does."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.upstream_small import small_home
from tests.support.upstream_v03 import GONE, PERSON_NOTE, PROJECT, TALK, small_v03_home

ROOT = Path(__file__).resolve().parents[1]


def q(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, env=env,
                          cwd=home.parent, timeout=120, check=False)


@pytest.fixture
def imported(tmp_path: Path, saiverse_home: Path) -> tuple[Path, dict[str, Any], dict[str, Any], Path]:
    root = tmp_path / "upstream"
    facts = small_v03_home(root)
    report = import_saiverse(root, load_settings(saiverse_home))
    return saiverse_home, facts, report.to_dict(), root


def test_v03_parts_come_over_and_what_does_not_is_named(
        imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, facts, report, _ = imported
    got = report["imported"]
    assert (got["action_tracks"], got["notes"], got["note_pages"], got["note_messages"], got["track_open_notes"],
            got["meta_judgments"], got["track_logs"], got["memory_notes"]) == (2, 1, 1, 2, 1, 1, 1, 1)
    skipped = {(s["kind"], s["id"]): s["reason"] for s in report["skipped"]}
    assert "取り込まれていない" in skipped[("action_track", "1 rows")]  # the summary is in Japanese by default
    assert ("track_local_log", "1 rows") in skipped  # the log of that track
    assert "アドオン" in skipped[("addon_config", "1 rows")]
    [where] = [p for p in report["problems"] if p["where"] == "building library_city_a"]
    assert "'left'" in where["message"]
    assert any("action_track.priority" in n for n in report["notes"])
    extra = json.loads(q(home, "SELECT EXTRA_JSON FROM action_track WHERE TRACK_ID = ?", PROJECT)[0][0])
    assert extra == {"upstream": {"priority": 5}}
    assert q(home, "SELECT count(*) FROM action_track WHERE TRACK_ID = ?", GONE) == [(0,)]


def test_states_positions_slots_and_line_fields(imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, facts, _, _ = imported
    states = {r[0]: (r[1], r[2]) for r in q(home, "SELECT AIID, INTERACTION_MODE, ACTIVITY_STATE FROM ai")}
    assert states == facts["states"]
    done = cli(home, "world", "--json")
    world = json.loads(done.stdout)
    assert {p["persona_id"]: p["activity_state"] for p in world["personas"]} == {
        "air_city_a": "Active", "eris_city_a": "Idle", "nova_city_a": "Stop"}
    positions = {b["building_id"]: b["map_position"] for b in world["buildings"]}
    assert positions["cafe_city_a"] == [12.5, -40.0] and positions["library_city_a"] is None
    assert dict(q(home, "SELECT ITEM_ID, SLOT_NUMBER FROM item_location")) == facts["slots"]
    air = facts["message_ids"]["air_city_a"]
    lines = {r[0]: r[1:] for r in q(home, "SELECT EXTERNAL_ID, LINE_ROLE, LINE_ID, SCOPE, ORIGIN_TRACK_ID, "
                                          "PAIRED_ACTION_TEXT FROM saimemory WHERE PERSONA_ID = 'air_city_a'")}
    assert lines[air[4]] == ("main_line", "line-main", "committed", TALK, "挨拶に答えて")
    assert lines[air[3]] == ("meta_judgment", None, "discardable", TALK, None)
    assert lines[air[2]] == ("sub_line", "line-sub", "committed", PROJECT, None)
    keyed = dict(q(home, "SELECT THREAD_ID, RESOURCE_ID FROM saimemory_thread WHERE PERSONA_ID = 'air_city_a'"))
    assert keyed["air_city_a:__persona__"] == "air_city_a"


def test_imported_lines_are_used_as_upstream_uses_them(
        imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, facts, _, _ = imported
    air = facts["message_ids"]["air_city_a"]
    texts = facts["texts"]
    manager = SAIVerseManager(load_settings(home))
    try:
        history = [line.content for line in manager.context.snapshot("air_city_a").history]
        assert texts[air[4]] in history and texts[air[1]] in history  # main line, and lines from before v0.3
        assert texts[air[3]] not in history  # discardable
        assert texts[air[2]] not in history  # another line's work
        read_back = [m["content"] for m in manager.memory.recent_persona_messages("air_city_a", None, limit=100)]
        assert texts[air[3]] not in read_back and texts[air[2]] in read_back
        assert [m["content"] for m in manager.memory.search("air_city_a", "おはよう")] == [texts[air[4]]]  # not air[3]
    finally:
        manager.close()


def test_tracks_and_notes_cli(imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, facts, _, _ = imported
    done = cli(home, "tracks", "--persona", "air_city_a", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["activity_state"] == "Active"
    assert [t["track_id"] for t in shown["tracks"]] == [TALK, PROJECT]  # the running one first
    talk, project = shown["tracks"]
    assert talk["status"] == "running" and talk["is_persistent"] and talk["waiting_for"] == {"type": "user_response"}
    assert [n["note_id"] for n in talk["open_notes"]] == [PERSON_NOTE]
    assert [g["payload"] for g in project["log"]] == [{"text": "入室"}] and project["intent"] == "星図を描く"
    assert [j["thought"] for j in shown["judgments"]] == ["会話を続ける"]
    done = cli(home, "notes", "--persona", "air_city_a", "--json")
    notes = json.loads(done.stdout)
    [note] = notes["notes"]
    assert note["pages"] == [{"page_id": "p-user", "title": "ユーザー", "found": True}]
    air = facts["message_ids"]["air_city_a"]
    assert [(m["upstream_id"], m["content"], m["auto_added"]) for m in note["messages"]] == [
        (air[1], facts["texts"][air[1]], True), (air[2], facts["texts"][air[2]], False)]
    assert [n["content"] for n in notes["memory_notes"]] == ["ユーザーは朝型"]
    text = cli(home, "tracks", "--persona", "air_city_a").stdout
    assert "[running] ユーザーとの会話" in text and "notes: ユーザー" in text
    missing = cli(home, "notes", "--persona", "nobody", "--json")
    assert missing.returncode == 2 and "nobody" in missing.stderr and missing.stdout == ""


def test_importing_again_adds_nothing(imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, _, _, root = imported
    again = import_saiverse(root, load_settings(home), merge=True).to_dict()["imported"]
    assert all(again[k] == 0 for k in ("action_tracks", "notes", "note_pages", "note_messages", "track_open_notes",
                                       "meta_judgments", "track_logs", "memory_notes", "memory_messages"))


def test_a_v02_home_gets_activity_states_as_upstream_migrates_them(tmp_path: Path, saiverse_home: Path) -> None:
    root = tmp_path / "v02"
    small_home(root)
    report = import_saiverse(root, load_settings(saiverse_home)).to_dict()
    assert report["imported"]["action_tracks"] == 0 and report["imported"]["notes"] == 0
    states = {r[0]: (r[1], r[2]) for r in q(saiverse_home, "SELECT AIID, INTERACTION_MODE, ACTIVITY_STATE FROM ai")}
    assert states == {"air_city_a": ("auto", "Active"), "eris_city_a": ("user", "Idle"),
                      "nova_city_a": ("sleep", "Sleep")}
    assert {r[0] for r in q(saiverse_home, "SELECT SLOT_NUMBER FROM item_location")} == {None}


def test_a_numbered_item_that_moves_takes_a_free_slot(
        imported: tuple[Path, dict[str, Any], dict[str, Any], Path]) -> None:
    home, _, _, _ = imported
    [(item_id,)] = q(home, "SELECT ITEM_ID FROM item_location WHERE OWNER_KIND = 'persona' AND OWNER_ID = 'eris_city_a'")
    taken = sorted(r[0] for r in q(home, "SELECT SLOT_NUMBER FROM item_location WHERE OWNER_ID = 'library_city_a'"))
    assert taken == [1, 2]
    manager = SAIVerseManager(load_settings(home))
    try:
        manager.items.move(item_id, "building", "library_city_a")
    finally:
        manager.close()
    assert q(home, "SELECT OWNER_ID, SLOT_NUMBER FROM item_location WHERE ITEM_ID = ?", item_id) == [
        ("library_city_a", 3)]


def test_an_imported_bag_keeps_what_it_holds(tmp_path: Path, saiverse_home: Path) -> None:
    """Upstream v0.3 keeps items in bags: the bag comes over as a bag with the items inside it, in their
    slots, and a persona in the room sees them in her list and takes one out (issue 35)."""
    root = tmp_path / "upstream"
    small_v03_home(root)
    db = sqlite3.connect(root / "user_data" / "database" / "saiverse.db")
    with db:
        db.execute("INSERT INTO item (ITEM_ID, NAME, TYPE, DESCRIPTION, CREATED_AT, UPDATED_AT) VALUES ('bag-1', '革の袋', 'bag', '', '2026-11-20 10:00:00', '2026-11-20 10:00:00')")
        db.execute("INSERT INTO item (ITEM_ID, NAME, TYPE, DESCRIPTION, CREATED_AT, UPDATED_AT) VALUES ('coin-1', '銀貨', 'object', '', '2026-11-20 10:00:00', '2026-11-20 10:00:00')")
        db.execute("INSERT INTO item_location (ITEM_ID, OWNER_KIND, OWNER_ID, UPDATED_AT, SLOT_NUMBER) "
                   "VALUES ('bag-1', 'building', 'library_city_a', '2026-11-20 10:00:00', 9)")
        db.execute("INSERT INTO item_location (ITEM_ID, OWNER_KIND, OWNER_ID, UPDATED_AT, SLOT_NUMBER) "
                   "VALUES ('coin-1', 'bag', 'bag-1', '2026-11-20 10:00:00', 1)")
    db.close()
    report = import_saiverse(root, load_settings(saiverse_home)).to_dict()
    assert q(saiverse_home, "SELECT TYPE FROM item WHERE ITEM_ID = 'bag-1'") == [("bag",)]
    assert q(saiverse_home, "SELECT OWNER_KIND, OWNER_ID, SLOT_NUMBER FROM item_location WHERE ITEM_ID = 'coin-1'") == [
        ("bag", "bag-1", 1)]
    assert not [p for p in report["problems"] if p["where"] in ("item coin-1", "item bag-1")]
    from saiverse.manager import SAIVerseManager

    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        who = manager.world.personas("library_city_a")[0].persona_id
        listed = manager.run_tool("item_list", who, "library_city_a", {})
        assert "「銀貨」 オブジェクト (袋「革の袋」の中)" in listed and "「革の袋」 袋" in listed
        out = json.loads(manager.run_tool("item_move", who, "library_city_a",
                                          {"item_ids": "coin-1", "destination_type": "persona"}))
        assert out["moved"][0]["owner_kind"] == "persona"
        assert manager.items.list_owned("bag", "bag-1") == []
    finally:
        manager.close()
