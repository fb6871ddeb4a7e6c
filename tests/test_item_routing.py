"""A request to act on an item names or points at one; anything else is conversation (issue 35).

Whole turns through the manager's pulse on the offline model: the router's keyword rules choose the
item playbooks only when the request names an item here (or a word of its name) or points at one
(「この絵」, 「文書を」) — a sentence that merely shares a verb with their keywords is chat.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager

ITEM_PLAYBOOKS = {"item_view_playbook", "item_edit_playbook"}

ORDINARY = [
    "…私は夜に星を見るのが好きです",
    "gitのログを確認してくれる？",
    "git の使い方を調べるのが好きです",
    "昨日は映画を見ました",
    "夢で海を見たんです",
    "最近、朝日を見るために早起きしています",
    "新しいアプリに更新しておいて",
    "その話、もっと詳しく聞かせて",
    "天気予報を確認するのを忘れた",
    "小説を読むのが趣味です",
    "ゆっくり休んでね、また見に来るよ",
    "このコードを修正したいんだけど、どう思う？",
    "いつか海に行ってみたいな",
]

ITEM_REQUESTS = [
    ("library", "SAIVerse使い方ガイドを読んで", "item_view_playbook"),
    ("library", "ガイドを読んで", "item_view_playbook"),  # a word of the item's name
    ("library", "この文書を見せて", "item_view_playbook"),
    ("atelier", "ソラ、この絵を見せて", "item_view_playbook"),
    ("library", "使い方ガイドに追記して: 地図の使い方", "item_edit_playbook"),
    ("library", "美術館に行こう", "building_move"),  # a move names its building the same way
]


def turn(manager: SAIVerseManager, building: str, text: str) -> list[dict[str, Any]]:
    manager.move_user(building)
    return list(manager.handle_user_input(building, text))


def played(events: list[dict[str, Any]]) -> set[str]:
    return {e.get("playbook") for e in events if e.get("playbook")}


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_sentence_is_conversation(manager: SAIVerseManager, text: str) -> None:
    events = turn(manager, "library", text)
    assert not played(events) & ITEM_PLAYBOOKS, text
    assert not [e for e in events if e["type"] == "notice" and e.get("kind") == "node_error"]
    (speak,) = [e for e in events if e["type"] == "speak"]
    assert "できませんでした" not in speak["text"] and "対応していません" not in speak["text"]


@pytest.mark.parametrize(("building", "text", "playbook"), ITEM_REQUESTS)
def test_a_request_naming_or_pointing_at_an_item_still_acts_on_it(
        manager: SAIVerseManager, building: str, text: str, playbook: str) -> None:
    events = turn(manager, building, text)
    assert playbook in played(events), text
    assert not [e for e in events if e["type"] == "error"]


def test_the_router_is_told_the_rule_and_the_items_here(manager: SAIVerseManager) -> None:
    from sea.router import TARGETS, prepare_schema, with_targets

    router = manager.playbooks.get("sub_router_user")
    assert router is not None
    schema = prepare_schema(router.nodes[0].response_schema or {}, manager.playbooks.router_callable())
    def names(kind: str) -> list[str]:
        return [i.name for i in manager.items.list_owned("building", "library")] if kind == "item" else ["図書館"]

    told = with_targets(schema, names)["properties"]["playbook"]
    assert set(told[TARGETS]) == {*ITEM_PLAYBOOKS, "building_move"} and "SAIVerse使い方ガイド" in told[TARGETS]["item_view_playbook"]
    assert "「SAIVerse使い方ガイド」" in told["description"] and "x-acts-on" not in told
    assert with_targets(schema, names) is with_targets(schema, names)  # made once per schema and items


UPSTREAM_ROUTER = {  # upstream v0.3's shape: the listing in the prompt, a `playbook` string without an enum
    "name": "listing_router", "description": "一覧から選んで話す",
    "input_schema": [{"name": "input"}],
    "nodes": [
        {"id": "list", "type": "tool", "action": "list_available_playbooks", "args_input": {},
         "output_key": "available_playbooks", "next": "route"},
        {"id": "route", "type": "llm", "action": "{available_playbooks}\n\n依頼: {input}", "output_key": "choice",
         "response_schema": {"type": "object", "properties": {"playbook": {"type": "string"}},
                             "required": ["playbook"]}, "next": "say"},
        {"id": "say", "type": "speak", "action": "選んだのは {choice.playbook}", "next": None},
    ],
    "start_node": "list",
}


@pytest.mark.parametrize(("text", "chosen"), [
    ("私は夜に星を見るのが好きです", "basic_chat"),
    ("SAIVerse使い方ガイドを読んで", "item_view_playbook"),
])
def test_a_router_reading_the_listing_follows_the_same_rule(manager: SAIVerseManager, text: str, chosen: str) -> None:
    from sea.playbook import Playbook

    listing = json.loads(manager.run_tool("list_available_playbooks", "mina", "library", {}))
    assert {e["name"]: e.get("acts_on") for e in listing}["item_view_playbook"] == "item"
    events = list(manager.run_playbook(Playbook.model_validate(UPSTREAM_ROUTER), "mina", "library",
                                       args={"input": text}))
    assert [e["text"] for e in events if e["type"] == "speak"] == [f"選んだのは {chosen}"]
