"""The pulse controller (ordering, priority, queue limit, cancellation) and schedules."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse import QueueFullError
from saiverse.world import ScheduleError
from sea.playbook import parse_playbook
from tests.support.models import ScriptedModel


@pytest.fixture
def slow(make_manager: Callable[..., SAIVerseManager]) -> SAIVerseManager:
    """A world whose model has the latency of a remote one."""
    return make_manager(ScriptedModel(follows_instructions=False, generate_delay=0.05, chunk_delay=0.01))


def test_pulses_of_one_persona_never_overlap(slow: SAIVerseManager) -> None:
    mina = slow.world.persona("mina")
    pb = slow.meta_playbook("meta_simple_speak")
    handles: list[Any] = []
    lock = threading.Lock()

    def submit(i: int) -> None:
        h = slow.pulses.submit_user(mina, "library", f"質問 {i}", pb)
        with lock:
            handles.append(h)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for h in handles:
        assert h.done.wait(20)
    spans = sorted((h.record.started_at, h.record.ended_at) for h in handles)
    assert all(h.record.status == "ok" for h in handles)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert end <= start  # the next pulse started only after the previous one ended
    # each pulse saw its own user message and spoke once
    assert slow.memory.count("mina") == 10


def test_user_pulses_overtake_waiting_schedule_and_auto_pulses(slow: SAIVerseManager) -> None:
    mina = slow.world.persona("mina")
    speak = slow.meta_playbook("meta_simple_speak")
    first = slow.pulses.submit_user(mina, "library", "最初", speak)  # occupies the worker
    auto = slow.pulses.submit_auto(mina, "library", slow.meta_playbook("meta_auto"))
    sched = slow.pulses.submit_schedule(mina, "library", speak, args={"input": "予定の時間です"})
    user = slow.pulses.submit_user(mina, "library", "急ぎの質問", speak)
    for h in (first, auto, sched, user):
        assert h.done.wait(20)
    order = sorted([auto, sched, user], key=lambda h: h.record.started_at)
    assert [h.record.kind for h in order] == ["user", "schedule", "auto"]


def test_full_queue_is_a_clear_error(slow: SAIVerseManager) -> None:
    slow.pulses.max_queue = 2
    mina = slow.world.persona("mina")
    pb = slow.meta_playbook("meta_simple_speak")
    running = slow.pulses.submit_user(mina, "library", "1", pb)
    time.sleep(0.02)
    slow.pulses.submit_user(mina, "library", "2", pb)
    slow.pulses.submit_user(mina, "library", "3", pb)
    with pytest.raises(QueueFullError, match="ミナ"):
        slow.pulses.submit_user(mina, "library", "4", pb)
    assert running.done.wait(20)


def test_queue_full_reaches_the_chat_as_an_error_event(slow: SAIVerseManager) -> None:
    slow.pulses.max_queue = 0
    events = list(slow.handle_user_input("library", "こんにちは"))
    err = next(e for e in events if e["type"] == "error")
    assert err["kind"] == "queue_full" and "ミナ" in err["message"]


def test_cancel_between_nodes_and_while_queued(make_manager: Callable[..., SAIVerseManager]) -> None:
    slow = make_manager(ScriptedModel(follows_instructions=False, generate_delay=0.3, chunk_delay=0.06))
    mina = slow.world.persona("mina")
    two_steps = parse_playbook({"name": "two_steps", "nodes": [
        {"id": "think", "type": "llm", "action": "考える", "next": "talk"},
        {"id": "talk", "type": "speak", "action": "話す", "next": None}]})
    first = slow.pulses.submit("user", mina, "library", two_steps)
    queued = slow.pulses.submit("user", mina, "library", two_steps)
    time.sleep(0.1)  # the first is inside its llm node
    assert slow.cancel_pulses() == 2
    events = list(first.events())
    assert first.record.status == "cancelled"
    assert not any(e["type"] == "speak" for e in events)  # the node after the llm never ran
    queued_events = list(queued.events())
    assert queued.record.status == "cancelled" and "開始前" in queued_events[1]["message"]
    assert slow.memory.count("mina") == 0
    assert [e["type"] for e in slow.handle_user_input("library", "まだいる？", persona_id="mina")][-1] == "pulse_end"


def test_usage_and_activity_trace_are_kept_per_pulse(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "こんにちは"))
    record = manager.pulses.record(events[-1]["pulse_id"])
    assert record is not None and record.trace[:3] == ["meta_user.list_playbooks", "meta_user.router", "sub_router_user.route"]
    assert record.usage["input_tokens"] > 0 and events[-1]["usage"] == record.usage


# ---- schedules ---------------------------------------------------------------------------------

def test_schedule_kinds_next_runs_and_errors(manager: SAIVerseManager) -> None:
    now = datetime(2026, 11, 20, 9, 30)  # a Friday
    store = manager.schedules
    periodic = store.add("mina", {"kind": "periodic", "days_of_week": "mon,fri", "time_of_day": "10:00"}, now=now)
    assert periodic.next_run_at == "2026-11-20T10:00"
    oneshot = store.add("mina", {"kind": "oneshot", "run_at": "2026-11-21 08:00"}, now=now)
    assert oneshot.next_run_at == "2026-11-21T08:00"
    interval = store.add("mina", {"kind": "interval", "interval_sec": 600}, now=now)
    assert interval.next_run_at == "2026-11-20T09:40"
    for bad, msg in [
        ({"kind": "weekly"}, "kind must be one of"),
        ({"kind": "periodic", "time_of_day": "25:00"}, "out of range"),
        ({"kind": "periodic", "time_of_day": "10:00", "days_of_week": "funday"}, "not a day"),
        ({"kind": "oneshot", "run_at": "tomorrow"}, "YYYY-MM-DD"),
        ({"kind": "oneshot", "run_at": "2020-01-01 00:00"}, "in the past"),
        ({"kind": "interval", "interval_sec": 5}, "at least 60"),
    ]:
        with pytest.raises(ScheduleError, match=msg):
            store.add("mina", bad, now=now)


def test_due_schedules_fire_schedule_pulses_with_their_args(manager: SAIVerseManager) -> None:
    entry = manager.add_schedule("mina", {
        "kind": "oneshot", "run_at": (datetime.now() + timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M"),
        "meta_playbook": "meta_user_manual", "args": {"input": "本の整理の時間", "selected_playbook": "memory_recall"}})
    assert manager.fire_due_schedules(datetime.now()) == []
    handles = manager.fire_due_schedules(datetime.now() + timedelta(minutes=6))
    (handle,) = handles
    events = list(handle.events())
    assert handle.record.kind == "schedule" and handle.record.status == "ok"
    assert "memory_recall" in {e.get("playbook") for e in events}
    (after,) = manager.schedules.list("mina")
    assert after.schedule_id == entry.schedule_id and not after.enabled and after.next_run_at is None
    assert manager.fire_due_schedules(datetime.now() + timedelta(days=1)) == []


def test_schedule_validation_against_the_catalog(manager: SAIVerseManager) -> None:
    with pytest.raises(ValueError, match="ghost"):
        manager.add_schedule("mina", {"kind": "interval", "interval_sec": 60, "meta_playbook": "ghost"})
    with pytest.raises(Exception, match="宣言していません"):  # sea/validate.py, in the default language
        manager.add_schedule("mina", {"kind": "interval", "interval_sec": 60, "args": {"colour": "red"}})


def test_schedule_tools(manager: SAIVerseManager) -> None:
    added = manager.run_tool("schedule_add", "mina", None, {"kind": "interval", "interval_sec": 3600,
                                                             "meta_playbook": "meta_auto"})
    listed = manager.run_tool("schedule_list", "mina", None, {})
    assert [s["schedule_id"] for s in listed] == [added["schedule_id"]]
    assert manager.run_tool("schedule_list", "sora", None, {}) == []
    assert "見つかりません" in manager.run_tool("schedule_delete", "sora", None, {"schedule_id": added["schedule_id"]})
    assert "削除しました" in manager.run_tool("schedule_delete", "mina", None, {"schedule_id": added["schedule_id"]})


def test_autonomous_mode_is_off_by_default_and_runs_auto_personas(manager: SAIVerseManager) -> None:
    with manager.db.session() as s:
        from database.models import Persona

        s.get(Persona, "sora").interaction_mode = "auto"
    ticker = manager.ticker(interval=3600)
    assert ticker.tick() == []  # the global toggle is off
    manager.autonomous = True
    manager.move_user("atelier")
    (handle,) = ticker.tick()
    assert handle.record.kind == "auto" and handle.record.persona_id == "sora"
    assert handle.done.wait(20) and handle.record.status == "ok"
    assert ticker.tick() == []  # not again before the building's interval
    spoken = [h for h in manager.history("atelier") if h.speaker_id == "sora"]
    assert spoken and "オフライン" in spoken[-1].content  # the user is there, so sora speaks
