"""Pulse workers: `python main.py worker` takes pulses from a queue in PostgreSQL (docs/ARCHITECTURE.md).

The queue is `procrastinate` (FOR UPDATE SKIP LOCKED, LISTEN/NOTIFY). Each pulse is a `saiverse.run_pulse`
job with the persona's `lock` (one pulse of a persona at a time across every worker) and a priority
(user > schedule > auto, saiverse/pulse/_remote.py). Users' pulses go to their own queue, and each
worker runs one more slot (the user lane) that takes only those: a user's pulse never waits for a slot
that autonomous turns hold. A worker opens the city like the app does and runs
the job on its in-process pulse controller, publishing every event on the pulse's channel.

Periodic tasks, deduplicated across workers by procrastinate (one job per tick, whoever defers it):
- `saiverse.city_tick`: due schedules (each run claimed under a row lock, saiverse/schedules.py, so it
  fires once) and, on workers started with `--autonomous` (which switches the city's 自律 on), while
  the switch is on, autonomous turns — deferred as jobs; a turn is claimed in the database
  (saiverse/world/_auto_turns.py), so it starts once per interval also beside an app's own ticker;
- `saiverse.recover_stalled`: jobs of a worker that stopped sending heartbeats (killed) go back to
  the queue;
- `saiverse.prune_jobs` (hourly): jobs that succeeded over an hour ago, or failed over a week ago, are deleted.

While a user's pulse runs on any worker, autonomous pulses on every worker give way to it at their safe
points (saiverse/pulse/_usergate.py: NOTIFY on `saiverse_users`, as the pulse pool does in one process).

A retried job never doubles a pulse (the journal: the user's message is stored first, everything else
in one transaction at the end, saiverse/pulse.py). The pulse id is its idempotency key:
- the pulse's writes are there → it ended before the kill: nothing runs again (and a job whose pulse an
  earlier attempt ended as failed, `pulse_stopped`, fails again: its worker was killed before the job was);
- nothing of it is stored, or only the user's message, and it never started → it runs (the message is
  not stored twice);
- it had started (a retry, with the user's message stored, or any schedule/auto pulse) → tools may
  have changed the world already, which cannot be undone: it ends as failed, with the `pulse_stopped`
  note in the persona's memory, and the job is marked failed. Never run twice, never lost silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from portable import run_async
from saiverse.errors import UsageError
from saiverse.heap import settle
from saiverse.pulse._open import RUNNER_QUEUE, OpenPulse, recover_one
from saiverse.pulse._publisher import ALIVE_KEY, EventPublisher, alive_key
from saiverse.pulse._remote import (
    EVENTS_TABLE,
    RUN_PULSE,
    USER_QUEUE,
    QueuedPulses,
    connection_pool,
    ensure_schema,
    libpq_url,
)
from saiverse.pulse._usergate import UserGate, announce
from sea.events import event
from words import say

if TYPE_CHECKING:
    from database import Database
    from saiverse.memory import SAIMemory
    from saiverse.pulse._playbooks import PlaybookCatalog
    from saiverse.settings import Settings
    from saiverse.world import World

RECOVER_CRON = "* * * * * */5"
"""Every 5 s (procrastinate's cron: the 6th column is seconds, the first stays minutes)."""
SYSTEM_PRIORITY = 30
PRUNE_CRON = "17 * * * *"
"""Hourly: finished jobs leave the queue's tables (procrastinate keeps every job and its events)."""
KEEP_SUCCEEDED_HOURS = 1
KEEP_FAILED_HOURS = 24 * 7
"""Failed, cancelled and aborted jobs are kept a week, for an operator to look at."""
PRUNE_WORKERS_AFTER = 3600.0
"""Seconds without a heartbeat after which a worker's row is deleted (procrastinate does it as a worker
starts). Not 3 heartbeats: a living worker whose row went fails its next fetch (the jobs' foreign key
to it) and exits — under load a worker starved for a few seconds did (issue 34). Its jobs do not wait
for this: `recover_stalled` takes them back as soon as their liveness lock is free."""
ALIVE_JOBS = ("SELECT objid::bigint AS job_id FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 "
              "AND granted AND classid::bigint = %(key)s")
"""The jobs whose worker holds its liveness lock (saiverse/pulse/_publisher.py): alive, however late."""
log = logging.getLogger(__name__)


class PulseLost(RuntimeError):
    """A pulse whose worker died after it started: ended as failed (the job fails with it)."""


class PulseFailed(RuntimeError):
    """A pulse that ended with an error on this worker (its events said so): the job fails with it."""


class WorkerCity(Protocol):
    """What a worker uses of the city it opened (`SAIVerseManager`; the manager sits above this package, so
    the worker names only what it reaches)."""

    db: Database
    memory: SAIMemory
    world: World
    playbooks: PlaybookCatalog
    pulses: Any
    """The in-process `PulseController` (its `runner`, `hold_autonomous`, `submit`)."""
    autonomous: bool

    def fire_due_schedules(self, now: Any = None, *, pulses: Any = None) -> list[Any]: ...

    def autonomous_tick(self, now: Any = None, *, pulses: Any = None) -> list[Any]: ...

    def close(self) -> None: ...


@dataclass
class _Worker:
    """What a worker process holds: its city and a queue to defer the pulses its tick starts."""

    url: str
    manager: WorkerCity
    enqueuer: QueuedPulses
    publishers: Any = None
    """Kept connections the users' pulses publish their events on (saiverse/pulse/_remote.py)."""
    autonomous: bool = False
    """Started with `--autonomous`: it switched the city's 自律 on as it started, and its tick also starts
    autonomous turns while the switch is on. A worker without it never changes the switch."""


_STATE: dict[str, _Worker] = {}


def tick_cron(tick: float) -> str:
    """The tick's cron line (procrastinate's 6th column is seconds; a divisor of 60 keeps it even)."""
    return f"* * * * * */{int(tick)}"


def build_app(url: str, *, lane: bool = False, tick: float = 15.0, heartbeat: float = 10.0) -> Any:
    """The workers' procrastinate App with the pulse, tick and recovery tasks; `lane`: the user lane's,
    with the pulse task alone (each App's worker defers its periodic tasks, and one deferrer per worker
    process keeps the ticks one per second — more raced into duplicates)."""
    from procrastinate import App, JobContext, PsycopgConnector

    app = App(connector=PsycopgConnector(conninfo=libpq_url(url), min_size=1, max_size=2 if lane else 8))

    @app.task(name=RUN_PULSE, pass_context=True)
    def run_pulse(context: JobContext, **job: Any) -> None:
        _run_pulse(context, **job)

    if lane:
        return app

    @app.periodic(cron=tick_cron(tick), periodic_id="tick")
    @app.task(name="saiverse.city_tick", queueing_lock="saiverse.city_tick", priority=SYSTEM_PRIORITY)
    def city_tick(timestamp: int) -> None:
        _tick()

    @app.periodic(cron=RECOVER_CRON, periodic_id="recover")
    @app.task(name="saiverse.recover_stalled", queueing_lock="saiverse.recover_stalled", priority=SYSTEM_PRIORITY)
    async def recover_stalled(timestamp: int) -> None:
        stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=3 * heartbeat)
        alive = {int(r["job_id"]) for r in await app.connector.execute_query_all_async(
            query=ALIVE_JOBS, key=ALIVE_KEY)} if stalled else set()
        for job in stalled:
            if job.id is not None and alive_key(job.id) in alive:
                continue  # its worker is late with its heartbeats (a busy machine), not dead: it keeps the job
            log.warning("job %s (%s) lost its worker: back to the queue", job.id, job.task_name)
            await app.job_manager.retry_job(job)

    @app.periodic(cron=PRUNE_CRON, periodic_id="prune")
    @app.task(name="saiverse.prune_jobs", queueing_lock="saiverse.prune_jobs", priority=SYSTEM_PRIORITY)
    async def prune_jobs(timestamp: int) -> None:
        await prune(app)

    return app


