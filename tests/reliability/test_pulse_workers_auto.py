"""Autonomous turns with pulse workers (issue 24): two worker processes tick the city every second and an
app enqueues its own ticker's turns beside them, yet each `auto` persona takes one turn per interval —
the turns are claimed in the database (saiverse/world/_auto_turns.py), not remembered per process.
A worker started without `--autonomous` starts no autonomous turn and leaves the 自律 switch as it is
(tests/reliability/test_pulse_workers.py)."""

from __future__ import annotations

import time

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.worker_city import City, queued, wait_for

AUTO = ("kai", "rin", "tao")

_DONE = "SELECT count(*) FROM procrastinate_jobs WHERE task_name = %s AND status IN ('succeeded', 'failed')"


def test_one_turn_per_interval_across_workers_and_an_app(city: City) -> None:
    manager = SAIVerseManager(load_settings(), seed=False)
    try:
        b = manager.admin.create_building({"name": "Harbor", "capacity": 5, "auto_interval_sec": 3600})
        for pid in AUTO:
            manager.admin.create_persona({"persona_id": pid, "name": pid, "building_id": b.building_id,
                                          "interaction_mode": "auto"})
        manager.autonomous = True
    finally:
        manager.close()
    city.worker(autonomous=True)
    city.worker(autonomous=True)  # two processes, each ticking when the cron's tick job lands on it
    app, _queue_ = queued(city)  # an app whose ticker enqueues its turns for the workers
    try:
        ticks = city.sql(_DONE, "saiverse.city_tick")[0][0]
        for _ in range(4):
            app.autonomous_tick()
            time.sleep(1.0)
        wait_for(lambda: city.sql(_DONE, "saiverse.city_tick")[0][0] >= ticks + 4, "four more worker ticks")
    finally:
        app.close()
    wait_for(lambda: city.sql(_DONE, "saiverse.run_pulse")[0][0] >= len(AUTO), "the turns ran")
    turns = city.sql("SELECT args->>'persona_id', status FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                     " AND args->>'kind' = 'auto' ORDER BY 1")
    assert turns == [(pid, "succeeded") for pid in AUTO]  # once each, not once per process or per tick
    assert city.sql("SELECT VALUE FROM world_setting WHERE KEY = 'autonomous'") == [("1",)]
    assert len(city.sql("SELECT PERSONA_ID FROM autonomous_turn")) == len(AUTO)
