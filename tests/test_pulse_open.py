"""Open pulses in one process (saiverse/pulse/_open.py): every pulse that ends, however it ends, closes
its row; rows a start must not touch are left; an unreadable row is still accounted for.

The kill -9 cases are in tests/reliability/test_pulse_open.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import text

from saiverse.manager import SAIVerseManager
from saiverse.pulse._open import (
    RUNNER_LOCAL,
    RUNNER_QUEUE,
    STOPPED_TAGS,
    OpenPulse,
    record_effects,
    recover_one,
    recover_open,
)
from sea.playbook import parse_playbook
from tests.support.models import ScriptedModel


@pytest.fixture(autouse=True, params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, saiverse_home: object, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case on SQLite and on a real PostgreSQL city (tests/support/pg.py)."""
    if request.param == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    return str(request.param)


def _open(m: SAIVerseManager) -> list[tuple[str, str]]:
    with m.db.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT PULSE_ID, RUNNER FROM pulse_open"))]


def test_pulses_that_end_leave_nothing_open(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    events = list(m.handle_user_input("library", "こんにちは", persona_id="mina"))
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok"
    assert _open(m) == []
    list(m.handle_user_input("library", "みんな、元気?"))  # every persona that answers
    assert _open(m) == []


def test_a_pulse_cancelled_before_it_starts_closes_its_row(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager(ScriptedModel(generate_delay=0.5))
    persona = m.world.persona("mina")
    playbook = m.playbooks.get("meta_user")
    assert playbook is not None
    # One persona's pulses run one at a time: the second waits behind the first and is cancelled there.
    _, first_ids = m.pulses.say(m.world, "library", "一つ目", [persona])
    first = m.pulses.submit_user(persona, "library", "一つ目", playbook, pulse_id=first_ids["mina"])
    _, second_ids = m.pulses.say(m.world, "library", "二つ目", [persona])
    second = m.pulses.submit_user(persona, "library", "二つ目", playbook, pulse_id=second_ids["mina"])
    assert {p for p, _ in _open(m)} == {first_ids["mina"], second_ids["mina"]}
    second.cancel()
    assert first.done.wait(30) and second.done.wait(30)
    assert second.record.status == "cancelled" and first.record.status == "ok"
    assert _open(m) == []


def test_a_failed_pulse_with_no_change_closes_its_row(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    broken = parse_playbook({"name": "breaks", "nodes": [
        {"id": "break", "type": "tool", "action": "item_view", "args_input": {"item_id": {"$literal": "nope"}},
         "next": None}]})
    events = list(m.run_playbook(broken, "mina", "library"))
    assert events[-1]["status"] == "error"
    assert _open(m) == []


def test_a_start_accounts_only_for_its_own_hosts_pulses(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    mine = OpenPulse("a" * 32, "mina", "library", "schedule", RUNNER_LOCAL)
    queued = OpenPulse("b" * 32, "mina", "library", "auto", RUNNER_QUEUE)
    elsewhere = OpenPulse("c" * 32, "mina", "library", "auto", "local:another-host")
    for pulse in (mine, queued, elsewhere):
        record_effects(m.db, pulse, [("mina", "予定 s1 を追加しました。")])
    notices = recover_open(m.db, m.memory, m.world)
    assert len(notices) == 1 and "a" * 8 in notices[0]
    assert {p for p, _ in _open(m)} == {"b" * 32, "c" * 32}  # a worker's job, and a host this start cannot see
    # The worker's job, on its retry: its change and its stop are remembered, the row goes.
    recover_one(m.db, m.memory, m.world, queued, "ワーカーが途中で止まりました")
    notes = [x for x in m.memory.list_messages("mina", limit=20) if x["pulse_id"] == "b" * 32]
    assert {x["content"] for x in notes} == {
        "このパルスでしたこと: 予定 s1 を追加しました。",
        "このパルスは途中で止まりました (ワーカーが途中で止まりました)。ここまでにしたことは残っています。"}
    assert {p for p, _ in _open(m)} == {"c" * 32}


def test_a_lost_workers_users_pulse_that_changed_nothing_is_noted_in_memory_and_chat(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    recover_one(m.db, m.memory, m.world, OpenPulse("9" * 32, "mina", "library", "user", RUNNER_QUEUE),
                "ワーカーが途中で止まりました")
    notes = [x for x in m.memory.list_messages("mina", limit=5) if x["pulse_id"] == "9" * 32]
    assert [x["content"] for x in notes] == ["このパルスは途中で止まりました (ワーカーが途中で止まりました)。"]
    line = m.world.history("library", limit=1)[-1]
    assert line.speaker_kind == "system" and line.pulse_id == "9" * 32 and "ミナの返事は途中で止まりました" in line.content


def test_an_unreadable_row_is_still_accounted_for(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    with m.db.engine.begin() as conn:
        conn.execute(text("INSERT INTO pulse_open (PULSE_ID, PERSONA_ID, BUILDING_ID, KIND, RUNNER, EFFECTS_JSON, "
                          "STARTED_AT) VALUES ('d', 'mina', 'library', 'auto', :r, '{not json', '2026-01-01')"),
                     {"r": RUNNER_LOCAL})
    assert len(recover_open(m.db, m.memory, m.world)) == 1
    last = m.memory.list_messages("mina", limit=1)[0]
    assert set(STOPPED_TAGS) <= set(last["tags"]) and last["pulse_id"] == "d"
    assert _open(m) == []


def test_deleting_a_persona_removes_its_open_pulses(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    record_effects(m.db, OpenPulse("e" * 32, "mina", "library", "auto", RUNNER_QUEUE), [("mina", None)])
    report = m.admin.delete_persona("mina")
    assert report.removed.get("pulse_open") == 1
    assert _open(m) == []


def test_a_recovered_users_pulse_whose_building_is_gone_is_still_remembered(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    record_effects(m.db, OpenPulse("f" * 32, "mina", "no-such-building", "user", RUNNER_LOCAL), [])
    assert len(recover_open(m.db, m.memory, m.world)) == 1  # no line in a chat that is not there; the note stays
    last = m.memory.list_messages("mina", limit=1)[0]
    assert set(STOPPED_TAGS) <= set(last["tags"]) and last["pulse_id"] == "f" * 32
    assert _open(m) == []


def test_a_start_whose_accounting_fails_still_opens(make_manager: Callable[..., SAIVerseManager],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.exc import OperationalError

    import saiverse.opening as opening_module

    def locked(*_args: object) -> list[str]:
        raise OperationalError("INSERT …", {}, Exception("database is locked"))

    monkeypatch.setattr(opening_module, "recover_open", locked)
    m = make_manager()
    assert any("次の起動でもう一度試します" in n for n in m.notices)
    assert m.world.persona("mina").name == "ミナ"
