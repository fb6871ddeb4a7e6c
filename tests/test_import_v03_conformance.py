"""Conformance: importing upstream's v0.3 reference home (made by upstream's own code) reproduces every fact
in its `saiverse-home-v03.expected.json`, and nothing of v0.3 is lost silently. The reference lives beside
the checkout (`../shared/compat-v03`, or `$SAIVERSE_COMPAT_V03_DIR`); without it this module is skipped,
saying so."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from saiverse.importer import import_saiverse
from saiverse.settings import load_settings
from tests.support.compat import COMPAT_V03_DIR
from tests.support.upstream_home import tree_digest

ROOT = Path(__file__).resolve().parents[1]
HOME = "saiverse-home-v03"
COMPAT = COMPAT_V03_DIR if COMPAT_V03_DIR is not None and (COMPAT_V03_DIR / f"{HOME}.expected.json").is_file() else None
pytestmark = pytest.mark.skipif(
    COMPAT is None, reason="upstream v0.3 reference data not found (../shared/compat-v03 or $SAIVERSE_COMPAT_V03_DIR)")


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    assert COMPAT is not None
    source = COMPAT / HOME
    home = tmp_path_factory.mktemp("conformance_v03") / "home"
    before = tree_digest(source)
    report = import_saiverse(source, load_settings(home))
    assert tree_digest(source) == before, "the reference home was modified"
    return home, json.loads((COMPAT / f"{HOME}.expected.json").read_text(encoding="utf-8")), report.to_dict()


def q(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def cli(home: Path, *args: str) -> Any:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, env=env,
                          cwd=home.parent, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_count_matches_and_nothing_is_silently_lost(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    _home, want, report = result
    got = report["imported"]
    assert report["problems"] == [] and report["skipped"] == []  # this home's addon tables etc. are empty
    assert any("LAST_KNOWN_VERSION (0.3.0.dev0)" in n for n in report["notes"])  # named, not silently dropped
    assert got["personas"] == len(want["personas"]) and got["buildings"] == len(want["buildings"])
    assert got["items"] == len(want["items"])
    assert report["per_owner"]["memory_messages"] == want["memory_messages"]
    assert got["memory_threads"] == sum(len(t) for t in want["memory_threads"].values())
    assert got["memopedia_pages"] == sum(want["memopedia_pages"].values())
    assert got["chronicle_entries"] == sum(want["chronicle_entries"].values())
    assert got["memory_notes"] == sum(want["memory_notes"].values())
    assert report["per_owner"]["building_log_lines"] == want["building_log_lines"]
    assert got["schedules"] == want["schedule_count"] and got["events"] == want["event_log_count"]
    assert got["action_tracks"] == want["action_track_count"] and got["notes"] == want["note_count"]
    assert got["note_pages"] == want["note_page_count"] and got["note_messages"] == want["note_message_count"]
    assert got["track_open_notes"] == want["track_open_note_count"]
    assert got["meta_judgments"] == want["meta_judgment_log_count"]
    assert got["track_logs"] == want["track_local_log_count"]


def test_activity_states_are_kept_and_shown(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, want, _ = result
    mode = {"Active": "auto", "Idle": "user", "Sleep": "sleep", "Stop": "sleep"}
    stored = {r[0]: (r[1], r[2]) for r in q(home, "SELECT AIID, INTERACTION_MODE, ACTIVITY_STATE FROM ai")}
    for p in want["personas"]:
        assert stored[p["id"]] == (mode[p["activity_state"]], p["activity_state"]), p["id"]
    shown = {p["persona_id"]: p["activity_state"] for p in cli(home, "world", "--json")["personas"]}
    assert shown == {p["id"]: p["activity_state"] for p in want["personas"]}
    extra = json.loads(q(home, "SELECT EXTRA_JSON FROM ai WHERE AIID = 'air_city_a'")[0][0])["upstream"]
    assert (extra["SPELL_ENABLED"], extra["SLEEP_ON_CACHE_EXPIRE"], extra["LAST_KNOWN_VERSION"]) == (1, 0, "0.3.0.dev0")


def test_map_positions_and_item_slots(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, want, _ = result
    where = {r[0]: (r[1], r[2]) for r in q(home, "SELECT BUILDINGID, MAP_X, MAP_Y FROM building")}
    assert where == {b["id"]: (b["map_x"], b["map_y"]) for b in want["buildings"]}
    slots = {r[0]: (r[1], r[2], r[3]) for r in q(home, "SELECT ITEM_ID, OWNER_KIND, OWNER_ID, SLOT_NUMBER "
                                                       "FROM item_location")}
    assert slots == {i["id"]: (i["owner_kind"], i["owner_id"], i["slot_number"]) for i in want["items"]}


def test_message_line_fields_and_persona_threads(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, want, _ = result
    for persona, facts in want["message_line_metadata"].items():
        [(role_set, track_set, discardable)] = q(
            home, "SELECT count(LINE_ROLE), count(ORIGIN_TRACK_ID), sum(SCOPE = 'discardable') FROM saimemory "
                  "WHERE PERSONA_ID = ?", persona)
        assert (role_set, track_set, discardable) == (facts["line_role_set"], facts["origin_track_id_set"],
                                                      facts["scope_discardable"]), persona
    for persona, threads in want["memory_threads"].items():
        counts = dict(q(home, "SELECT THREAD_ID, count(*) FROM saimemory WHERE PERSONA_ID = ? GROUP BY 1", persona))
        assert counts == threads
        keyed = dict(q(home, "SELECT THREAD_ID, RESOURCE_ID FROM saimemory_thread WHERE PERSONA_ID = ?", persona))
        assert keyed[f"{persona}:__persona__"] == persona  # upstream keys a persona's threads by its id


def test_tracks_and_notes_come_with_their_links(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, want, _ = result
    status: Counter[str] = Counter()
    linked_notes = linked_messages = 0
    for p in want["personas"]:
        shown = cli(home, "tracks", "--persona", p["id"], "--json")
        assert shown["activity_state"] == p["activity_state"]
        status.update(t["status"] for t in shown["tracks"])
        assert sum(t["status"] == "running" for t in shown["tracks"]) <= 1
        linked_notes += sum(len(t["open_notes"]) for t in shown["tracks"])
        notes = cli(home, "notes", "--persona", p["id"], "--json")
        for n in notes["notes"]:
            assert all(page["found"] for page in n["pages"]), n["title"]
            assert all(m["found"] and m["content"] for m in n["messages"]), n["title"]
            linked_messages += len(n["messages"])
        assert len(notes["memory_notes"]) == want["memory_notes"][p["id"]]
    assert dict(status) == want["action_tracks"]
    assert linked_notes == want["track_open_note_count"] and linked_messages == want["note_message_count"]


def test_a_discardable_line_is_not_fed_back_into_context(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, want, _ = result
    from saiverse.manager import SAIVerseManager

    manager = SAIVerseManager(load_settings(home))
    try:
        for persona, facts in want["message_line_metadata"].items():
            recent = manager.memory.recent_persona_messages(persona, None, limit=1000)  # what tools read back
            assert len(recent) == want["memory_messages"][persona] - facts["scope_discardable"]
            listed = manager.memory.list_messages(persona, limit=1000)  # browsing shows everything
            assert len(listed) == want["memory_messages"][persona]
            history = {line.content for line in manager.context.snapshot(persona).history}
            sub = {r[0] for r in q(home, "SELECT CONTENT FROM saimemory WHERE PERSONA_ID = ? AND (SCOPE = "
                                         "'discardable' OR LINE_ROLE IN ('sub_line', 'nested'))", persona)}
            assert sub and not sub & history, persona
    finally:
        manager.close()
