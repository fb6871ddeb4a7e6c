"""What a router is offered (`list_available_playbooks`, the router's schema) follows every change of
the playbook catalogue, though it is made once per catalogue version (saiverse/pulse/_playbooks.py)."""

from __future__ import annotations

import json
from typing import Any

from saiverse.manager import SAIVerseManager
from sea.playbook import Playbook

TEA: dict[str, Any] = {
    "name": "tea_time", "display_name": "お茶の時間", "description": "お茶を淹れてひと休みする。",
    "input_schema": [{"name": "input", "description": "ユーザーの発言"}], "router_callable": True,
    "nodes": [{"id": "pour", "type": "say", "action": "🍵 お茶を淹れました。", "next": None}],
    "start_node": "pour",
}


def listed(manager: SAIVerseManager) -> list[dict[str, Any]]:
    text = manager.run_tool("list_available_playbooks", "mina", "library", {})
    return json.loads(text)


def test_the_listing_follows_imports_overrides_and_restores(manager: SAIVerseManager) -> None:
    before = listed(manager)
    assert before == manager.playbooks.router_listing()
    assert "tea_time" not in [e["name"] for e in before]
    # The same text as serialising the listing (what the tool returned before it was kept).
    assert manager.run_tool("list_available_playbooks", "mina", "library", {}) == \
        json.dumps(manager.playbooks.router_listing(), ensure_ascii=False)

    manager.playbooks.store(Playbook.model_validate(TEA))
    names = [e["name"] for e in listed(manager)]
    assert "tea_time" in names and names == sorted(names)
    assert "tea_time" in [pb.name for pb in manager.playbooks.router_callable()]

    chat = manager.playbooks.get("basic_chat")
    assert chat is not None
    manager.playbooks.store(chat.model_copy(update={"display_name": "おしゃべり"}), replace=True)
    assert {e["name"]: e["display_name"] for e in listed(manager)}["basic_chat"] == "おしゃべり"
    manager.playbooks.restore("basic_chat")
    assert {e["name"]: e["display_name"] for e in listed(manager)}["basic_chat"] == chat.display_name


def test_a_copy_changed_by_its_caller_changes_nothing_kept(manager: SAIVerseManager) -> None:
    mine = manager.playbooks.router_listing()
    mine[0]["keywords"].append("x-changed")
    mine.pop()
    assert manager.playbooks.router_listing() == listed(manager)
    assert "x-changed" not in json.dumps(listed(manager))
    callable_ = manager.playbooks.router_callable()
    callable_.clear()
    assert manager.playbooks.router_callable()
