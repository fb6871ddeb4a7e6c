"""A pulse that fails or is cancelled after a tool changed the world (saiverse/pulse/_journal.py, the rule).

The change stays and the persona remembers it: the journal is committed with an `internal` note per
change and one saying the pulse stopped. A pulse that stops before any change commits nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse._open import EFFECT_TAGS, STOPPED_TAGS
from sea.playbook import Playbook, parse_playbook
from tests.support.models import ScriptedModel

CREATE = {"id": "act", "type": "tool", "action": "document_create",
          "args_input": {"name": {"$literal": "旅の記録"}, "description": {"$literal": "旅のこと"},
                         "content": {"$literal": "一日目: 図書館に行った。"}}, "next": "think"}
MOVE = {"id": "act", "type": "tool", "action": "move_building", "args_input": {"building": {"$literal": "museum"}},
        "next": "think"}
LISTEN = {"id": "act", "type": "tool", "action": "get_building_messages", "next": "think"}


def _playbook(first: dict[str, Any], then: list[dict[str, Any]]) -> Playbook:
    return parse_playbook({"name": "act_then_stop", "nodes": [
        first, {"id": "think", "type": "think", "action": "うまくいった。", "next": then[0]["id"]}, *then]})


FAILS = [  # a tool that refuses (an item that is not there) without error_next: the pulse fails
    {"id": "break", "type": "tool", "action": "item_view", "args_input": {"item_id": {"$literal": "no-such-item"}},
     "next": "tell"},
    {"id": "tell", "type": "speak", "action": "できました。", "next": None},
]
SLOW = [  # a slow model call, during which the test presses stop
    {"id": "ponder", "type": "llm", "action": "次は何をしよう", "next": "tell"},
    {"id": "tell", "type": "speak", "action": "できました。", "next": None},
]


def _run(m: SAIVerseManager, pb: Playbook, *, cancel_after_tool: bool) -> list[dict[str, Any]]:
    events = []
    for ev in m.run_playbook(pb, "mina", "library"):
        events.append(ev)
        # Stop is pressed once the thought after the tool was shown, so it lands in the slow model
        # call that follows (pressed at the tool's result, it may land before the thought or after).
        if cancel_after_tool and ev["type"] == "think":
            m.cancel_pulses()
    return events


def _memory(m: SAIVerseManager) -> list[dict[str, Any]]:
    return list(reversed(m.memory.list_messages("mina", limit=50)))


@pytest.fixture
def slow(make_manager: Callable[..., SAIVerseManager]) -> SAIVerseManager:
    return make_manager(ScriptedModel(follows_instructions=False, generate_delay=0.4))


@pytest.mark.parametrize("stop", ["error", "cancel"])
def test_a_document_made_before_the_stop_stays_and_is_remembered(slow: SAIVerseManager, stop: str) -> None:
    events = _run(slow, _playbook(CREATE, FAILS if stop == "error" else SLOW), cancel_after_tool=stop == "cancel")
    end = events[-1]
    assert end["type"] == "pulse_end" and end["status"] == ("error" if stop == "error" else "cancelled")
    made = [i for i in slow.items.list_owned("building", "library") if i.name == "旅の記録"]
    assert len(made) == 1
    memory = _memory(slow)
    # In order: the change, what it thought after it, then that it stopped.
    assert [m["content"] for m in memory][1] == "うまくいった。"
    effect = next(m for m in memory if set(EFFECT_TAGS) <= set(m["tags"]))
    assert "旅の記録" in effect["content"] and made[0].item_id in effect["content"]
    stopped = memory[-1]
    assert set(STOPPED_TAGS) <= set(stopped["tags"])
    assert ("中止" if stop == "cancel" else "no-such-item") in stopped["content"]
    assert all(f"pulse:{end['pulse_id']}" in m["tags"] for m in memory)
    notice = next(e for e in events if e["type"] == "notice" and e["kind"] == "pulse_effects_kept")
    assert "1 件" in notice["text"]
    assert not any(e["type"] == "speak" for e in events)  # the node after the stop never ran


@pytest.mark.parametrize("stop", ["error", "cancel"])
def test_a_move_before_the_stop_stays_and_is_remembered(slow: SAIVerseManager, stop: str) -> None:
    events = _run(slow, _playbook(MOVE, FAILS if stop == "error" else SLOW), cancel_after_tool=stop == "cancel")
    assert events[-1]["status"] == ("error" if stop == "error" else "cancelled")
    assert slow.world.persona("mina").building_id == "museum"
    memory = _memory(slow)
    effect = next(m for m in memory if set(EFFECT_TAGS) <= set(m["tags"]))
    assert "図書館から美術館へ移動しました" in effect["content"]
    assert set(STOPPED_TAGS) <= set(memory[-1]["tags"])


def test_the_pulse_record_in_memory_keeps_its_order(slow: SAIVerseManager) -> None:
    """think → change → stop note: each note sits where its change happened among the pulse's messages."""
    pb = parse_playbook({"name": "ordered", "nodes": [
        {"id": "before", "type": "think", "action": "まず書こう。", "next": "act"},
        {**CREATE, "next": "after"},
        {"id": "after", "type": "think", "action": "書けた。", "next": "break"}, *FAILS]})
    list(slow.run_playbook(pb, "mina", "library"))
    contents = [m["content"] for m in _memory(slow)]
    assert contents[0] == "まず書こう。" and contents[1].startswith("このパルスでしたこと: 文書「旅の記録」を作りました")
    assert contents[2] == "書けた。" and contents[3].startswith("このパルスは途中で止まりました")


def test_memory_a_tool_took_in_is_kept_with_the_journal(slow: SAIVerseManager) -> None:
    """get_building_messages writes memory and moves its cursor at once: the stopped pulse keeps both,
    with the rest of its journal and the stop note, so nothing heard is lost or heard twice."""
    slow.world.add_history("library", speaker_kind="user", speaker_id="user", speaker_name="あなた",
                           content="今日は雨ですね")
    events = _run(slow, _playbook(LISTEN, FAILS), cancel_after_tool=False)
    assert events[-1]["status"] == "error"
    contents = [m["content"] for m in _memory(slow)]
    assert "今日は雨ですね" in contents and "うまくいった。" in contents
    assert contents[-1].startswith("このパルスは途中で止まりました")
    again = slow.run_tool("get_building_messages", "mina", "library", {})
    assert again == "新しいメッセージはありません。"


@pytest.mark.parametrize("stop", ["error", "cancel"])
def test_a_pulse_that_changed_nothing_commits_nothing(slow: SAIVerseManager, stop: str) -> None:
    pb = parse_playbook({"name": "no_change", "nodes": [
        {"id": "look", "type": "tool", "action": "item_list", "next": "think"},
        {"id": "think", "type": "think", "action": "見た。", "next": FAILS[0]["id"] if stop == "error" else "ponder"},
        *(FAILS if stop == "error" else SLOW)]})
    events = _run(slow, pb, cancel_after_tool=stop == "cancel")
    assert events[-1]["status"] in ("error", "cancelled")
    assert slow.memory.count("mina") == 0
    assert not any(e["type"] == "notice" and e.get("kind") == "pulse_effects_kept" for e in events)
