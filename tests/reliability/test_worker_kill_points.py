"""Pulse workers killed at chosen points (tests/support/killat.py), found by the random campaign
(tests/reliability/test_worker_kill_campaign.py) or its checks, each at the same point every time:

- a pulse lost twice: its first worker killed mid-pulse, the second killed after it wrote the
  `pulse_stopped` note but before its job was marked failed → the third ends the job `failed` too,
  as the pulse did (it was marked `succeeded` with a failed pulse before the fix);
- a worker killed in its tick between claiming a due schedule and deferring its pulse → the claim is
  undone with it, and the next worker fires the schedule, once (it was never fired before the fix:
  the run claimed, no job deferred — lost silently);
- and, what the campaign's check "the job ends as its pulse did" also asks: a pulse that fails on a
  worker (here its playbook is gone) fails its job (it was marked `succeeded` before the fix).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from database.models import Schedule
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.worker_city import WAIT, City, queued, wait_for


def test_a_pulse_lost_twice_ends_its_job_failed(city: City) -> None:
    manager, queue = queued(city)
    first = city.worker(kill=("before", "saiverse.pulse._journal:PulseJournal.commit"))
    try:
        persona = manager.world.persona(city.persona_id)
        handle = queue.submit_user(persona, city.building_id, "二度止まる", manager.meta_playbook(None))
        assert first.wait(WAIT) == -9
        second = city.worker(kill=("before", "saiverse.pulse._queue:PulseLost"))  # after the note, before failing
        assert second.wait(WAIT) == -9
        assert handle.done.wait(WAIT)
        events = list(handle.events())
        city.worker()  # takes the job a third time
        wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                                   handle.pulse_id)[0][0] in ("succeeded", "failed"), "the job ends")
    finally:
        manager.close()
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "error"
    assert city.sql("SELECT status, attempts FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                    handle.pulse_id) == [("failed", 3)]
    stored = city.memory(handle.pulse_id)
    assert [role for role, _ in stored] == ["user", "user"] and "途中で止まりました" in stored[-1][1], stored


def test_a_schedule_claimed_by_a_killed_tick_still_fires_once(city: City) -> None:
    manager = SAIVerseManager(load_settings(), seed=False)
    try:
        later = (datetime.now() + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
        entry = manager.add_schedule(city.persona_id, {"kind": "oneshot", "run_at": later,
                                                        "args": {"input": "一度だけ"}})
        with manager.db.session() as s:  # due a minute ago
            s.get(Schedule, entry.schedule_id).next_run_at = datetime.now() - timedelta(minutes=1)
    finally:
        manager.close()
    dying = city.worker(kill=("before", "saiverse.pulse._remote:QueuedPulses.submit"))  # claimed, not deferred
    assert dying.wait(WAIT) == -9
    city.worker()
    wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'")
              == [("succeeded",)], "the schedule's pulse ran")
    assert city.sql("SELECT ENABLED FROM schedule WHERE SCHEDULE_ID = %s", entry.schedule_id) == [(0,)]
    said = city.sql("SELECT count(*) FROM saimemory WHERE PERSONA_ID = %s AND PULSE_ID IS NOT NULL",
                    city.persona_id)
    assert said == [(1,)]


def test_a_pulse_that_fails_on_a_worker_fails_its_job(city: City) -> None:
    manager, queue = queued(city)
    city.worker()
    try:
        persona = manager.world.persona(city.persona_id)
        gone = manager.meta_playbook(None).model_copy(update={"name": "no_such_playbook"})
        handle = queue.submit_user(persona, city.building_id, "失敗するはず", gone)
        assert handle.done.wait(WAIT)
        events = list(handle.events())
        wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                                   handle.pulse_id)[0][0] in ("succeeded", "failed"), "the job ends")
    finally:
        manager.close()
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "error"
    assert city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                    handle.pulse_id) == [("failed",)]
