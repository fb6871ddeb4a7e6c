"""A pulse's first prompt and the messages already stored under its pulse id (saiverse/pulse/_journal.py).

When this process minted the pulse id and stored those messages itself (the user's message `say`
stored), the first prompt uses them as stored instead of reading them back; anything a tool stores
under the pulse id before that prompt is read as before. Real SQLite, real LangGraph, a scripted model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from saiverse.manager import SAIVerseManager
from sea.playbook import parse_playbook
from tests.support.models import ScriptedModel


@contextmanager
def statements(m: SAIVerseManager) -> Iterator[list[str]]:
    """Every SQL statement the manager's engine runs meanwhile."""
    seen: list[str] = []

    def log(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
        seen.append(statement)

    event.listen(m.db.engine, "before_cursor_execute", log)
    try:
        yield seen
    finally:
        event.remove(m.db.engine, "before_cursor_execute", log)


def _own_reads(seen: list[str]) -> list[str]:
    return [s for s in seen if "FROM saimemory WHERE PERSONA_ID = ? AND PULSE_ID = ?" in s]


def test_the_users_message_reaches_the_first_prompt_once_without_being_read_back(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel(follows_instructions=False)
    m = make_manager(model)
    list(m.handle_user_input("library", "こんにちは", persona_id="mina"))  # an earlier turn in the history
    model.history.clear()
    with statements(m) as seen:
        events = list(m.handle_user_input("library", "猫の話をしよう", persona_id="mina"))
    assert events[-1]["status"] == "ok"
    assert _own_reads(seen) == []
    first = model.history[0].messages  # the router's: history, the pulse's own messages, its instruction
    assert first[-2] == {"role": "user", "content": "猫の話をしよう"}  # the stored message, as before
    assert first[-3]["role"] == "assistant" and first[-4] == {"role": "user", "content": "こんにちは"}
    # Once as the pulse's message and once as the router's instruction (`{input}`), never more.
    assert sum(msg.get("content") == "猫の話をしよう" for msg in first) == 2
    # The reply is in memory once, under the pulse, after the user's message.
    mine = [r for r in m.memory.list_messages("mina", limit=10) if r["pulse_id"] == events[-1]["pulse_id"]]
    assert [r["role"] for r in reversed(mine)] == ["user", "assistant"]


def test_memory_a_tool_stored_before_the_first_prompt_is_read_into_it(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel(follows_instructions=False)
    m = make_manager(model)
    m.world.add_history("library", speaker_kind="persona", speaker_id="sora", speaker_name="ソラ",
                        content="新しい画集が届いたよ")
    pb = parse_playbook({"name": "listen_then_think", "nodes": [
        {"id": "listen", "type": "tool", "action": "get_building_messages", "next": "ponder"},
        {"id": "ponder", "type": "llm", "action": "いま聞いたことをどう思う？", "next": None},
    ]})
    with statements(m) as seen:
        events = list(m.run_playbook(pb, "mina", "library"))
    assert events[-1]["status"] == "ok"
    assert len(_own_reads(seen)) == 1  # the tool stored under the pulse id: read back as before
    prompt = [msg.get("content") for msg in model.history[0].messages]
    assert "ソラ: 新しい画集が届いたよ" in prompt
