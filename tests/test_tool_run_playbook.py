"""run_playbook (upstream v0.3) through the manager: a tool node runs a router-callable playbook on a
sub-line of the calling run and gets its report; unknown, not callable, too deep and outside a pulse
are refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from sea.playbook import parse_playbook
from sea.tool_playbook import MAX_NESTED
from tests.support.compat import compat_v03_path
from tools import TOOL_REGISTRY, ToolError


def run(manager: SAIVerseManager, pb: dict[str, Any]) -> list[dict[str, Any]]:
    return list(manager.run_playbook(parse_playbook(pb), "mina", "library"))


def caller(target: str, name: str = "caller") -> dict[str, Any]:
    return {"name": name, "nodes": [
        {"id": "go", "type": "tool", "action": "run_playbook", "args_input": {"name": {"$literal": target}}, "output_key": "got",
         "next": "say"},
        {"id": "say", "type": "say", "action": "報告: {got}", "next": None}]}


def said(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "say"]


def test_upstream_arguments() -> None:
    upstream = json.loads(compat_v03_path("tool-arguments.json").read_text(encoding="utf-8"))["run_playbook"]
    ours = TOOL_REGISTRY["run_playbook"].parameters
    assert ours["properties"].keys() == upstream["properties"].keys() and ours["required"] == upstream["required"]


def test_a_tool_runs_a_playbook_and_gets_its_report(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({
        "name": "count_shelves", "router_callable": True, "report_template": "棚は{n}段でした",
        "nodes": [{"id": "n", "type": "set", "assignments": {"n": "=2 + 3"}, "next": "say"},
                  {"id": "say", "type": "say", "action": "(棚を数える)", "next": None}]}))
    events = run(manager, caller("count_shelves"))
    assert said(events) == ["(棚を数える)", "報告: 棚は5段でした"]
    inner = next(e for e in events if e["type"] == "say" and e["text"] == "(棚を数える)")
    assert inner["playbook"] == "count_shelves"
    assert not [e for e in events if e["type"] == "error"]


def test_refusals_name_the_reason(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({"name": "private_one", "router_callable": False,
                                            "nodes": [{"id": "s", "type": "say", "action": "x", "next": None}]}))
    for target, needle in (("no_such_playbook", "はありません"), ("private_one", "呼べません")):
        events = run(manager, caller(target))
        assert any(e["type"] == "error" and needle in e["message"] for e in events), (target, events[-3:])
        assert not said(events)  # a tool error ends the run unless the node has error_next
    with pytest.raises(ToolError, match="パルスの中"):
        manager.run_tool("run_playbook", "mina", "library", {"name": "count_shelves"})
    with pytest.raises(ToolError, match="name"):
        manager.run_tool("run_playbook", "mina", "library", {"name": " "})


def test_nesting_stops_at_upstreams_limit(manager: SAIVerseManager) -> None:
    # deep_1 → deep_2 → … each through run_playbook; the call past MAX_NESTED is refused with a message.
    for i in range(1, MAX_NESTED + 3):
        pb = caller(f"deep_{i + 1}", name=f"deep_{i}")
        pb["router_callable"] = True
        pb["report_template"] = f"深さ{i}: {{got}}"
        manager.playbooks.store(parse_playbook(pb))
    events = run(manager, caller("deep_1"))
    assert any(e["type"] == "error" and f"上限 ({MAX_NESTED} 段)" in e["message"] for e in events)
    called = {e["playbook"] for e in events if e["type"] == "tool_call" and e.get("tool") == "run_playbook"}
    assert called == {"caller", *(f"deep_{i}" for i in range(1, MAX_NESTED + 1))}
