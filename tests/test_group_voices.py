"""Offline personas answering one message in one building say different words (issue 35).

Each persona's prompt names the others in the building (`一緒にいるペルソナ: …`); the offline model
takes the same pick for all of them and gives each its own seat, so even two personas with the same
voice (made in the ペルソナ tab with nothing but a name) never answer with the same text.
"""

from __future__ import annotations

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse import system_prompt_for
from saiverse.world import BuildingInfo

MESSAGES = ["こんにちは", "今日は雨ですね", "好きな本はありますか？", "疲れました", "ありがとう", "またね"]


@pytest.mark.parametrize("text", MESSAGES)
def test_personas_in_one_building_answer_one_message_differently(manager: SAIVerseManager, text: str) -> None:
    manager.world.move_persona("sora", "library")
    for name in ("ハル", "ユキ"):  # same default voice: only their seat tells them apart
        manager.admin.create_persona({"name": name, "building_id": "library"})
    events = list(manager.handle_user_input("library", text))
    said = {e["persona_name"]: e["text"] for e in events if e["type"] == "speak"}
    assert set(said) == {"ミナ", "ソラ", "ハル", "ユキ"}
    assert len(set(said.values())) == len(said), said


def test_the_prompt_names_the_others_here_and_alone_it_names_nobody(manager: SAIVerseManager) -> None:
    building = BuildingInfo("library", "図書館", "", 10, "静か。", 600)
    persona = {"persona_id": "mina", "name": "ミナ", "system_prompt": ""}
    assert system_prompt_for(persona, building, ["ソラ"]).endswith("\n一緒にいるペルソナ: ソラ")  # type: ignore[arg-type]
    assert "一緒にいる" not in system_prompt_for(persona, building)  # type: ignore[arg-type]
    # Alone in a building, a persona's reply is its own pick, as before.
    events = list(manager.handle_user_input("library", "こんにちは"))
    assert [e["persona_name"] for e in events if e["type"] == "speak"] == ["ミナ"]
