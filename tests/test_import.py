"""import-saiverse on small upstream homes written by tests/support/upstream_home.py: every kind comes over."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.upstream_home import T0, sha256
from tests.support.upstream_small import BROKEN, GREET, small_home

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SAIVERSE_HOME"}
    if home is not None:
        env["SAIVERSE_HOME"] = str(home)
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT.parent, timeout=180, check=False)


def rows(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    root = tmp_path / "upstream"
    return root, small_home(root)


@pytest.fixture
def imported(upstream: tuple[Path, dict[str, Any]], saiverse_home: Path) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    root, facts = upstream
    report = import_saiverse(root, load_settings(saiverse_home))
    return saiverse_home, facts, report.to_dict()


def test_cli_imports_a_home_and_shows_it(upstream: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, facts = upstream
    home = tmp_path / "target"
    done = cli("--home", str(home), "import-saiverse", str(root), "--json")  # --home before the subcommand
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["imported"]["personas"] == 3 and summary["imported"]["buildings"] == 4
    assert summary["per_owner"]["memory_messages"] == facts["messages"]
    assert summary["per_owner"]["building_log_lines"] == facts["log_lines"]
    assert "memory air_city_a" in done.stderr  # progress, plain lines when stderr is not a terminal

    world = json.loads(cli("--home", str(home), "world", "--json").stdout)
    personas = {p["persona_id"]: p for p in world["personas"]}
    assert set(personas) == set(facts["personas"])  # exactly that city: no seed personas
    assert {b["building_id"] for b in world["buildings"]} == facts["buildings"]
    air, eris = personas["air_city_a"], personas["eris_city_a"]
    assert (air["interaction_mode"], eris["interaction_mode"], personas["nova_city_a"]["interaction_mode"]) == (
        "auto", "user", "sleep")
    assert (air["default_model"], air["lightweight_model"], air["vision_model"], air["lightweight_vision_model"]) == (
        "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-flash", "gemini-2.5-flash-lite")
    assert (eris["default_model"], eris["lightweight_model"], eris["vision_model"]) == ("gpt-4.1", "gpt-5-mini", None)
    assert {p: personas[p]["building_id"] for p in personas} == facts["where"]
    assert air["private_room_id"] == "air_city_a_room"
    assert world["user_building"] == "cafe_city_a"

    history = cli("history", "--building", "cafe_city_a", "--limit", "1000", "--json", "--home", str(home))
    assert history.returncode == 0, history.stderr
    lines = [json.loads(line) for line in history.stdout.splitlines()]
    assert [line["text"] for line in lines] == [
        "昔の話", "古い記録だ。", "好きな画家はいる？", "モネが好き。", "🚶 AI Action:\nノヴァが図書館から入室しました",
        "新メニューは？", "抹茶ラテよ。"]  # old_log first, then log.json, in order; the note-box as text
    assert [line["speaker"] for line in lines[:4]] == ["ユーザー", "ノヴァ", "ユーザー", "エリス"]
    assert lines[2]["time"] == "2026-10-24T13:09:00"
    assert lines[4]["time"] == lines[3]["time"]  # a notice without a time takes the one before it

    memory = cli("memory", "--persona", "eris_city_a", "--limit", "100000", "--json", "--home", str(home))
    assert [json.loads(line)["content"] for line in memory.stdout.splitlines()] == [
        f"今日の絵のテーマは？ 第{i}回" for i in range(40)]

    bad = cli("history", "--building", "nowhere", "--home", str(home))
    assert bad.returncode == 2 and "nowhere" in bad.stderr and "Traceback" not in bad.stderr


def test_buildings_personas_and_user(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, _facts, _ = imported
    lib = rows(home, "SELECT BUILDINGNAME, CAPACITY, SYSTEM_INSTRUCTION, DESCRIPTION, AUTO_INTERVAL_SEC, ENTRY_PROMPT, "
                     "CITYID FROM building WHERE BUILDINGID = 'library_city_a'")
    assert lib == [("図書館", 8, "静かな図書館です。", "古い書物の図書館", 600, "図書館に入りました。", "city_a")]
    extra = json.loads(rows(home, "SELECT EXTRA_JSON FROM building WHERE BUILDINGID = 'cafe_city_a'")[0][0])
    assert extra["upstream"]["EXTRA_PROMPT_FILES"] == '["body_control.txt"]'
    assert rows(home, "SELECT CITYID, CITYNAME, DESCRIPTION FROM city") == [("city_a", "city_a", "シティA")]
    assert rows(home, "SELECT USERNAME, CURRENT_BUILDINGID FROM user") == [("ユーザー", "cafe_city_a")]
    air = rows(home, "SELECT SYSTEMPROMPT, PREVIOUS_INTERACTION_MODE, CHRONICLE_ENABLED, EXTRA_JSON FROM ai "
                     "WHERE AIID = 'air_city_a'")[0]
    assert air[:3] == ("あなたはエア。", "auto", 1)
    assert json.loads(air[3])["upstream"]["EMOTION"] == '{"affect": {"mean": 0.2}}'
    nova_extra = json.loads(rows(home, "SELECT EXTRA_JSON FROM ai WHERE AIID = 'nova_city_a'")[0][0])["upstream"]
    assert nova_extra["working_memory"] == {"current_goal": "流星群観測の準備"}
    assert nova_extra["active_state"]["active_thread_id"] == "__persona__"


def test_items_and_files_are_byte_identical(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, facts, report = imported
    manager = SAIVerseManager(load_settings(home))
    try:
        for item_id, source in facts["items"].items():
            info = manager.item(item_id)
            if source is None:
                assert info.type == "object" and info.file_path is None
                continue
            copied = manager.items.file_of(info)
            assert sha256(copied) == sha256(source)
            assert info.file_path == f"{source.parent.name}/{source.name}"  # the absolute path became relative
            sidecar = copied.with_name(copied.name + ".summary.txt")
            assert sidecar.read_bytes() == source.with_name(source.name + ".summary.txt").read_bytes()
        guide = next(i for i, p in facts["items"].items() if p is not None and p.suffix == ".txt")
        assert "猫の本" in manager.items.read_document(guide)
        assert manager.item(guide).state == {"is_open": True}
        owned = {(i.name, i.owner_kind, i.owner_id) for i in manager.items.list_owned("persona", "eris_city_a")}
        assert owned == {("夕焼けのスケッチ", "persona", "eris_city_a")}
        assert [i.name for i in manager.items.list_owned("building", "library_city_a")] == ["図書館の利用案内", "真鍮の望遠鏡"]
    finally:
        manager.close()
    avatar = rows(home, "SELECT AVATAR_IMAGE FROM ai WHERE AIID = 'air_city_a'")[0][0]
    assert avatar == "icons/air_city_a_1795439843.webp"  # found by its user_data/icons/ part
    assert sha256(home / avatar) == sha256(facts["avatar"])
    assert report["imported"]["files"] == 7 and report["imported"]["avatars"] == 1


def test_memory_messages_threads_and_tags(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, facts, _ = imported
    for persona, count in facts["messages"].items():
        assert rows(home, "SELECT count(*) FROM saimemory WHERE PERSONA_ID = ?", persona) == [(count,)]
        stored = [r[0] for r in rows(home, "SELECT EXTERNAL_ID FROM saimemory WHERE PERSONA_ID = ? ORDER BY ID", persona)]
        assert stored == facts["message_ids"][persona]  # oldest first, upstream ids kept
    air = rows(home, "SELECT ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT, THREAD_ID, BUILDING_ID, METADATA FROM saimemory "
                     "WHERE PERSONA_ID = 'air_city_a' ORDER BY ID")
    assert air[0][0] == "system" and air[0][3] == "8447a2a2-3f4d-4dbd-b3ff-7e961be72e69"
    assert json.loads(air[0][2]) == ["internal", "pulse:8447a2a2-3f4d-4dbd-b3ff-7e961be72e69", "playbook:meta_user"]
    assert air[0][4] == "2026-10-24 00:00:00.000000"  # epoch seconds → naive UTC
    assert json.loads(air[2][2]) == ["conversation", "pulse:8447a2a2-3f4d-4dbd-b3ff-7e961be72e69", "with:user"]
    assert json.loads(air[2][7]) == {"media": [{"type": "image"}]}  # other metadata kept
    assert json.loads(air[4][2]) == ["conversation", "with:user", "with:eris_city_a"]
    assert (air[3][5], air[3][6]) == ("air_city_a:user_room_city_a", "user_room_city_a")  # a building thread
    assert (air[5][5], air[5][6], air[5][2], air[5][7]) == ("air_city_a:project_star_map", None, "[]", None)
    threads = dict(rows(home, "SELECT THREAD_ID, EXTRA_JSON FROM saimemory_thread WHERE PERSONA_ID = 'nova_city_a'"))
    assert set(threads) == {"nova_city_a:__persona__", "nova_city_a:stelis_97b421a8", "nova_city_a:library_city_a"}
    stelis = json.loads(threads["nova_city_a:stelis_97b421a8"])["stelis"]
    assert stelis["label"] == "流星群観測計画" and stelis["chronicle_summary"].startswith("流星群観測")
    manager = SAIVerseManager(load_settings(home))
    try:
        conversation = manager.memory.recent_persona_messages("air_city_a", ("conversation",))
        assert [m["content"] for m in conversation] == ["図書館に猫の本はある？", "二階に猫の写真集がありますよ。",
                                                        "おはよう、エア。", "おはようございます！"]
        assert [m["content"] for m in manager.memory.list_messages("air_city_a", tag="with:eris_city_a")] == [
            "おはようございます！"]
    finally:
        manager.close()


@pytest.mark.parametrize("term, expected", [
    ("猫", {"図書館に猫の本はある？", "二階に猫の写真集がありますよ。"}),
    ("図書", {"図書館に猫の本はある？"}),
    ("写真集", {"二階に猫の写真集がありますよ。"}),
    ("猫 二階", {"二階に猫の写真集がありますよ。"}),
])
def test_recall_works_right_after_import(imported: tuple[Path, dict[str, Any], dict[str, Any]], term: str,
                                         expected: set[str]) -> None:
    home, _, _ = imported
    manager = SAIVerseManager(load_settings(home))
    try:
        assert {m["content"] for m in manager.memory.search("air_city_a", term)} == expected
        assert manager.memory.search("eris_city_a", "猫") == []  # per persona
    finally:
        manager.close()


def test_memopedia_and_chronicle_are_kept(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, facts, _ = imported
    page = rows(home, "SELECT PARENT_ID, TITLE, SUMMARY, CONTENT, CATEGORY, KEYWORDS, VIVIDNESS, IS_IMPORTANT, "
                      "IS_DELETED, CREATED_AT, UPDATED_AT, LAST_REFERENCED_AT FROM memopedia_page "
                      "WHERE PERSONA_ID = 'air_city_a' AND PAGE_ID = 'p-user'")
    assert page == [("root_people", "ユーザー", "ユーザーの要約", "朝の挨拶を欠かさない。", "people",
                     json.dumps(["ユーザー", "挨拶"]), "vivid", 1, 0, "2026-10-24 00:00:00.000000",
                     "2026-10-24 00:00:05.000000", "2026-10-24 00:00:09.000000")]
    assert {r[0] for r in rows(home, "SELECT PAGE_ID FROM memopedia_page WHERE PERSONA_ID = 'air_city_a'")} == {
        "root_people", "root_terms", "p-user", "p-city"}
    assert rows(home, "SELECT EDIT_TYPE, DIFF_TEXT FROM memopedia_edit WHERE PAGE_ID = 'p-user'") == [
        ("create", "+title: ユーザー")]
    assert rows(home, "SELECT THREAD_ID, IS_OPEN FROM memopedia_page_state WHERE PAGE_ID = 'p-city'") == [
        ("air_city_a:__persona__", 1)]
    entries = rows(home, "SELECT ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, SOURCE_COUNT, MESSAGE_COUNT, PARENT_ID, "
                         "START_TIME, END_TIME FROM chronicle_entry WHERE PERSONA_ID = 'air_city_a' ORDER BY LEVEL")
    assert entries[0][:6] == ("a-1", 1, "エアはユーザーと猫の本について話した。",
                              json.dumps(facts["message_ids"]["air_city_a"][:3]), 3, 6)
    assert entries[0][7:] == ("2026-10-24 00:00:00.000000", "2026-10-24 01:00:00.000000")
    assert entries[1][:2] == ("a-2", 2) and json.loads(entries[1][3]) == ["a-1"]
    # The documented query: the messages a level-1 entry summarises, through their upstream ids.
    summarised = rows(home, "SELECT m.CONTENT FROM chronicle_entry c, json_each(c.SOURCE_IDS) s JOIN saimemory m "
                            "ON m.PERSONA_ID = c.PERSONA_ID AND m.EXTERNAL_ID = s.value "
                            "WHERE c.ENTRY_ID = 'a-1' ORDER BY m.ID")
    assert [r[0] for r in summarised] == ["[定期実行] 朝の挨拶を開始しました。", "図書館に猫の本はある？",
                                          "二階に猫の写真集がありますよ。"]
    assert rows(home, "SELECT LAST_MESSAGE_ID FROM chronicle_progress WHERE PERSONA_ID = 'air_city_a'") == [
        (facts["message_ids"]["air_city_a"][2],)]


def test_schedules_and_events(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, _, _ = imported
    sched = {r[0]: r[1:] for r in rows(home, "SELECT PERSONA_ID, KIND, DAYS_OF_WEEK, TIME_OF_DAY, RUN_AT, INTERVAL_SEC, "
                                             "META_PLAYBOOK, ARGS_JSON, DESCRIPTION, NEXT_RUN_AT FROM schedule")}
    assert sched["air_city_a"][:7] == ("periodic", "mon,tue,wed,thu,fri", "09:00", None, None, "meta_auto",
                                       '{"selected_playbook": "basic_chat"}')
    assert sched["air_city_a"][7] == "平日朝の挨拶" and sched["air_city_a"][8] is not None
    assert sched["nova_city_a"][:4] == ("oneshot", None, None, "2099-12-05 12:00:00.000000")
    assert sched["eris_city_a"][:6] == ("interval", None, None, None, 3600, "meta_user")
    manager = SAIVerseManager(load_settings(home))
    try:
        listed = {s.persona_id: s for s in manager.schedules.list()}
        assert listed["air_city_a"].args == {"selected_playbook": "basic_chat"}
        assert listed["nova_city_a"].next_run_at == "2099-12-05T12:00"
    finally:
        manager.close()
    assert rows(home, "SELECT PERSONA_ID, CONTENT, STATUS, EVENT_TYPE, CREATED_AT FROM persona_event_log ORDER BY "
                      "CREATED_AT") == [
        ("air_city_a", "ユーザーが図書館を訪れた。", "archived", "visit", "2026-11-06 10:00:00.000000"),
        ("nova_city_a", "星空観察ノートを置いた。", "archived", None, "2026-11-06 10:00:00.000000")]


def test_user_playbooks_are_validated_and_builtins_left_out(imported: tuple[Path, dict[str, Any], dict[str, Any]]
                                                             ) -> None:
    home, _, report = imported
    assert [r[0] for r in rows(home, "SELECT NAME FROM playbooks")] == [GREET["name"]]
    skipped = {s["id"]: s["reason"] for s in report["skipped"] if s["kind"] == "playbook"}
    assert set(skipped) == {BROKEN["name"]}
    assert "nowhere" in skipped[BROKEN["name"]]  # the validation message
    manager = SAIVerseManager(load_settings(home))
    try:
        events = list(manager.run_playbook(manager.playbooks.get("greet_twice"), "eris_city_a", args={"input": "またね"}))
        said = [e["text"] for e in events if e["type"] == "say"]
        assert said == ["こんにちは", "またね"]
    finally:
        manager.close()


def test_a_user_playbook_calling_another_imports_in_any_order(upstream: tuple[Path, dict[str, Any]],
                                                               saiverse_home: Path) -> None:
    root, _ = upstream
    db = sqlite3.connect(root / "user_data" / "database" / "saiverse.db")
    caller = {"name": "aaa_caller", "description": "greet_twice を呼ぶ", "input_schema": [{"name": "input"}],
              "nodes": [{"id": "c", "type": "subplay", "playbook": "zzz_callee", "args": {"input": "{input}"},
                         "next": None}], "start_node": "c"}
    callee = {**GREET, "name": "zzz_callee"}
    for doc in (caller, callee):
        db.execute("INSERT INTO playbooks (name, description, scope, schema_json, nodes_json, router_callable, "
                   "user_selectable, dev_only, created_at, updated_at) VALUES (?, ?, 'public', '{}', ?, 0, 0, 0, "
                   "'2026-11-23', '2026-11-23')", (doc["name"], doc["description"], json.dumps(doc)))
    db.commit()
    db.close()
    report = import_saiverse(root, load_settings(saiverse_home))
    assert report.imported["playbooks"] == 3
    assert {r[0] for r in rows(saiverse_home, "SELECT NAME FROM playbooks")} == {"greet_twice", "aaa_caller",
                                                                                  "zzz_callee"}


def test_first_message_time_is_utc(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, _, _ = imported
    manager = SAIVerseManager(load_settings(home))
    try:
        first = manager.memory.list_messages("nova_city_a", limit=1000)[-1]
        assert first["created_at"] == datetime.fromtimestamp(T0 + 10, UTC).isoformat()
    finally:
        manager.close()


def test_memory_listing_streams_any_limit(imported: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    home, _, _ = imported
    conn = sqlite3.connect(home / "saiverse.db")
    conn.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('eris_city_a', 'user', ?)",
                     [(f"追加{i}",) for i in range(2500)])  # more than one page of the listing
    conn.commit()
    conn.close()
    manager = SAIVerseManager(load_settings(home))
    try:
        every = [m["content"] for m in manager.memory.iter_messages("eris_city_a")]
        assert len(every) == 2540 and every[0] == "今日の絵のテーマは？ 第0回" and every[-1] == "追加2499"
        assert [m["content"] for m in manager.memory.iter_messages("eris_city_a", limit=2)] == every[-2:]
        assert [m["content"] for m in manager.memory.iter_messages("eris_city_a", limit=1001)] == every[-1001:]
        assert list(manager.memory.iter_messages("eris_city_a", limit=10**9)) == list(
            manager.memory.iter_messages("eris_city_a"))
        assert list(manager.memory.iter_messages("eris_city_a", limit=0)) == []
    finally:
        manager.close()


def test_the_summary_speaks_english_when_asked(upstream: tuple[Path, dict[str, Any]], saiverse_home: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = upstream
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    report = import_saiverse(root, load_settings(saiverse_home))
    text = report.text()
    assert text.startswith("SAIVerse import: ") and "SAIMemory messages" in text and "Not imported (1):" in text
    assert "broken_flow: it does not validate" in text
    ja = report.to_dict()
    assert ja["imported"]["memory_messages"] == 50 and ja["skipped"][0]["reason"].startswith("it does not validate")
