"""Deleting a chat line (saiverse/world/_chat_edit.py): from the building history and from the
SAIMemory of the personas that remember it; regenerate with swipes; edit; search — on a real SQLite home
and on PostgreSQL, with the offline model."""

from __future__ import annotations

import pytest

from saiverse.errors import UserError
from saiverse.manager import SAIVerseManager
from saiverse.world import UnknownIdError

pytestmark = pytest.mark.backends("sqlite", "postgresql")


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


def _last_reply(manager: SAIVerseManager, building: str = "library") -> object:
    return manager.history(building, limit=50)[-1]


def test_regenerate_keeps_the_earlier_answer_as_a_swipe_and_memory_keeps_the_chosen_one(
        manager: SAIVerseManager) -> None:
    _said(manager, "library", "好きな本は？")
    first = _last_reply(manager)
    assert first.speaker_kind == "persona"
    events = list(manager.regenerate("library"))
    assert events[-1]["type"] == "swipes" and len(events[-1]["answers"]) == 2 and events[-1]["chosen"] == 1
    lines = manager.history("library", limit=50)
    assert lines[-1].id == first.id  # the same line, not a new one
    assert [e.content for e in lines].count("好きな本は？") == 1
    second = events[-1]["answers"][1]["content"]
    assert lines[-1].content == second
    memory = _memory(manager, "mina")
    assert memory.count(("user", "好きな本は？")) == 1
    assert ("assistant", second) in memory
    if second != first.content:
        assert ("assistant", first.content) not in memory

    chosen = manager.choose_swipe("library", first.id, 0)  # back to the first answer
    assert chosen.chosen == 0 and manager.history("library", limit=50)[-1].content == first.content
    memory = _memory(manager, "mina")
    assert ("assistant", first.content) in memory and memory.count(("user", "好きな本は？")) == 1
    swipes = manager.reply_swipes("library", first.id)
    assert swipes is not None and [a["content"] for a in swipes.answers] == [first.content, second]

    # A third answer, then deleting the line takes the chosen answer out of memory too.
    events = list(manager.regenerate("library"))
    assert len(events[-1]["answers"]) == 3
    before = [m for m in _memory(manager, "mina") if m[0] == "assistant"]
    done = manager.delete_line("library", first.id)
    assert done.remembered_by == ["ミナ"]
    after = [m for m in _memory(manager, "mina") if m[0] == "assistant"]
    assert len(after) == len(before) - 1 and ("assistant", events[-1]["answers"][2]["content"]) not in after
    assert _memory(manager, "mina").count(("user", "好きな本は？")) == 1


def test_regenerate_is_refused_when_the_last_line_is_not_a_reply(manager: SAIVerseManager) -> None:
    _said(manager, "museum", "誰かいますか")  # nobody answers in the museum
    events = list(manager.regenerate("museum"))
    assert [e["type"] for e in events] == ["error"] and "ペルソナの返事" in events[0]["message"]
    events = list(manager.regenerate("nowhere"))
    assert events[0]["type"] == "error"
    _said(manager, "library", "こんにちは")
    with pytest.raises(UserError):
        manager.choose_swipe("library", _last_reply(manager).id, 5)


def test_editing_the_last_message_replaces_it_and_its_reply(manager: SAIVerseManager) -> None:
    _said(manager, "library", "最初の話")
    lines = _said(manager, "library", "猫が好き")
    old_reply = lines[-1]
    events = list(manager.edit_last_message("library", "犬が好き"))
    assert any(e["type"] == "speak" for e in events)
    now = manager.history("library", limit=50)
    texts = [e.content for e in now]
    assert "猫が好き" not in texts and "犬が好き" in texts and "最初の話" in texts
    assert old_reply.id not in [e.id for e in now] and now[-1].speaker_kind == "persona"
    memory = _memory(manager, "mina")
    assert ("user", "猫が好き") not in memory and ("user", "犬が好き") in memory
    assert memory.count(("user", "最初の話")) == 1


def test_editing_is_refused_for_bad_text_or_when_no_message_is_last(manager: SAIVerseManager) -> None:
    events = list(manager.edit_last_message("library", "こんにちは"))
    assert events[0]["type"] == "error" and "まだあなたのメッセージ" in events[0]["message"]
    lines = _said(manager, "library", "こんにちは")
    assert list(manager.edit_last_message("library", "x" * 1_000_000))[0]["type"] == "error"
    assert manager.history("library", limit=50) == lines  # nothing lost


def test_search_finds_lines_of_this_building_with_every_word(manager: SAIVerseManager) -> None:
    _said(manager, "library", "青い猫の本はありますか")
    _said(manager, "library", "赤い猫 100% の話")
    _said(manager, "atelier", "青い猫を描いて")
    found = manager.search_chat("library", "猫 青い")
    assert [e.content for e in found] == ["青い猫の本はありますか"]
    assert [e.content for e in manager.search_chat("library", "100%")] == ["赤い猫 100% の話"]
    assert manager.search_chat("library", "%") != [] and manager.search_chat("library", "_") == []
    assert manager.search_chat("library", "   ") == []
    newest_first = manager.search_chat("library", "猫")
    assert [e.content for e in newest_first][:2] == ["赤い猫 100% の話", "青い猫の本はありますか"]
    with pytest.raises(UnknownIdError):
        manager.search_chat("nowhere", "猫")
