"""What a user's turn reads before and during its pulse (docs/ARCHITECTURE.md, "What a pulse costs").

The turn reads its building and the persona it addresses on one connection (on SQLite's own cursor,
database/direct.py), and the pulse's system prompt is made from that building row instead of a
second read; a pulse that did not start from a user's turn (a playbook run) still reads its building.
Statements are seen as SQLite runs them (its trace callback), whichever path sent them. Real SQLite,
real LangGraph, a scripted model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from saiverse.manager import SAIVerseManager
from saiverse.world import UnknownIdError
from tests.support.models import ScriptedModel

BUILDING_READ = "WHERE building.BUILDINGID = "
PERSONA_READ = "WHERE ai.AIID = "


@contextmanager
def statements(m: SAIVerseManager) -> Iterator[list[str]]:
    """Every statement SQLite runs meanwhile on the manager's pooled connections (with their values)."""
    seen: list[str] = []

    def out(dbapi_conn: Any, *_a: Any) -> None:
        dbapi_conn.set_trace_callback(seen.append)

    def back(dbapi_conn: Any, *_a: Any) -> None:
        dbapi_conn.set_trace_callback(None)

    event.listen(m.db.engine, "checkout", out)
    event.listen(m.db.engine, "checkin", back)
    try:
        yield seen
    finally:
        event.remove(m.db.engine, "checkout", out)
        event.remove(m.db.engine, "checkin", back)


def test_a_users_turn_reads_its_building_once_and_the_prompt_names_it(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel(follows_instructions=False)
    m = make_manager(model)
    list(m.handle_user_input("library", "こんにちは", persona_id="mina"))  # warm: the kept snapshot exists
    model.history.clear()
    with statements(m) as seen:
        events = list(m.handle_user_input("library", "猫の話をしよう", persona_id="mina"))
    assert events[-1]["status"] == "ok"
    assert sum(BUILDING_READ in s for s in seen) == 1
    assert sum(PERSONA_READ in s for s in seen) == 1
    name = m.world.building("library").name
    assert model.history and all(f"現在地: {name}。" in (req.system or "") for req in model.history)


def test_a_building_changed_after_the_turn_is_read_by_the_next_turn(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel(follows_instructions=False)
    m = make_manager(model)
    list(m.handle_user_input("library", "こんにちは", persona_id="mina"))
    with m.db.engine.begin() as conn:  # as the building editor or another process would
        conn.exec_driver_sql("UPDATE building SET BUILDINGNAME = '新しい図書館' WHERE BUILDINGID = 'library'")
    model.history.clear()
    events = list(m.handle_user_input("library", "ありがとう", persona_id="mina"))
    assert events[-1]["status"] == "ok"
    assert all("現在地: 新しい図書館。" in (req.system or "") for req in model.history)


def test_a_playbook_run_reads_its_building_itself(make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel(follows_instructions=False)
    m = make_manager(model)
    pb = m.playbooks.get("basic_chat")
    assert pb is not None
    with statements(m) as seen:
        events = list(m.run_playbook(pb, "mina", "library", args={"input": "こんにちは"}))
    assert events[-1]["status"] == "ok"
    assert sum(BUILDING_READ in s for s in seen) >= 1
    assert "現在地: " in (model.history[-1].system or "")


def test_unknown_building_and_persona_are_refused_as_before(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager(ScriptedModel(follows_instructions=False))
    events = list(m.handle_user_input("nowhere", "こんにちは", persona_id="mina"))
    assert [e["type"] for e in events] == ["error"] and events[0]["kind"] == "bad_request"
    assert "nowhere" in events[0]["message"]
    with pytest.raises(UnknownIdError, match="ghost"):
        list(m.handle_user_input("library", "こんにちは", persona_id="ghost"))
    assert m.world.history("library", limit=5) == []  # nothing was said for a refused turn