async def prune(app: Any) -> None:
    """Delete jobs finished long ago (with their events): the queue's tables would otherwise grow by
    every pulse, about as much as the pulses' own rows (benchmarks/RESULTS-city.md)."""
    await app.job_manager.delete_old_jobs(nb_hours=KEEP_SUCCEEDED_HOURS)
    await app.job_manager.delete_old_jobs(nb_hours=KEEP_FAILED_HOURS, include_failed=True, include_cancelled=True,
                                          include_aborted=True)


def _run_pulse(context: Any, *, pulse_id: str, kind: str, persona_id: str, building_id: str, playbook: str,
               user_input: str | None, args: dict[str, Any]) -> None:
    state = _STATE["worker"]
    mgr = state.manager
    publisher = EventPublisher(state.publishers, pulse_id, followed=kind == "user", job_id=context.job.id)
    base = {"pulse_id": pulse_id, "persona_id": persona_id}
    try:
        stored = mgr.memory.list_messages(persona_id, tag=f"pulse:{pulse_id}", limit=50)
        only_user = kind == "user" and len(stored) == 1 and stored[0]["role"] == "user"
        if stored and not only_user:
            stopped = any("pulse_stopped" in (m["tags"] or []) for m in stored)
            publisher.publish(event("notice", kind="pulse_already_ended", text="このパルスは既に終わっています。",
                                    **base))
            publisher.publish(event("pulse_end", status="error" if stopped else "ok", **base))
            if stopped:  # an earlier attempt ended it as failed and was killed before its job was: fail it too
                raise PulseLost(f"pulse {pulse_id} had already ended as failed")
            return
        if context.job.attempts > 0 and (stored or kind != "user"):
            why = say("pulse_worker_lost")
            # Noted as the app's start notes a pulse a kill cut short, its tools' changes included (_open.py).
            recover_one(mgr.db, mgr.memory, mgr.world, OpenPulse(pulse_id, persona_id, building_id, kind, RUNNER_QUEUE),
                        why)
            publisher.publish(event("error", kind="worker_lost", message=f"{why}。パルスは再実行されません。", **base))
            publisher.publish(event("pulse_end", status="error", **base))
            raise PulseLost(f"pulse {pulse_id} lost its worker mid-run; ended as failed")
        persona = mgr.world.persona(persona_id)
        pb = mgr.playbooks.get(playbook)
        if pb is None:
            publisher.publish(event("error", kind="PlaybookError", message=f"playbook {playbook!r} does not exist",
                                    **base))
            publisher.publish(event("pulse_end", status="error", **base))
            raise PulseFailed(f"pulse {pulse_id}: playbook {playbook!r} does not exist")
        if kind == "user":  # autonomous pulses on every worker give way to it (saiverse/pulse/_usergate.py)
            announce(publisher.conn, pulse_id, "start")
        try:
            handle = mgr.pulses.submit(kind, persona, building_id, pb, args=args, user_input=user_input,
                                       pulse_id=pulse_id, user_stored=bool(stored))
            end: dict[str, Any] = {}
            for ev in handle.events():
                publisher.publish(ev)
                end = ev if ev.get("type") == "pulse_end" else end
                if context.should_abort():
                    handle.cancel()
        finally:
            if kind == "user":
                announce(publisher.conn, pulse_id, "end")
        if end.get("status") == "error":  # the job ends as its pulse did: an operator sees it failed
            raise PulseFailed(f"pulse {pulse_id} ended with an error")
    finally:
        publisher.close()


