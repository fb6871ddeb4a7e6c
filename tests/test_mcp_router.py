"""A persona's MCP tools reached from the chat (issue 35): the router offers each of her tools like a
built-in playbook, described by the tool's schema; the chosen tool runs once and she answers once with
its result; other personas are not offered it; a playbook naming an MCP tool validates for the personas
that have it (`validate-playbook`). Against the real stdio MCP server of tests/support/mcp_server.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from saiverse.manager import SAIVerseManager
from saiverse.mcp_tools import save_servers
from tests.support.mcp_entries import stdio
from tests.support.models import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]


def test_the_router_offers_her_mcp_tools_and_she_answers_once(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path, tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    model = ScriptedModel(follows_instructions=False)
    manager = make_manager(model)
    save_servers(saiverse_home, "mina", [stdio("calc", MCP_TEST_LOG=str(calls))])
    model.enqueue(data={"playbook": "calc__shout", "args": {"text": "hello", "times": 2}})  # the router's choice
    model.enqueue("叫んでみました: HELLO HELLO")
    events = list(manager.handle_user_input("library", "hello を2回叫んで", persona_id="mina"))
    listing = next(e["result"] for e in events if e["type"] == "tool_result" and e["tool"] == "list_available_playbooks")
    offered = {p["name"]: p for p in json.loads(listing)}
    assert {"calc__shout", "calc__add"} <= set(offered) and "basic_chat" in offered
    assert "text (string, 必須)" in offered["calc__shout"]["description"]  # described by the tool's schema
    router = model.history[0]
    assert "calc__shout" in json.dumps(router.response_schema, ensure_ascii=False)
    assert [e["result"] for e in events if e["type"] == "tool_result" and e["tool"] == "calc__shout"] == ["HELLO HELLO"]
    assert calls.read_text(encoding="utf-8").splitlines() == ["shout hello"]
    said = [e for e in events if e["type"] == "speak"]
    assert [e["text"] for e in said] == ["叫んでみました: HELLO HELLO"]  # one answer, not two
    assert any("HELLO HELLO" in (m.get("content") or "") for m in model.history[-1].messages)  # she saw the result
    assert not [e for e in events if e["type"] == "error"]

    model.enqueue(data={"playbook": "basic_chat", "args": {}})
    where = manager.world.persona("sora").building_id or "library"
    events = list(manager.handle_user_input(where, "こんにちは", persona_id="sora"))
    listing = next(e["result"] for e in events if e["type"] == "tool_result" and e["tool"] == "list_available_playbooks")
    assert not [p for p in json.loads(listing) if p["name"].startswith("calc__")]  # sora has no servers


def test_a_playbook_naming_an_mcp_tool_validates_for_who_has_it(manager: SAIVerseManager, saiverse_home: Path,
                                                                tmp_path: Path) -> None:
    save_servers(saiverse_home, "mina", [stdio("calc")])
    manager.close()
    pb = tmp_path / "sum.json"
    pb.write_text(json.dumps({"name": "sum_two", "nodes": [
        {"id": "sum", "type": "tool", "action": "calc__add", "args_input": {"a": {"$literal": 2}, "b": {"$literal": 3}},
         "output_key": "total", "next": None}]}), encoding="utf-8")
    run = [sys.executable, str(ROOT / "main.py"), "--home", str(saiverse_home), "validate-playbook", str(pb)]
    done = subprocess.run(run, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["needs"] == [] and report["mcp_tools"] == {"calc__add": ["mina"]}
    done = subprocess.run([*run, "--persona", "sora"], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert json.loads(done.stdout)["needs"] == ["needs tool calc__add (not available here)"]
