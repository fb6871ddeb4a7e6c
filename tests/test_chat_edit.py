"""Deleting a chat line (saiverse/world/_chat_edit.py): from the building history and from the
SAIMemory of the personas that remember it, on a real SQLite home with the offline model."""

from __future__ import annotations

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.world import UnknownIdError


def _said(manager: SAIVerseManager, building: str, text: str) -> list:
    list(manager.handle_user_input(building, text))
    return manager.history(building, limit=50)


def _memory(manager: SAIVerseManager, persona_id: str) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in manager.memory_messages(persona_id, limit=500)]


def test_deleting_a_user_line_removes_it_from_history_and_the_answering_persona(manager: SAIVerseManager) -> None:
    lines = _said(manager, "library", "猫の話をしよう")
    user_line = next(e for e in lines if e.speaker_kind == "user" and e.content == "猫の話をしよう")
    assert ("user", "猫の話をしよう") in _memory(manager, "mina")

    plan = manager.line_deletion("library", user_line.id)
    assert plan.remembered_by == ["ミナ"] and len(plan.memory_ids["mina"]) == 1
    assert manager.history("library", limit=50) == lines  # a plan changes nothing

    done = manager.delete_line("library", user_line.id)
    assert done.memory_ids == plan.memory_ids
    assert user_line.id not in [e.id for e in manager.history("library", limit=50)]
    assert ("user", "猫の話をしよう") not in _memory(manager, "mina")
    reply = next(e for e in lines if e.speaker_kind == "persona" and e.id > user_line.id)
    assert reply.id in [e.id for e in manager.history("library", limit=50)]  # the reply stays
    with pytest.raises(UnknownIdError):
        manager.delete_line("library", user_line.id)


def test_deleting_a_reply_removes_only_that_reply_from_its_persona(manager: SAIVerseManager) -> None:
    _said(manager, "library", "一つ目")
    lines = _said(manager, "library", "二つ目")
    reply = [e for e in lines if e.speaker_kind == "persona"][-1]
    before = _memory(manager, "mina")
    assert ("assistant", reply.content) in before

    done = manager.delete_line("library", reply.id)
    assert done.remembered_by == ["ミナ"]
    after = _memory(manager, "mina")
    assert len(after) == len(before) - 1 and ("user", "二つ目") in after
    assert reply.id not in [e.id for e in manager.history("library", limit=50)]
    # The deleted text is no longer found by search either (the index goes with the row).
    assert all(m["id"] not in done.memory_ids["mina"] for m in manager.memory_messages("mina", search=reply.content[:6]))


def test_a_line_nobody_remembers_is_deleted_from_the_history_only(manager: SAIVerseManager) -> None:
    lines = _said(manager, "museum", "誰かいますか")  # nobody is in the museum: a notice, no pulse
    user_line = next(e for e in lines if e.speaker_kind == "user")
    plan = manager.line_deletion("museum", user_line.id)
    assert plan.memory_ids == {} and plan.remembered_by == []
    manager.delete_line("museum", user_line.id)
    assert user_line.id not in [e.id for e in manager.history("museum", limit=50)]


def test_a_line_of_another_building_or_an_unknown_one_is_refused(manager: SAIVerseManager) -> None:
    lines = _said(manager, "library", "こんにちは")
    with pytest.raises(UnknownIdError):
        manager.delete_line("atelier", lines[-1].id)
    with pytest.raises(UnknownIdError):
        manager.line_deletion("library", 999_999)
    with pytest.raises(UnknownIdError):
        manager.delete_line("nowhere", lines[-1].id)
    assert manager.history("library", limit=50) == lines


def test_the_same_words_said_twice_delete_only_the_chosen_time(manager: SAIVerseManager) -> None:
    _said(manager, "library", "おはよう")
    lines = _said(manager, "library", "おはよう")
    first, second = [e for e in lines if e.speaker_kind == "user" and e.content == "おはよう"]
    manager.delete_line("library", second.id)
    assert _memory(manager, "mina").count(("user", "おはよう")) == 1
    assert first.id in [e.id for e in manager.history("library", limit=50)]