def _tick() -> None:
    state = _STATE["worker"]
    try:
        state.manager.fire_due_schedules(pulses=state.enqueuer)
    finally:
        if state.autonomous:
            state.manager.autonomous_tick(pulses=state.enqueuer)
        import psycopg

        with psycopg.connect(libpq_url(state.url), autocommit=True) as conn:
            conn.execute(f"DELETE FROM {EVENTS_TABLE} WHERE created_at < now() - interval '1 day'")


async def _serve(url: str, name: str, concurrency: int, beat: float, tick: float) -> None:
    """The worker's `concurrency` slots for every queue, and a user lane: one more slot that takes only
    users' pulses (USER_QUEUE), so a user's pulse starts at once however many autonomous turns hold
    the other slots. SIGINT/SIGTERM stop the main worker (procrastinate's handlers); the lane follows."""
    # Sync tasks run on the loop's default executor (min(32, cores + 4) threads unless set): one
    # thread per slot, the lane's and the periodic tasks' included, or `--concurrency` would be capped.
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=concurrency + 3, thread_name_prefix="worker-task"))
    common = {"update_heartbeat_interval": beat, "stalled_worker_timeout": max(3 * beat, PRUNE_WORKERS_AFTER),
              "fetch_job_polling_interval": min(5.0, beat * 2)}
    app, users = build_app(url, tick=tick, heartbeat=beat), build_app(url, lane=True, tick=tick, heartbeat=beat)
    async with app.open_async(), users.open_async():
        lane = asyncio.create_task(users.run_worker_async(
            name=f"{name}-user", queues=[USER_QUEUE], concurrency=1, install_signal_handlers=False, **common))
        try:
            await app.run_worker_async(name=name, concurrency=concurrency, **common)
        finally:
            lane.cancel()  # procrastinate stops it gracefully: its running pulse ends first
            with contextlib.suppress(asyncio.CancelledError):
                await lane


