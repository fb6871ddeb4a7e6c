"""Whole turns on the deterministic model, with the examples of issue 12: replies that tell what happened
in words, questions that stay questions, short picture titles, multi-step turns that do not repeat."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from saiverse.manager import SAIVerseManager

ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-")


def turn(manager: SAIVerseManager, building: str, text: str, meta: str | None = None) -> list[dict[str, Any]]:
    return list(manager.handle_user_input(building, text, meta_playbook=meta))


def kinds(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def test_a_question_is_answered_not_turned_into_a_document(manager: SAIVerseManager) -> None:
    for meta in (None, "meta_agentic"):
        events = turn(manager, "library", "@ミナ 図書館の一番古い本は？", meta)
        assert not kinds(events, "item_created")
        (speak,) = kinds(events, "speak")
        assert "図書館の一番古い本" not in speak["text"] and "「" not in speak["text"]
        assert speak["model"] == "offline" and kinds(events, "pulse_end")[0]["model"] == "offline"


def test_a_picture_gets_a_short_title_and_the_reply_says_it_in_words(manager: SAIVerseManager) -> None:
    events = turn(manager, "atelier", "ソラ、海の絵を描いて")
    (created,) = kinds(events, "item_created")
    assert created["item"]["name"] == "海"
    (speak,) = kinds(events, "speak")
    assert "海の絵を描いて、アトリエに飾った" in speak["text"]
    assert not ID.search(speak["text"]) and "item_id" not in speak["text"] and "ソラ、海の絵を描いて" not in speak["text"]


def test_a_diary_request_reads_like_a_person(manager: SAIVerseManager) -> None:
    events = turn(manager, "library", "日記を書いて: 今日は図書館で猫と遊んだ")
    (speak,) = kinds(events, "speak")
    assert "日記を書いて図書館に置きました" in speak["text"]
    assert "今日は図書館で猫と遊んだ" not in speak["text"] and "要約" not in speak["text"]


def test_multi_step_turn_never_repeats_a_step_and_stops_when_done(manager: SAIVerseManager) -> None:
    events = turn(manager, "library", "昨日話したことを思い出して、日記にまとめて図書館に置いて", "meta_agentic")
    called = [e["tool"] for e in kinds(events, "tool_call") if e["tool"] != "list_available_playbooks"]
    assert called == ["memory_recall", "document_create"]  # each once, then the reply
    (created,) = kinds(events, "item_created")
    assert created["item"]["name"] == "日記"
    (speak,) = kinds(events, "speak")
    assert "日記を書いて図書館に置きました" in speak["text"]


def test_autonomous_turn_speaks_without_the_prompt_heading(make_manager: Callable[..., SAIVerseManager]) -> None:
    manager = make_manager()
    mina = manager.world.persona("mina")
    handle = manager.pulses.submit_auto(mina, "library", manager.meta_playbook("meta_auto"))
    events = list(handle.events())
    for speak in kinds(events, "speak"):
        assert "いまの様子" not in speak["text"] and "話しかけて" not in speak["text"]
    assert kinds(events, "pulse_end")[0]["model"] == "offline"
