"""Pulse workers across processes, on a real throwaway PostgreSQL cluster (tests/support/pg.py) with real worker
subprocesses (`python main.py worker`, saiverse/pulse/_queue.py):

- a user's reply streams from a worker to the process that enqueued it, event by event;
- users' pulses one after another follow and publish on kept connections (no new backend per pulse),
  each stream carrying its own pulse's events only;
- two workers and one persona: one pulse at a time, each user message stored once;
- kill -9 a worker mid-pulse (before the journal's commit): the job goes back to the queue, and the
  pulse ends as failed — the user's message kept once, a `pulse_stopped` note, never run twice; killed
  just after the commit: nothing runs again, nothing doubled;
- a schedule fires once with three workers ticking;
- a worker started without `--autonomous` leaves the city's 自律 switch on and starts no autonomous
  turn; one started with it does;
- a user's pulse runs at once on a worker whose every slot an autonomous turn holds (the user lane);
- queued pulses are taken user, then schedule, then autonomous; remote pulses on SQLite are refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from database.models import Schedule
from saiverse.manager import SAIVerseManager
from saiverse.pulse._remote import REMOTE_ENV, libpq_url
from saiverse.settings import load_settings
from tests.support.worker_city import WAIT, City, queued, wait_for

ROOT = Path(__file__).resolve().parents[2]


def test_a_reply_streams_from_a_worker(city: City) -> None:
    manager, _ = queued(city)
    city.worker()
    try:
        # The test holds the memory table: the worker's pulse starts, then waits at its first write.
        held = psycopg.connect(libpq_url(city.url))
        held.execute("LOCK TABLE saimemory IN SHARE MODE")
        events = manager.handle_user_input(city.building_id, "こんにちは、元気？", persona_id=city.persona_id)
        first = next(iter(events))
        while first.get("type") != "pulse_start":
            first = next(events)
        pulse_id = first["pulse_id"]
        # It arrived while the worker still runs the pulse (its job is `doing`, nothing stored yet).
        assert city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s", pulse_id) == [("doing",)]
        held.rollback()
        held.close()
        rest = list(events)
    finally:
        manager.close()
    assert rest[-1]["type"] == "pulse_end" and rest[-1]["status"] == "ok", rest
    stored = city.memory(pulse_id)
    assert stored[0] == ("user", "こんにちは、元気？") and stored[-1][0] == "assistant"
    said = [e for e in rest if e["type"] in ("speak", "say")]
    assert said and said[-1].get("text") == stored[-1][1], [e["type"] for e in rest]
    wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                               pulse_id) == [("succeeded",)], "the worker marks the job done after its last event")


def _kept(city: City, last_query: str) -> list[int]:
    """Backends of the city whose last statement starts with `last_query` (connections kept open)."""
    return sorted(r[0] for r in city.sql("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                                         " AND query LIKE %s", last_query + "%"))


def test_users_pulses_reuse_kept_connections(city: City) -> None:
    manager, _ = queued(city)
    city.worker()
    try:
        streams, backends = [], []
        for i in range(4):
            events = list(manager.handle_user_input(city.building_id, f"{i}回目のこんにちは", persona_id=city.persona_id))
            streams.append(events)
            # Followed and published on one kept connection each (the app's, the worker's), the same
            # backend every time, never a connection made (and a backend forked) per pulse. The worker's
            # last statement on it gives the job's liveness lock back (saiverse/pulse/_publisher.py).
            backends.append((_kept(city, "UNLISTEN"), _kept(city, "SELECT pg_advisory_unlock")))
    finally:
        manager.close()
    # A pool grows by one while its first connection is still being made (psycopg_pool), and the
    # worker returns its publisher just after publishing the end, so a next job may find it still out
    # once; after the first pulses, the same kept backends serve every one.
    assert backends[1] == backends[2] == backends[3], backends
    assert all(1 <= len(kept) <= 2 for kept in backends[-1]), backends
    for events in streams:
        ids = {e["pulse_id"] for e in events if e.get("pulse_id")}
        assert len(ids) == 1, ids  # nothing of the kept connection's earlier pulse
        assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok", events[-1]
    assert len({next(iter({e["pulse_id"] for e in ev if e.get("pulse_id")})) for ev in streams}) == len(streams)


def test_two_workers_one_persona_one_pulse_at_a_time(city: City) -> None:
    manager, queue = queued(city)
    city.worker()
    city.worker()
    try:
        persona = manager.world.persona(city.persona_id)
        pb = manager.meta_playbook(None)
        handles = [queue.submit_user(persona, city.building_id, f"メッセージ {i}", pb) for i in range(6)]
        for h in handles:
            assert h.done.wait(WAIT)
    finally:
        manager.close()
    assert [h.record.status for h in handles] == ["ok"] * 6
    for i, h in enumerate(handles):
        assert city.memory(h.pulse_id).count(("user", f"メッセージ {i}")) == 1
    rows = city.sql("""SELECT e.job_id, e.type, e.at FROM procrastinate_events e JOIN procrastinate_jobs j
                       ON j.id = e.job_id WHERE j.task_name = 'saiverse.run_pulse'
                       AND e.type IN ('started', 'succeeded') ORDER BY e.at, e.id""")
    running: set[int] = set()
    for job_id, kind, _ in rows:
        if kind == "started":
            assert not running, f"job {job_id} started while {running} ran"
            running.add(job_id)
        else:
            running.discard(job_id)
    assert len(rows) == 12


@pytest.mark.parametrize("when", ["before", "after"])
def test_kill_a_worker_mid_pulse(city: City, when: str) -> None:
    manager, queue = queued(city)
    dying = city.worker(kill=(when, "saiverse.pulse._journal:PulseJournal.commit"))
    try:
        persona = manager.world.persona(city.persona_id)
        handle = queue.submit_user(persona, city.building_id, "途中で止まるかも", manager.meta_playbook(None))
        assert dying.wait(WAIT) == -9
        city.worker()  # the survivor notices the dead worker's job and takes it back
        assert handle.done.wait(WAIT)
        events = list(handle.events())
    finally:
        manager.close()
    stored = city.memory(handle.pulse_id)
    assert stored.count(("user", "途中で止まるかも")) == 1
    final = "failed" if when == "before" else "succeeded"
    wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                               handle.pulse_id) == [(final,)], f"the job ends {final}")
    if when == "before":  # it had started: ended as failed, never run twice
        assert events[-1]["status"] == "error" and any(e.get("kind") == "worker_lost" for e in events)
        assert [role for role, _ in stored] == ["user", "user"] and "途中で止まりました" in stored[-1][1]
    else:  # its writes were committed: the retry finds them and runs nothing again
        assert events[-1]["status"] == "ok"
        assert [role for role, _ in stored].count("assistant") == 1


def test_a_schedule_fires_once_with_three_workers(city: City) -> None:
    manager = SAIVerseManager(load_settings(), seed=False)
    try:
        entry = manager.add_schedule(city.persona_id, {"kind": "interval", "interval_sec": 3600,
                                                        "args": {"input": "定時の見回り"}})
        with manager.db.session() as s:  # due a minute ago
            s.get(Schedule, entry.schedule_id).next_run_at = datetime.now() - timedelta(minutes=1)
    finally:
        manager.close()
    for _ in range(3):
        city.worker()
    ran = wait_for(lambda: city.sql("SELECT id, status FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                                     " AND status IN ('succeeded', 'failed')"), "the schedule's pulse ran")
    ticks_then = city.sql("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.city_tick'"
                          " AND status = 'succeeded'")[0][0]
    wait_for(lambda: city.sql("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.city_tick'"
                               " AND status = 'succeeded'")[0][0] >= ticks_then + 3, "three more ticks")
    pulses = city.sql("SELECT args->>'kind', status FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'")
    assert pulses == [("schedule", "succeeded")], (pulses, ran)
    ticks = city.sql("SELECT args->>'timestamp' FROM procrastinate_jobs WHERE task_name = 'saiverse.city_tick'")
    assert len(ticks) == len({t for (t,) in ticks})  # one tick job per second, whichever worker deferred it



def test_only_autonomous_workers_start_autonomous_turns(city: City) -> None:
    manager = SAIVerseManager(load_settings(), seed=False)
    try:
        manager.admin.update_persona(city.persona_id, {"interaction_mode": "auto"})
        manager.autonomous = True  # the user's switch, on
        plain = city.worker()
        succeeded_ticks = ("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.city_tick'"
                           " AND status = 'succeeded'")
        wait_for(lambda: city.sql(succeeded_ticks)[0][0] >= 3, "three ticks of the plain worker")
        assert manager.autonomous  # a worker never switches the city's autonomous mode
        assert city.sql("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'") == [(0,)]
        plain.terminate()
        plain.wait(30)
        city.worker(autonomous=True)
        wait_for(lambda: city.sql("SELECT args->>'kind' FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                                   " AND status = 'succeeded'") == [("auto",)], "the persona's autonomous turn")
        assert manager.autonomous
    finally:
        manager.close()


def test_a_users_pulse_runs_while_autonomous_turns_hold_every_slot(city: City, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    release = tmp_path / "release"
    monkeypatch.setenv("SAIVERSE_TEST_RELEASE", str(release))
    manager, queue = queued(city)
    try:
        block = manager.admin.create_building({"name": "block", "capacity": 10})
        autos = [manager.admin.create_persona({"name": f"住人{i}", "building_id": block.building_id,
                                               "interaction_mode": "auto"}) for i in range(3)]
        for p in autos:
            queue.submit_auto(p, block.building_id, manager.meta_playbook("meta_auto"))
        # One slot, and the first autonomous turn held in it (as its pulse starts).
        city.worker(kill=("hold", "saiverse.pulse._controller:PulseController._execute"), concurrency=1)
        wait_for(lambda: Path(f"{release}.held").exists(), "an autonomous turn holds the slot")
        persona = manager.world.persona(city.persona_id)
        user = queue.submit_user(persona, city.building_id, "割り込みます", manager.meta_playbook(None))
        assert user.done.wait(WAIT) and user.record.status == "ok"  # it did not wait for the slot
        def kinds() -> list[tuple[str, str]]:
            return city.sql("SELECT args->>'kind', status FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                            " AND status IN ('doing', 'succeeded') ORDER BY id")

        # The job is marked succeeded just after its last event reached us: wait for that, the turn still held.
        wait_for(lambda: kinds() == [("auto", "doing"), ("user", "succeeded")], "the user's job succeeded first")
        release.touch()
        wait_for(lambda: city.sql("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                                   " AND status = 'succeeded'") == [(4,)], "the autonomous turns ran after all")
    finally:
        release.touch()
        manager.close()


def test_a_users_pulse_is_taken_before_schedules_and_autonomous_turns(city: City) -> None:
    manager, queue = queued(city)
    try:
        persona = manager.world.persona(city.persona_id)
        auto = queue.submit_auto(persona, city.building_id, manager.meta_playbook("meta_auto"))
        schedule = queue.submit_schedule(persona, city.building_id, manager.meta_playbook(None),
                                         args={"input": "定時"})
        user = queue.submit_user(persona, city.building_id, "先にどうぞ", manager.meta_playbook(None))
        assert auto.done.is_set() and schedule.done.is_set()  # not followed: only a user's pulse is
        city.worker(concurrency=1)  # queued first, taken in priority order
        assert user.done.wait(WAIT) and user.record.status == "ok"
        wait_for(lambda: city.sql("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'"
                                   " AND status = 'succeeded'") == [(3,)], "the three pulses ran")
    finally:
        manager.close()
    started = city.sql("""SELECT j.args->>'kind' FROM procrastinate_events e JOIN procrastinate_jobs j
                          ON j.id = e.job_id WHERE j.task_name = 'saiverse.run_pulse' AND e.type = 'started'
                          ORDER BY e.at, e.id""")
    kinds = [k for (k,) in started]
    # The general slot takes them by priority; the user lane may take the user's at the same moment.
    assert [k for k in kinds if k != "user"] == ["schedule", "auto"] and kinds.index("user") <= 1, kinds


def test_remote_pulses_need_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REMOTE_ENV, "1")  # the home's SQLite city
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "chat", "こんにちは"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "SAIVERSE_RAISE_ERRORS": ""})
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "PostgreSQL" in done.stderr, done.stderr
    assert not Path(os.environ["SAIVERSE_HOME"]).exists()  # nothing written
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "worker"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "SAIVERSE_RAISE_ERRORS": ""})
    assert done.returncode == 2 and "PostgreSQL" in done.stderr, done.stderr