def worker_command(settings: Settings, args: Any, print_json: Callable[[Any], None],
                   open_city: Callable[[Settings], WorkerCity]) -> int:
    """`python main.py worker`: run pulses from the queue until stopped (SIGINT/SIGTERM end it cleanly).

    `open_city(settings)` opens the city's manager (main.py hands it in: the manager sits above this module)."""
    from database.engine import is_postgres

    if not is_postgres(settings.database_url):
        raise UsageError("pulse workers need a city in PostgreSQL: set SAIVERSE_DATABASE_URL=postgresql+psycopg://…")
    beat = settings.worker_heartbeat
    settings = replace(settings, pulse_workers_remote=False)  # this process runs the pulses it takes
    ensure_schema(settings.database_url)
    manager = open_city(settings)
    manager.pulses.runner = RUNNER_QUEUE  # a killed job's retry accounts for its open pulse (_run_pulse)
    if args.autonomous:  # the city's 自律 switch, kept in the world: a worker started without it leaves it be
        manager.autonomous = True
    name = f"{socket.gethostname()}-{os.getpid()}"
    # A user's pulse may run on the user lane or on any slot (a slot takes every queue).
    publishers = connection_pool(settings.database_url, args.concurrency + 1)
    _STATE["worker"] = _Worker(settings.database_url, manager, QueuedPulses(settings.database_url, listen=False),
                               publishers=publishers, autonomous=bool(args.autonomous))
    gate = UserGate(settings.database_url, manager.pulses.hold_autonomous)
    settle()  # the city is open: its start-up objects out of the collector's full passes
    print_json({"type": "worker_started", "name": name, "concurrency": args.concurrency,
                "autonomous": bool(args.autonomous)})
    try:
        run_async(_serve(settings.database_url, name, args.concurrency, beat, settings.worker_tick))
    finally:
        gate.close()
        _STATE["worker"].enqueuer.shutdown()
        _STATE["worker"].publishers.close(timeout=5.0)
        manager.close()
        _STATE.pop("worker", None)
    return 0
