"""A city that holds in one process: 200 personas on autonomous turns while a user chats.

The 200 personas live in 20 buildings made through the admin service (the same rules as
`python main.py persona create`); autonomous mode is on and the ticker's round submits a turn for
every one of them at once, twice (the second round a building interval later). While those 400
pulses run on the bounded pulse pool, the user sends messages to ミナ in the library. Afterwards:
every autonomous pulse ended `ok` (no pool timeout, no failed pulse), every one's events reached the
ticker's listener (drained, no thread per pulse), the user's pulses were served and ended `ok`, and
no more threads run than the pool's workers (+ the app's few). How fast is for benchmarks/city.py.
The same city runs on both stores: SQLite in the home and PostgreSQL (tests/support/pg.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager

BUILDINGS, PER_BUILDING = 20, 10
USER_MESSAGES = 5


def _city(m: SAIVerseManager) -> list[str]:
    ids = []
    for b in range(BUILDINGS):
        building = m.admin.create_building({"name": f"block-{b}", "capacity": PER_BUILDING, "auto_interval_sec": 60})
        for p in range(PER_BUILDING):
            info = m.admin.create_persona({"persona_id": f"p{b:02d}-{p}", "name": f"住人{b}-{p}",
                                           "building_id": building.building_id, "interaction_mode": "auto"})
            ids.append(info.persona_id)
    return ids


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_two_hundred_autonomous_personas_and_a_user(make_manager: Callable[..., SAIVerseManager], store: str,
                                                    request: pytest.FixtureRequest,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if store == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    before = {t.ident for t in threading.enumerate()}  # another test's open manager has its own pool
    m = make_manager()
    ids = _city(m)
    assert len(ids) == BUILDINGS * PER_BUILDING
    m.autonomous = True
    heard: list[list[dict[str, Any]]] = []
    lock = threading.Lock()

    def listen(events: list[dict[str, Any]]) -> None:
        with lock:
            heard.append(events)

    ticker = m.ticker(interval=3600, on_events=listen)
    now = datetime.now()
    round_one = m.autonomous_tick(now)  # the same call the ticker makes, with a fixed clock
    for h in round_one:
        h.drain_to(listen)
    assert {h.record.persona_id for h in round_one} == set(ids)

    user_ends: list[dict[str, Any]] = []

    def chat() -> None:
        for i in range(USER_MESSAGES):
            events = list(m.handle_user_input("library", f"こんにちは、ミナ {i}", persona_id="mina"))
            user_ends.extend(e for e in events if e["type"] == "pulse_end")

    chatter = threading.Thread(target=chat)
    chatter.start()
    round_two = m.autonomous_tick(now + timedelta(seconds=61))
    for h in round_two:
        h.drain_to(listen)
    assert len(round_two) == len(ids)
    assert ticker.tick() == []  # a third round right away: every persona's interval has not passed
    chatter.join(300)
    assert not chatter.is_alive(), "the user's messages were never answered"
    handles = round_one + round_two
    for h in handles:
        assert h.done.wait(300), f"pulse {h.pulse_id} of {h.record.persona_id} never ended"

    failed = [(h.record.persona_id, h.record.status) for h in handles if h.record.status != "ok"]
    assert failed == []
    assert [e["status"] for e in user_ends] == ["ok"] * USER_MESSAGES
    with lock:
        ends = [e for events in heard for e in events if e["type"] == "pulse_end"]
    assert len(ends) == len(handles)  # every submitted pulse's events were drained to the listener
    assert {e["pulse_id"] for e in ends} == {h.pulse_id for h in handles}
    pulse_threads = [t for t in threading.enumerate() if t.name.startswith("pulse-") and t.ident not in before]
    assert len(pulse_threads) == m.pulses.workers  # a pool, not a thread per persona
    # SAIMemory kept each persona's turns: two autonomous turns each wrote the persona's lines.
    assert all(list(m.memory.iter_messages(pid, limit=5)) for pid in ids[:: PER_BUILDING])
