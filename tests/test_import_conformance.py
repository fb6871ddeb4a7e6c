"""Conformance: importing the upstream reference home (made by upstream's own code) reproduces everything in
its `saiverse-home.expected.json`. The reference lives beside the checkout (`../shared/compat`, or
`$SAIVERSE_COMPAT_DIR`); without it this module is skipped, saying so."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.compat import COMPAT_DIR
from tests.support.upstream_home import tree_digest

ROOT = Path(__file__).resolve().parents[1]


COMPAT = COMPAT_DIR if COMPAT_DIR is not None and (COMPAT_DIR / "saiverse-home.expected.json").is_file() else None
pytestmark = pytest.mark.skipif(
    COMPAT is None, reason="upstream reference data not found (../shared/compat or $SAIVERSE_COMPAT_DIR)")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    assert COMPAT is not None
    source = COMPAT / "saiverse-home"
    home = tmp_path_factory.mktemp("conformance") / "home"
    before = tree_digest(source)
    report = import_saiverse(source, load_settings(home))
    assert tree_digest(source) == before, "the reference home was modified"
    return home, json.loads((COMPAT / "saiverse-home.expected.json").read_text(encoding="utf-8")), report.to_dict()


def _rows(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_nothing_skipped_nothing_wrong(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    _home, expected, report = result
    assert report["problems"] == [] and report["skipped"] == []
    assert report["imported"]["playbooks"] == 0  # every row of upstream's playbooks table is a builtin
    assert report["notes"] == [f"アップストリーム組み込みのプレイブック {expected['playbook_count']} 件は取り込んでいません "
                               "(このアプリのものを使います)"]
    assert report["imported"]["cities"] == 1


def test_personas(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, expected, _ = result
    assert COMPAT is not None
    manager = SAIVerseManager(load_settings(home))
    try:
        got = {p.persona_id: p for p in manager.world.personas()}
        assert set(got) == {p["id"] for p in expected["personas"]}
        for want in expected["personas"]:
            p = got[want["id"]]
            assert (p.name, p.interaction_mode, p.building_id, p.private_room_id) == (
                want["name"], want["interaction_mode"], want["current_building"], want["private_room"])
            assert (p.default_model, p.lightweight_model, p.vision_model, p.lightweight_vision_model) == (
                want["default_model"], want["lightweight_model"], want["vision_model"],
                want["lightweight_vision_model"])
            if want["avatar_file"] is None:
                assert p.avatar_image is None
            else:
                assert _sha(home / p.avatar_image) == _sha(COMPAT / "saiverse-home" / want["avatar_file"])
    finally:
        manager.close()


def test_city_and_buildings(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, expected, _ = result
    assert _rows(home, "SELECT CITYNAME FROM city") == [(expected["city"]["name"],)]
    got = {r[0]: r[1:] for r in _rows(home, "SELECT BUILDINGID, BUILDINGNAME, CAPACITY FROM building")}
    assert got == {b["id"]: (b["name"], b["capacity"]) for b in expected["buildings"]}


def test_items_with_their_files(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, expected, _ = result
    got = {r[0]: r[1:] for r in _rows(home, "SELECT i.ITEM_ID, i.NAME, i.TYPE, i.FILE_PATH, l.OWNER_KIND, l.OWNER_ID "
                                             "FROM item i JOIN item_location l USING (ITEM_ID)")}
    assert set(got) == {i["id"] for i in expected["items"]}
    for want in expected["items"]:
        name, kind, file_path, owner_kind, owner_id = got[want["id"]]
        assert (name, kind, file_path, owner_kind, owner_id) == (
            want["name"], want["type"], want["file_path"], want["owner_kind"], want["owner_id"])
        if want["sha256"] is not None:
            assert _sha(home / file_path) == want["sha256"]
            assert (home / f"{file_path}.summary.txt").is_file() == (
                COMPAT / "saiverse-home" / f"{want['file_path']}.summary.txt").is_file()


def test_memory_per_persona_and_thread(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, expected, report = result
    assert report["per_owner"]["memory_messages"] == expected["memory_messages"]
    for persona, threads in expected["memory_threads"].items():
        got = dict(_rows(home, "SELECT THREAD_ID, count(*) FROM saimemory WHERE PERSONA_ID = ? GROUP BY THREAD_ID",
                         persona))
        assert got == threads
    for persona, n in expected["memopedia_pages"].items():
        assert _rows(home, "SELECT count(*) FROM memopedia_page WHERE PERSONA_ID = ?", persona) == [(n,)]
    for persona, n in expected["chronicle_entries"].items():
        assert _rows(home, "SELECT count(*) FROM chronicle_entry WHERE PERSONA_ID = ?", persona) == [(n,)]
    manager = SAIVerseManager(load_settings(home))
    try:
        for persona in expected["memory_messages"]:
            listed = manager.memory_messages(persona, limit=100_000)
            assert len(listed) == expected["memory_messages"][persona]
        assert manager.memory.search("nova_city_a", "星")  # recall, 1-character term, right after import
    finally:
        manager.close()


def test_building_logs_schedules_events(result: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, expected, report = result
    assert report["per_owner"]["building_log_lines"] == expected["building_log_lines"]
    for building, n in expected["building_log_lines"].items():
        assert _rows(home, "SELECT count(*) FROM building_history WHERE BUILDINGID = ?", building) == [(n,)]
    assert _rows(home, "SELECT count(*) FROM schedule") == [(expected["schedule_count"],)]
    assert _rows(home, "SELECT count(*) FROM persona_event_log") == [(expected["event_log_count"],)]
    notes = _rows(home, "SELECT CONTENT, METADATA FROM building_history WHERE SPEAKER_KIND = 'system'")
    assert notes and all("<" not in content and "note-box" in json.loads(meta)["html"] for content, meta in notes)
