"""kill -9 campaign against pulse workers (`python main.py worker`, saiverse/pulse/_queue.py) on PostgreSQL.

A city in a database of its own on the throwaway cluster (tests/support/pg.py), two worker processes with
`--autonomous` always running, while this process (an app with SAIVERSE_PULSE_WORKERS_REMOTE=1) sends
user messages to two personas one after another, two other personas take autonomous turns every two
seconds and one-shot schedules fall due every few seconds. Every 1–3 s a random worker is killed with
SIGKILL and a new one started. Then the campaign stops killing, autonomous mode is turned off, and the
queue drains. Checked afterwards, per pulse (a `saiverse.run_pulse` job, its pulse id the key):

- it ended `succeeded` or `failed`, nothing left waiting or running, one job per pulse;
- succeeded: its reply once in the persona's memory and once in the building; failed: neither, and the
  `pulse_stopped` note once (the journal's rule: all of a pulse's writes or none, never twice), and a
  user's pulse lost with its worker one line in the building saying its reply stopped (saiverse/pulse/_open.py);
- a user's message is in memory once and in the building once, whatever happened; the user saw exactly
  one `pulse_end` for it, `ok` when its job succeeded and `error` when it failed;
- every schedule fired exactly once (one job) and, being one-shot, is disabled;
- the database is consistent (amcheck, no orphaned rows).

`SAIVERSE_WORKER_KILLS=N` sets the number of kills (default 5).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from database.models import Schedule
from saiverse.manager import SAIVerseManager
from saiverse.pulse._remote import REMOTE_ENV
from saiverse.settings import load_settings
from tests.support.backends import Store
from tests.support.processes import stop_all

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("SAIVERSE_WORKER_KILLS", "") or 5)
WORKERS = 2
SCHEDULES = 6
TALKERS = {"mina": "library", "sora": "library"}
"""Personas the user talks to (each in its own thread, one message after another)."""
AUTO = {"kai": "museum", "rin": "entrance"}
"""Personas taking autonomous turns."""
WAIT = 120.0
"""A liveness bound for the queue to drain, not a timing."""


def _wait_for(cond: Callable[[], Any], what: str, store: Store) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.3)
    jobs = store.rows("SELECT task_name, status, count(*) FROM procrastinate_jobs GROUP BY 1, 2 ORDER BY 1, 2")
    due = store.rows("SELECT SCHEDULE_ID, ENABLED, NEXT_RUN_AT FROM schedule WHERE ENABLED = 1")
    raise AssertionError(f"never happened: {what} (jobs {jobs}, schedules waiting {due}, now {datetime.now()})")


class Workers:
    """The worker processes of the campaign, started and killed."""

    def __init__(self) -> None:
        self.alive: list[subprocess.Popen[str]] = []
        self.logs: dict[int, Path] = {}
        self.started = 0
        self.killed = 0

    def start(self) -> None:
        path = Path.cwd() / f"worker-{self.started}.log"
        log = open(path, "w")  # noqa: SIM115 - kept while it runs
        proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "worker", "--concurrency", "2",
                                 "--autonomous"], stdout=subprocess.PIPE, stderr=log, text=True,
                                env={**os.environ, REMOTE_ENV: "0"})
        self.logs[proc.pid] = path
        line = proc.stdout.readline() if proc.stdout else ""
        assert line and json.loads(line)["type"] == "worker_started", f"{line!r}\n{self.output(proc)}"
        self.started += 1
        self.alive.append(proc)

    def output(self, proc: subprocess.Popen[str]) -> str:
        """The worker's own stderr (its log) and what is left of its stdout, for a failure's message."""
        rest = ""
        if proc.poll() is not None and proc.stdout is not None:
            rest = proc.stdout.read()
        return f"--- worker {proc.pid} stderr ---\n{self.logs[proc.pid].read_text(errors='replace')[-6000:]}" \
               f"\n--- stdout ---\n{rest[-2000:]}"

    def check_alive(self) -> None:
        """No worker ends of its own accord: one that did fails the campaign with what it said."""
        for proc in self.alive:
            assert proc.poll() is None, f"worker {proc.pid} exited by itself ({proc.returncode}):\n{self.output(proc)}"

    def kill_one(self, rng: random.Random) -> None:
        self.check_alive()
        proc = self.alive.pop(rng.randrange(len(self.alive)))
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL, self.output(proc)
        self.killed += 1

    def stop(self) -> None:
        stop_all(self.alive)


def _prepare(store: Store) -> list[str]:
    """The city: two personas to talk to, two autonomous ones (a 2-second interval), the schedules."""
    m = SAIVerseManager(load_settings())
    try:
        for pid, where in {**TALKERS, **AUTO}.items():
            if pid in {p.persona_id for p in m.world.personas()}:
                m.world.move_persona(pid, where)
            else:
                m.admin.create_persona({"persona_id": pid, "name": pid.capitalize(), "building_id": where})
        later = (datetime.now() + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
        ids = [m.add_schedule(pid, {"kind": "oneshot", "run_at": later, "args": {"input": f"定時 {i}"}}).schedule_id
               for i, pid in enumerate(([*TALKERS, *AUTO] * SCHEDULES)[:SCHEDULES])]
    finally:
        m.close()
    store.rows("UPDATE building SET AUTO_INTERVAL_SEC = 2 WHERE BUILDINGID IN (?, ?)", *AUTO.values())
    store.rows("UPDATE ai SET INTERACTION_MODE = 'auto' WHERE AIID IN (?, ?)", *AUTO)
    return ids


def _due_in(store: Store, ids: list[str]) -> None:
    """Each schedule falls due a few seconds after the last, while the campaign runs."""
    m = SAIVerseManager(load_settings(), seed=False)
    try:
        with m.db.session() as s:
            for i, sid in enumerate(ids):
                s.get(Schedule, sid).next_run_at = datetime.now() + timedelta(seconds=2 + 3 * i)
    finally:
        m.close()


def _talk(m: SAIVerseManager, pid: str, stop: threading.Event, sent: list[tuple[str, list[dict[str, Any]]]]) -> None:
    n = 0
    while not stop.is_set():
        text = f"こんにちは {pid} {n}"
        n += 1
        sent.append((text, list(m.handle_user_input(TALKERS[pid], text, persona_id=pid))))


def test_kill_pulse_workers_at_random_moments(pg_url: str, monkeypatch: pytest.MonkeyPatch,
                                              saiverse_home: Path) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    monkeypatch.setenv("SAIVERSE_WORKER_HEARTBEAT", "0.5")  # a killed worker's job is taken back after 1.5 s
    monkeypatch.setenv("SAIVERSE_WORKER_TICK", "1")
    store = Store("postgres", saiverse_home, pg_url)
    schedules = _prepare(store)
    workers = Workers()
    rng = random.Random(20261125)
    started = time.monotonic()
    monkeypatch.setenv(REMOTE_ENV, "1")
    app = SAIVerseManager(load_settings(), seed=False)  # the app: its pulses go to the workers
    monkeypatch.setenv(REMOTE_ENV, "0")
    stop = threading.Event()
    sent: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {pid: [] for pid in TALKERS}
    talkers = [threading.Thread(target=_talk, args=(app, pid, stop, sent[pid])) for pid in TALKERS]
    try:
        for _ in range(WORKERS):
            workers.start()
        _due_in(store, schedules)
        for t in talkers:
            t.start()
        for _ in range(KILLS):
            time.sleep(rng.uniform(1.0, 3.0))
            workers.kill_one(rng)
            workers.start()
        store.rows("UPDATE ai SET INTERACTION_MODE = 'user' WHERE AIID IN (?, ?)", *AUTO)
        _wait_for(lambda: store.rows("SELECT count(*) FROM schedule WHERE ENABLED = 1") == [(0,)],
                  "every schedule fired", store)
        stop.set()
        for t in talkers:
            t.join(WAIT)
            assert not t.is_alive(), "a user's message never ended"
        _wait_for(lambda: store.rows("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse' "
                                     "AND status IN ('todo', 'doing')") == [(0,)], "the queue drained", store)
        workers.check_alive()
    finally:
        stop.set()
        app.close()
        workers.stop()
    took = time.monotonic() - started
    summary = _check(store, sent, schedules)
    checked = store.check_consistent()
    print(f"\nworker kill campaign: {workers.killed} kills of {workers.started} workers in {took:.0f} s; {summary}; "
          f"{checked}")


def _check(store: Store, sent: dict[str, list[tuple[str, list[dict[str, Any]]]]], schedules: list[str]) -> str:
    jobs = store.rows("SELECT args->>'pulse_id', args->>'kind', args->'args'->>'input', status, attempts "
                      "FROM procrastinate_jobs WHERE task_name = 'saiverse.run_pulse'")
    assert len({j[0] for j in jobs}) == len(jobs), "a pulse deferred twice"
    assert {j[3] for j in jobs} <= {"succeeded", "failed"}, Counter(j[3] for j in jobs)
    users: Counter[str] = Counter()
    replies: Counter[str] = Counter()
    thoughts: Counter[str] = Counter()
    stopped: Counter[str] = Counter()
    lost: set[str] = set()  # stopped because their worker was killed (saiverse/pulse/_queue.py)
    for pulse, role, tags, content in store.rows(
            "SELECT PULSE_ID, ROLE, TAGS, CONTENT FROM saimemory WHERE PULSE_ID IS NOT NULL"):
        tags = json.loads(tags or "[]")
        if "pulse_stopped" in tags:
            stopped[pulse] += 1
            if "ワーカーが途中で止まりました" in content:
                lost.add(pulse)
        elif role == "user":
            users[pulse] += 1
        elif "conversation" in tags:
            replies[pulse] += 1  # said in the building
        else:
            thoughts[pulse] += 1  # an autonomous turn that only looked around (`think`)
    history = store.rows("SELECT PULSE_ID, SPEAKER_KIND FROM building_history WHERE PULSE_ID IS NOT NULL")
    lines = Counter(p for p, speaker in history if speaker != "system")
    cut_short = Counter(p for p, speaker in history if speaker == "system")  # "…の返事は途中で止まりました"
    status = {}
    wrong = []
    for pulse, kind, _input, state, _attempts in jobs:
        status[pulse] = state
        once = replies[pulse] <= 1 and thoughts[pulse] <= 1 and lines[pulse] == replies[pulse]
        whole = once and replies[pulse] + thoughts[pulse] >= 1 and not stopped[pulse] and not cut_short[pulse]
        failed = (replies[pulse] + thoughts[pulse] + lines[pulse] == 0 and stopped[pulse] == 1
                  and cut_short[pulse] == (kind == "user" and pulse in lost))  # the chat says a lost reply stopped
        if users[pulse] != (kind == "user") or not (whole if state == "succeeded" else failed):
            wrong.append((pulse, kind, state, users[pulse], replies[pulse], thoughts[pulse], lines[pulse],
                          stopped[pulse]))
    seen = {str(e.get("pulse_id")): [(e.get("type"), e.get("kind") or e.get("status"), e.get("message"))
                                      for e in evs if e.get("type") in ("error", "notice", "pulse_end")]
            for msgs in sent.values() for _t, evs in msgs for e in evs if e.get("type") == "pulse_end"}
    assert not wrong, ("pulses whose writes do not match their end (kind, job, user, reply, thought, line, stopped): "
                       f"{wrong[:5]}; the user saw {[seen.get(w[0]) for w in wrong[:5]]}")

    history = Counter(c for (c,) in store.rows("SELECT CONTENT FROM building_history WHERE SPEAKER_ID = 'user'"))
    for pid, messages in sent.items():
        for text, events in messages:
            ends = [e for e in events if e.get("type") == "pulse_end"]
            assert len(ends) == 1, (pid, text, [e.get("type") for e in events])
            pulse = str(ends[0]["pulse_id"])
            expected = {"succeeded": "ok", "failed": "error"}[status[pulse]]
            assert ends[0]["status"] == expected, (pid, text, ends[0], status[pulse])
            assert history[text] == 1, (pid, text, history[text])

    fired = Counter(j[2] for j in jobs if j[1] == "schedule")
    assert sorted(fired.values()) == [1] * SCHEDULES and len(fired) == SCHEDULES, fired
    assert store.rows("SELECT count(*) FROM schedule WHERE ENABLED = 1") == [(0,)]
    kinds = Counter((j[1], j[3]) for j in jobs)
    retried = sum(1 for j in jobs if j[4] > 1)  # procrastinate counts the first attempt too
    return (f"{len(jobs)} pulses ({dict(sorted(kinds.items()))}), {retried} taken back from a killed worker, "
            f"{sum(len(v) for v in sent.values())} user messages each ended once, {SCHEDULES} schedules fired once, "
            "doubled 0, lost 0")
