"""Upstream SAIVerse playbooks run unchanged: format, import rules, and the six of a user turn.

The small playbooks here are written in upstream's format (maha0525/SAIVerse) by these tests, so
the suite passes on a checkout alone. The conformance tests at the end read upstream's own files
from `../shared/compat/` and skip, saying so, where that folder is absent.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chat import ChatRequest
from saiverse.llm.offline import OfflineModel
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from sea.playbook import MAX_PLAYBOOK_BYTES, PlaybookError, parse_playbook
from tests.support.compat import compat_path

ROOT = Path(__file__).resolve().parents[1]
SIX = ("meta_user", "sub_router_user", "sub_speak", "basic_chat", "memory_recall_playbook", "document_create_playbook")


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=env, cwd=home.parent, timeout=120, check=False)


def only(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


# Upstream's shapes, written here: a router that reads list_available_playbooks (no enum in its
# schema), a document playbook whose args_input are dotted state paths, a speak playbook whose
# llm node uses the dict form of output_keys and metadata_key, a meta playbook with exec defaults.
UP_ROUTER = {
    "name": "sub_router_user", "description": "Route user input to appropriate playbook",
    "input_schema": [{"name": "input", "description": "User input"},
                     {"name": "available_playbooks", "description": "JSON list of available playbooks"},
                     {"name": "executed_playbooks", "description": "Already executed"}],
    "output_schema": ["selected_playbook", "selected_args"], "router_callable": False,
    "nodes": [
        {"id": "decide", "type": "llm", "context_profile": "router",
         "action": "You are the SEA router.\n## Available Playbooks\n{available_playbooks}\n"
                   "Executed: {executed_playbooks}\nRespond ONLY with JSON per the schema.",
         "response_schema": {"type": "object", "properties": {"reason": {"type": "string"},
                                                              "playbook": {"type": "string"}},
                             "required": ["reason", "playbook"]},
         "output_key": "decision", "output_mapping": {"playbook": "selected_playbook"},
         "conditional_next": {"field": "decision.playbook", "cases": {"basic_chat": None, "default": "log"}}},
        {"id": "log", "type": "memorize", "action": "{last}", "role": "assistant", "tags": ["router"], "next": None}],
    "start_node": "decide"}
UP_DOCUMENT = {
    "name": "garden_document", "display_name": "庭の記録", "description": "Create a new document item",
    "input_schema": [{"name": "input", "description": "Request"}], "router_callable": True,
    "nodes": [
        {"id": "generate_content", "type": "llm", "context_profile": "conversation",
         "action": "document_createツールの引数を決定します。文書の名前、説明、内容を生成してください。",
         "response_schema": {"type": "object", "properties": {
             "name": {"type": "string", "description": "Name of the document"},
             "description": {"type": "string", "description": "Brief description of the document"},
             "content": {"type": "string", "description": "Full text content of the document"}},
             "required": ["name", "description", "content"]},
         "output_key": "document_data", "memorize": {"tags": ["internal", "document_create"]}, "next": "create"},
        {"id": "create", "type": "tool", "action": "document_create",
         "args_input": {"name": "document_data.name", "description": "document_data.description",
                        "content": "document_data.content"}, "next": "record"},
        {"id": "record", "type": "memorize", "action": "{last}", "role": "user",
         "tags": ["internal", "document_create", "playbook_result"], "next": None}],
    "start_node": "generate_content"}
UP_SPEAK = {
    "name": "sub_speak", "description": "Compose final response and speak",
    "input_schema": [{"name": "input", "description": "Prompt"}, {"name": "metadata", "description": "Metadata"}],
    "router_callable": False,
    "nodes": [
        {"id": "compose", "type": "llm", "context_profile": "conversation", "action": None, "speak": True,
         "metadata_key": "metadata", "memorize": {"tags": ["conversation"]},
         "output_keys": [{"text": "speak_content"}], "next": "process_body", "conditional_next": None},
        {"id": "process_body", "type": "tool", "action": "control_body", "args_input": {"message": "speak_content"},
         "output_key": None, "next": None}],
    "start_node": "compose"}
UP_META = {
    "name": "meta_user", "display_name": "ツール自動使用", "description": "Router -> sub-playbook -> speak",
    "input_schema": [{"name": "input", "description": "User input"}], "output_schema": None,
    "router_callable": False, "user_selectable": True,
    "nodes": [
        {"id": "init", "type": "set", "assignments": {"meta_playbook_name": "meta_user",
                                                      "executed_playbooks_init": True}, "next": "list_playbooks"},
        {"id": "list_playbooks", "type": "tool", "action": "list_available_playbooks", "args_input": {},
         "output_key": "available_playbooks", "next": "router"},
        {"id": "router", "type": "subplay", "playbook": "sub_router_user",
         "args": {"input": "{input}", "available_playbooks": "{available_playbooks}",
                  "executed_playbooks": "{executed_playbooks}"}, "propagate_output": False, "next": "check"},
        {"id": "check", "type": "pass", "conditional_next": {
            "field": "selected_playbook", "operator": "eq", "cases": {"basic_chat": "finalize_direct",
                                                                      "default": "exec"}}},
        {"id": "exec", "type": "exec", "next": "finalize", "error_next": "finalize"},
        {"id": "finalize_direct", "type": "subplay", "playbook": "sub_speak", "isolate_pulse_context": True,
         "args": {"input": "{input}", "metadata": "{metadata}"}, "propagate_output": True, "next": None},
        {"id": "finalize", "type": "subplay", "playbook": "sub_speak",
         "args": {"input": "{input}", "metadata": "{metadata}"}, "propagate_output": True, "next": None}],
    "start_node": "init"}


def store(m: SAIVerseManager, data: dict[str, Any], *, replace: bool = False) -> None:
    m.playbooks.store(m.playbooks.check_text(json.dumps(data, ensure_ascii=False)), replace=replace)


def test_upstream_turn_routes_by_keywords_and_writes_a_real_document(manager: SAIVerseManager) -> None:
    for pb in (UP_ROUTER, UP_SPEAK, UP_META):
        store(manager, pb, replace=True)
    store(manager, {**UP_DOCUMENT, "keywords": ["庭の記録", "水やり"]})
    assert manager.playbooks.is_overridden("meta_user") and not manager.playbooks.is_builtin("meta_user")
    events = list(manager.handle_user_input("library", "水やりの記録をつけて: 今朝は花壇のバラに水をやった。"))
    assert only(events, "pulse_end")[0]["status"] == "ok", only(events, "error")
    listed = json.loads(only(events, "tool_result")[0]["result"])
    garden = next(e for e in listed if e["name"] == "garden_document")
    assert garden == {"name": "garden_document", "display_name": "庭の記録",
                      "description": "Create a new document item", "keywords": ["庭の記録", "水やり"]}
    [created] = only(events, "item_created")
    item = created["item"]
    assert item["name"] == "水やりの記録" and "document_data" not in item["name"]
    assert "今朝は花壇のバラに水をやった。" in manager.item_view(item["item_id"])["text"]
    [speak] = only(events, "speak")
    assert "水やりの記録" in speak["text"]  # the sub-playbook's result reached the reply
    body = next(e for e in only(events, "tool_call") if e["tool"] == "control_body")
    assert body["args"] == {"message": speak["text"]}
    # A greeting: upstream's router ends on basic_chat; the isolated speak playbook still answers.
    events = list(manager.handle_user_input("library", "こんにちは"))
    assert only(events, "pulse_end")[0]["status"] == "ok" and only(events, "speak")
    assert not only(events, "item_created")


def test_imported_keywords_route_exactly_like_a_builtins(manager: SAIVerseManager) -> None:
    store(manager, {**UP_DOCUMENT, "keywords": ["園芸日誌"]})
    events = list(manager.handle_user_input("library", "園芸日誌をつけて: トマトが赤くなった"))
    assert "garden_document" in {e.get("playbook") for e in events}
    assert only(events, "item_created")[0]["item"]["name"] == "園芸日誌"


def test_list_available_playbooks_shows_what_a_router_may_choose(manager: SAIVerseManager) -> None:
    store(manager, {**UP_DOCUMENT, "name": "secret_tool", "dev_only": True})
    store(manager, {**UP_DOCUMENT, "name": "x_post", "required_credentials": ["x"]})
    listed = json.loads(manager.run_tool("list_available_playbooks", "mina", None, {}))
    names = [e["name"] for e in listed]
    assert names == sorted(names) and "basic_chat" in names and "memory_recall" in names
    assert "secret_tool" not in names and "x_post" not in names and "meta_user" not in names
    basic = next(e for e in listed if e["name"] == "basic_chat")
    assert set(basic) == {"name", "display_name", "description", "keywords"} and basic["keywords"]
    same = json.loads(manager.run_tool("list_available_playbooks", "mina", None,
                                       {"persona_id": "mina", "building_id": "library"}))
    assert same == listed
    report = manager.playbooks.validate(manager.playbooks.get("secret_tool"))
    assert report.needs == []


def test_control_body_returns_the_message_and_names_unsent_commands(manager: SAIVerseManager) -> None:
    assert manager.run_tool("control_body", "mina", None, {"message": "やあ"}) == "やあ"
    out = manager.run_tool("control_body", "mina", None, {"message": 'こんにちは！{"body_emote": "wave"}'})
    assert out == "こんにちは！"  # no avatar body here: the command is taken out of what is said


def test_offline_fills_upstream_document_schema_from_the_conversation() -> None:
    schema = UP_DOCUMENT["nodes"][0]["response_schema"]
    request = ChatRequest(messages=[
        {"role": "user", "content": "ドキュメントを作成して: 図書館の猫について。三毛猫のミケは窓辺で眠る。"},
        {"role": "user", "content": UP_DOCUMENT["nodes"][0]["action"]}], response_schema=schema)
    data = OfflineModel().generate(request).data
    assert data["name"] == "図書館の猫"
    assert data["content"] == "図書館の猫について。三毛猫のミケは窓辺で眠る。"
    assert data["description"] and "ツール" not in data["description"]


# ---- import rules: builtins, names, size ---------------------------------------------------------

def test_builtin_names_need_replace_and_restore_brings_the_builtin_back(manager: SAIVerseManager) -> None:
    catalog = manager.playbooks
    builtin = catalog.get("sub_speak")
    with pytest.raises(PlaybookError, match="builtin.*--replace"):
        store(manager, UP_SPEAK)
    assert catalog.get("sub_speak") is builtin and catalog.is_builtin("sub_speak")
    store(manager, UP_SPEAK, replace=True)
    assert catalog.is_overridden("sub_speak") and catalog.get("sub_speak").nodes[0].metadata_key == "metadata"
    restarted = SAIVerseManager(load_settings())
    try:
        assert restarted.playbooks.is_overridden("sub_speak")
        stored = json.loads(restarted.playbooks.get("sub_speak").source_json())
        assert stored == UP_SPEAK  # kept exactly as written, upstream fields included
    finally:
        restarted.close()
    assert catalog.restore("sub_speak") is builtin and catalog.is_builtin("sub_speak")
    with pytest.raises(PlaybookError, match="not overridden"):
        catalog.restore("sub_speak")
    with pytest.raises(PlaybookError, match="not a builtin"):
        catalog.restore("garden_document")


def test_replacing_a_builtin_that_others_need_is_refused(manager: SAIVerseManager) -> None:
    narrow = {"name": "sub_speak", "description": "x", "input_schema": [],
              "nodes": [{"id": "a", "type": "say", "action": "hi", "next": None}]}
    with pytest.raises(PlaybookError, match="would break playbook 'meta_user'"):
        store(manager, narrow, replace=True)
    assert manager.playbooks.is_builtin("sub_speak")


def test_oversized_playbooks_are_refused(tmp_path: Path, manager: SAIVerseManager) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({**UP_DOCUMENT, "description": "x" * MAX_PLAYBOOK_BYTES}), encoding="utf-8")
    with pytest.raises(PlaybookError, match="1,000,000 バイトまで"):
        manager.playbooks.check_file(big)
    with pytest.raises(PlaybookError, match="1,000,000 バイトまで"):
        parse_playbook(big.read_text(encoding="utf-8"))


def test_cli_import_replace_restore_and_listing(saiverse_home: Path, tmp_path: Path) -> None:
    speak = tmp_path / "sub_speak.json"
    speak.write_text(json.dumps(UP_SPEAK), encoding="utf-8")
    refused = cli("import-playbook", str(speak), home=saiverse_home)
    assert refused.returncode == 2 and "builtin" in refused.stderr and "--replace" in refused.stderr
    done = cli("import-playbook", "--replace", str(speak), home=saiverse_home)
    assert done.returncode == 0, done.stderr and json.loads(done.stdout)["stored"] is True
    rows = {r["name"]: r for r in map(json.loads, cli("playbooks", "--json", home=saiverse_home).stdout.splitlines())}
    assert rows["sub_speak"]["overridden"] is True and rows["sub_speak"]["builtin"] is False
    assert rows["meta_user"]["overridden"] is False and rows["meta_user"]["builtin"] is True
    text = cli("playbooks", home=saiverse_home).stdout
    assert "sub_speak" in text and "overrides the builtin" in text
    back = cli("import-playbook", "--restore", "sub_speak", home=saiverse_home)
    assert back.returncode == 0 and json.loads(back.stdout) == {"ok": True, "name": "sub_speak", "restored": True}
    again = cli("import-playbook", "--restore", "sub_speak", home=saiverse_home)
    assert again.returncode == 2 and "not overridden" in again.stderr
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_PLAYBOOK_BYTES + 1), encoding="utf-8")
    bad = cli("validate-playbook", str(big), home=saiverse_home)
    assert bad.returncode == 2 and "1,000,000 バイトまで" in bad.stderr


# ---- conformance: upstream's own files -----------------------------------------------------------

def _compat() -> Path:
    return compat_path("playbooks")


def test_every_upstream_playbook_validates_and_imports_unchanged(manager: SAIVerseManager) -> None:
    files = sorted(_compat().glob("*.json"))
    assert len(files) >= 40
    for path in files:
        pb = manager.playbooks.check_file(path)
        manager.playbooks.store(pb, replace=True)
        assert json.loads(manager.playbooks.get(pb.name).source_json()) == json.loads(path.read_text("utf-8"))
    restarted = SAIVerseManager(load_settings())
    try:
        assert not restarted.playbooks.broken
        assert {json.loads(p.read_text("utf-8"))["name"] for p in files} <= {p.name for p in restarted.playbooks.all()}
    finally:
        restarted.close()


def test_upstream_builtins_seeded_in_a_real_home_validate(manager: SAIVerseManager) -> None:
    # The reference home's `playbooks` table holds every builtin upstream seeds, as JSON text.
    db = _compat().parent / "saiverse-home" / "user_data" / "database" / "saiverse.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT name, nodes_json FROM playbooks ORDER BY name").fetchall()
    assert len(rows) >= 50
    loaded = [parse_playbook(text, source=name) for name, text in rows]
    for pb in loaded:
        manager.playbooks.store(pb, replace=manager.playbooks.is_builtin(pb.name))
    for pb in loaded:
        manager.playbooks.validate(manager.playbooks.get(pb.name))


def test_upstream_validate_and_import_exit_zero_from_the_cli(saiverse_home: Path) -> None:
    folder = _compat()
    ok = cli("validate-playbook", str(folder / "meta_auto.json"), home=saiverse_home)
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert "needs playbook sub_detect_situation_change (not imported here)" in report["needs"]
    done = cli("import-playbook", str(folder / "document_create_playbook.json"), home=saiverse_home)
    assert done.returncode == 0, done.stderr


def test_upstream_six_answer_chat_and_write_a_real_document(manager: SAIVerseManager) -> None:
    folder = _compat()
    for name in SIX:
        pb = manager.playbooks.check_file(folder / f"{name}.json")
        manager.playbooks.store(pb, replace=manager.playbooks.is_builtin(pb.name))
    events = list(manager.handle_user_input("library", "こんにちは"))
    assert only(events, "pulse_end")[0]["status"] == "ok" and len(only(events, "speak")) == 1
    events = list(manager.handle_user_input(
        "library", "ドキュメントを作成して: 図書館の猫について。三毛猫のミケは毎朝窓辺で日向ぼっこをする。"))
    assert only(events, "pulse_end")[0]["status"] == "ok", only(events, "error")
    assert "document_create" in {e.get("playbook") for e in events}
    [created] = only(events, "item_created")
    assert created["item"]["name"] == "図書館の猫"
    text = manager.item_view(created["item"]["item_id"])["text"]
    assert "三毛猫のミケは毎朝窓辺で日向ぼっこをする。" in text
    assert only(events, "speak") and "図書館の猫" in only(events, "speak")[0]["text"]
    chat = list(manager.run_playbook(manager.playbooks.get("basic_chat"), "mina", "library", args={"input": "猫"}))
    assert only(chat, "pulse_end")[0]["status"] == "ok"
    recall = list(manager.run_playbook(manager.playbooks.get("memory_recall"), "mina", "library",
                                       args={"input": "猫"}))
    assert only(recall, "pulse_end")[0]["status"] == "ok", only(recall, "error")
    assert "三毛猫" in next(e for e in only(recall, "tool_result") if e["tool"] == "memory_recall")["result"]
