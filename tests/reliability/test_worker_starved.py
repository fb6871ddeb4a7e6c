"""A pulse worker starved of the CPU for longer than three heartbeats is late, not dead (issue 34).

Under load a worker of the kill campaign (tests/reliability/test_worker_kill_campaign.py) exited with
status 1 by itself: a worker starting meanwhile deleted its row as stalled (procrastinate prunes
workers silent for `stalled_worker_timeout`), and its next fetch failed on the jobs' foreign key to
it; its running job was also taken back to the queue while it still ran it. Here the starvation is
made exact — SIGSTOP for 8 s while it holds a user's pulse, a second worker started and its
recovery run meanwhile — and the worker must go on: the pulse ends `ok`, its job once, never retried,
and, the second worker stopped, it takes and runs the next pulse itself.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.worker_city import WAIT, City, queued, wait_for


def test_a_stopped_worker_keeps_its_job_and_its_life(city: City, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    release = tmp_path / "release"
    monkeypatch.setenv("SAIVERSE_TEST_RELEASE", str(release))
    manager, queue = queued(city)
    slow = city.worker(kill=("hold", "saiverse.pulse._controller:PulseController._execute"), concurrency=1)
    try:
        persona = manager.world.persona(city.persona_id)
        handle = queue.submit_user(persona, city.building_id, "遅いワーカーへ", manager.meta_playbook(None))
        wait_for(lambda: Path(f"{release}.held").exists(), "the pulse runs on the slow worker")
        slow.send_signal(signal.SIGSTOP)
        try:
            time.sleep(2.0)  # 4 heartbeats missed before the second worker starts (and prunes what it finds stalled)
            other = city.worker()
            time.sleep(6.0)  # its recovery (every 5 s) looks at the silent worker's job at least once
        finally:
            slow.send_signal(signal.SIGCONT)
        release.touch()
        assert handle.done.wait(WAIT) and handle.record.status == "ok", list(handle.events())
        other.terminate()  # the resumed worker alone now: it must fetch the next job itself
        assert other.wait(60) == 0
        again = queue.submit_user(persona, city.building_id, "もう一度", manager.meta_playbook(None))
        assert again.done.wait(WAIT) and again.record.status == "ok"
        time.sleep(2.0)  # a few fetches and heartbeats of the resumed worker
        log = (Path.cwd() / "worker-0.log").read_text(errors="replace")
        assert slow.poll() is None, f"the starved worker exited ({slow.returncode}):\n{log[-6000:]}"
    finally:
        release.touch()
        manager.close()
    jobs = city.sql("SELECT args->>'pulse_id', status, attempts FROM procrastinate_jobs "
                    "WHERE task_name = 'saiverse.run_pulse' ORDER BY id")
    assert jobs == [(handle.pulse_id, "succeeded", 1), (again.pulse_id, "succeeded", 1)]  # run once each, never retried
    assert [role for role, _ in city.memory(handle.pulse_id)] == ["user", "assistant"]


def test_an_app_closed_while_it_follows_a_pulse(city: City, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """The app's follower never calls into the closed procrastinate App (it raised AppNotOpen while
    cancelling): closing cancels the job first and the follower ends the pulse `cancelled`, quietly."""
    release = tmp_path / "release"
    monkeypatch.setenv("SAIVERSE_TEST_RELEASE", str(release))
    manager, queue = queued(city)
    city.worker(kill=("hold", "saiverse.pulse._controller:PulseController._execute"), concurrency=1)
    try:
        persona = manager.world.persona(city.persona_id)
        handle = queue.submit_user(persona, city.building_id, "閉じる前に", manager.meta_playbook(None))
        wait_for(lambda: Path(f"{release}.held").exists(), "the pulse runs on the worker")
        manager.close()
        assert handle.done.wait(WAIT)
        events = list(handle.events())
    finally:
        release.touch()
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "cancelled", events[-3:]
    assert not [e for e in events if e["type"] == "error"], events
    assert "AppNotOpen" not in caplog.text and "following pulse" not in caplog.text, caplog.text[-3000:]
    wait_for(lambda: city.sql("SELECT status FROM procrastinate_jobs WHERE args->>'pulse_id' = %s",
                               handle.pulse_id)[0][0] in ("succeeded", "failed", "aborted", "cancelled"),
              "the job ends (asked to stop as the app closed)")
