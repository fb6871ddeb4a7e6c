"""The pulse controller: queues pulses per persona and runs them one at a time (docs/ARCHITECTURE.md, "Pulse").

Pulses run on a bounded pool of workers (saiverse/pulse/_pool.py) with a priority queue per persona
(user > schedule > auto; FIFO within a priority), so pulses of one persona never overlap and a user
message overtakes waiting schedule and autonomous turns. A full queue is refused with a clear
error. Every pulse keeps a record: status, token usage and its activity trace.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from chat import LLMError
from saiverse.errors import UserError
from saiverse.pulse._journal import EventChannel, PulseJournal, PulseServices, persona_context
from saiverse.pulse._open import RUNNER_LOCAL, OpenPulse, close, open_in, stop_reason, stopped_line
from saiverse.pulse._pool import HOLD_LIMIT, PulsePool
from saiverse.world import BuildingInfo, PersonaInfo, World
from sea.events import Event, event
from sea.playbook import Playbook, PlaybookError
from sea.ports import CancellationToken
from sea.runtime import PulseCancelled, run_meta_user, run_playbook

PulseKind = Literal["user", "schedule", "auto"]
"""Why a pulse runs: a user message, a schedule firing, an autonomous tick."""
PRIORITY: dict[str, int] = {"user": 0, "schedule": 1, "auto": 2}
MAX_QUEUE = 8
RECORDS_KEPT = 500
SAID_KEPT = 1024
log = logging.getLogger(__name__)


DEFAULT_WORKERS = 8
"""Pulse workers when none are given; the manager gives `Settings.pulse_workers` (SAIVERSE_PULSE_WORKERS,
read by saiverse/settings.py only)."""


class YieldingToken(CancellationToken):
    """An autonomous pulse's token: the runtime reads it between nodes and between streamed chunks
    (points where the pulse holds no transaction), and each read first gives way to a user's pulse
    running in this process (`PulsePool.yield_to_users`, saiverse/pulse/_pool.py)."""

    def __init__(self, pool: PulsePool) -> None:
        super().__init__()
        self._pool = pool

    @property
    def cancelled(self) -> bool:
        self._pool.yield_to_users(self._event.is_set)
        return self._event.is_set()


class QueueFullError(UserError, RuntimeError):
    """A persona already has too many pulses waiting."""


@dataclass
class PulseRecord:
    """What is kept about a pulse after it ends."""

    pulse_id: str
    persona_id: str
    kind: str
    playbook: str
    building_id: str
    status: str = "queued"
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    trace: list[str] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    """Models that answered during the pulse, in order."""
    spent: list[tuple[str, int, int]] = field(default_factory=list)
    """(model, input tokens, output tokens) of each model call (saiverse/costs.py records them)."""
    queued_at: float = field(default_factory=time.monotonic)
    started_at: float | None = None
    ended_at: float | None = None


class PulseHandle:
    """A submitted pulse: iterate `events()` to follow it; `cancel()` stops it."""

    def __init__(self, record: PulseRecord, token: CancellationToken) -> None:
        self.record = record
        self.token = token
        self.done = threading.Event()
        self._events = EventChannel()  # batched hand-over (saiverse/pulse/_journal.py); None ends the stream
        self._sink: Callable[[list[Event]], None] | None = None
        self._kept: list[Event] = []
        self._lock = threading.Lock()

    @property
    def pulse_id(self) -> str:
        return self.record.pulse_id

    def cancel(self, *, keep_said: bool = True) -> None:
        self.token.cancel(keep_said=keep_said)

    def _put(self, ev: Event | None) -> None:
        with self._lock:
            sink = self._sink
            if sink is None:
                self._events.put(ev)
                return
            if ev is not None:
                self._kept.append(ev)
                return
            kept, self._kept = self._kept, []
        self._deliver(sink, kept)

    @staticmethod
    def _deliver(sink: Callable[[list[Event]], None], events: list[Event]) -> None:
        try:
            sink(events)
        except Exception:  # noqa: BLE001 - a listener's failure must not end the worker that ran the pulse
            log.exception("a pulse's event listener failed")

    def drain_to(self, sink: Callable[[list[Event]], None]) -> None:
        """Nobody follows this pulse: its events are kept and handed to `sink` once, when it ends.

        Instead of a thread per pulse (the ticker's autonomous turns), no thread at all: the worker that
        ends the pulse delivers its events."""
        with self._lock:
            pending: list[Event | None] = self._events.take_nowait()
            ended = bool(pending) and pending[-1] is None
            self._kept = [e for e in pending if e is not None]
            if not ended:
                self._sink = sink
                return
            kept, self._kept = self._kept, []
        self._deliver(sink, kept)

    def events(self) -> Iterator[Event]:
        """The pulse's events as they happen, ending with `pulse_end`."""
        while True:
            for ev in self._events.take():
                if ev is None:
                    return
                yield ev


@dataclass
class _Job:
    handle: PulseHandle
    persona: PersonaInfo
    playbook: Playbook
    args: dict[str, Any]
    user_input: str | None
    user_stored: bool = False
    """The user's message is already in SAIMemory (a queued pulse retried, saiverse/pulse/_queue.py)."""
    stored_own: list[tuple[str, str, list[str]]] | None = None
    """What is stored under the pulse id before it runs, when known exactly (see `PulseController.submit`)."""
    building: BuildingInfo | None = None
    """The pulse's building as the user's turn read it just before (`say`), for its system prompt."""
    opened: OpenPulse | None = None
    """The pulse's `pulse_open` row as `say` wrote it with the user's message (saiverse/pulse/_open.py)."""


class PulseKinds(ABC):
    """The three ways a pulse starts, over `submit` (in-process here, queued in saiverse/pulse/_remote.py)."""

    @abstractmethod
    def submit(self, kind: PulseKind, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
               args: dict[str, Any] | None = None, user_input: str | None = None, **options: Any) -> PulseHandle:
        """Start (or queue) one pulse; `options` are the implementation's own (a pulse id, a connection)."""

    def submit_user(self, persona: PersonaInfo, building_id: str, user_input: str, playbook: Playbook, *,
                    args: dict[str, Any] | None = None, pulse_id: str | None = None) -> PulseHandle:
        """A user's pulse; `pulse_id` is one `say` handed out (the user's message is stored already)."""
        stored = {"pulse_id": pulse_id, "user_stored": True} if pulse_id else {}
        return self.submit("user", persona, building_id, playbook, args=args, user_input=user_input, **stored)

    def say(self, world: World, building_id: str, said: str, targets: list[PersonaInfo], *,
            building: BuildingInfo | None = None) -> tuple[int, dict[str, str]]:
        """Write the user's line in the building; returns its id and, by persona, the pulse id whose user
        message is already stored (none here: each pulse stores its own, see `PulseController.say`).
        `building` is the building as the caller just read it (the in-process pulses start from it)."""
        return world.add_history(building_id, speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                 content=said), {}

    def submit_schedule(self, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
                        args: dict[str, Any] | None = None) -> PulseHandle:
        text = str((args or {}).get("input", ""))
        return self.submit("schedule", persona, building_id, playbook, args=args, user_input=text)

    def submit_auto(self, persona: PersonaInfo, building_id: str, playbook: Playbook) -> PulseHandle:
        return self.submit("auto", persona, building_id, playbook, user_input="")

    def submit_claimed(self, claim: Callable[..., bool], persona: PersonaInfo, building_id: str, playbook: Playbook,
                       *, args: dict[str, Any] | None = None) -> PulseHandle | None:
        """A schedule's run: submitted only if `claim(within=…)` wins it (ScheduleStore.mark_fired), else None.
        In process: claim, then submit; the queue defers the job inside the claim's transaction."""
        if not claim():
            return None
        return self.submit_schedule(persona, building_id, playbook, args=args)


class PulseController(PulseKinds):
    """Submits, queues, runs and cancels pulses."""

    def __init__(self, services: PulseServices, *, max_queue: int = MAX_QUEUE, workers: int | None = None) -> None:
        self.services = services
        self.max_queue = max_queue
        self.workers = workers or DEFAULT_WORKERS
        self._pool = PulsePool(self._work, workers=self.workers)
        self._guard = threading.Lock()
        self._running: dict[str, PulseHandle] = {}
        self._queued: dict[str, PulseHandle] = {}
        self.records: deque[PulseRecord] = deque(maxlen=RECORDS_KEPT)
        self._closed = False
        self._said: dict[str, tuple[str, BuildingInfo | None, OpenPulse]] = {}
        """Pulse ids `say` minted → the user's message it stored under each, until their submit."""
        self.runner = RUNNER_LOCAL
        """Who accounts for this process's pulses if it is killed (saiverse/pulse/_open.py); a worker's
        controller runs queued jobs, whose retry does (`RUNNER_QUEUE`)."""

    # ---- submitting --------------------------------------------------------------------------
    def submit(
        self, kind: PulseKind, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
        args: dict[str, Any] | None = None, user_input: str | None = None,
        pulse_id: str | None = None, user_stored: bool = False,
    ) -> PulseHandle:
        """Queue a pulse. `user_input` given → run as a meta turn (`run_meta_user`). A worker taking a
        pulse from the queue (saiverse/pulse/_queue.py) gives its `pulse_id`, and `user_stored` when the
        user's message was stored by an earlier attempt."""
        if self._closed:
            raise RuntimeError("the pulse controller is shut down")
        record = PulseRecord(pulse_id or uuid.uuid4().hex, persona.persona_id, kind, playbook.name, building_id)
        handle = PulseHandle(record, YieldingToken(self._pool) if kind == "auto" else CancellationToken())
        with self._guard:
            said, building, opened = self._said.pop(pulse_id, (None, None, None)) if pulse_id else (None,) * 3
        # What the pulse's first prompt would read back as its own stored messages, when this process
        # alone can have written them: a pulse id minted here has nothing yet; one `say` minted holds
        # the user's message it stored. A pulse id from elsewhere (a queued job) is read as before.
        own: list[tuple[str, str, list[str]]] | None = None
        if pulse_id is None:
            own = []
        elif said is not None and user_stored and "\x00" not in said:
            own = [("user", said, ["conversation", f"pulse:{pulse_id}"])]
        with self._guard:
            waiting = self._pool.waiting(persona.persona_id)
            if waiting < self.max_queue:
                self._queued[record.pulse_id] = handle
                self.records.append(record)
                self._pool.put(persona.persona_id, PRIORITY[kind], _Job(
                    handle, persona, playbook, dict(args or {}), user_input, user_stored, own,
                    building if building is not None and building.building_id == building_id else None, opened))
                return handle
        close(self.services.db, opened)  # refused: its user's message stays, answered by nobody
        raise QueueFullError(
            f"{persona.name} には実行待ちのパルスが {waiting} 件あり、これ以上受け付けられません。"
            "少し待ってからもう一度送ってください。"
        )

    def say(self, world: World, building_id: str, said: str, targets: list[PersonaInfo], *,
            building: BuildingInfo | None = None) -> tuple[int, dict[str, str]]:
        """The user's line and, for every persona that will answer, the user's message in its memory, in
        one transaction: kept even if a pulse then fails, and one commit instead of one per write.
        `building` (as the caller just read it) is handed to those pulses: their system prompt is made
        from it instead of reading the building again."""
        # A persona whose queue is full gets no pulse id: its submit is refused as before, nothing stored.
        pulse_ids = {p.persona_id: uuid.uuid4().hex for p in targets
                     if self._pool.waiting(p.persona_id) < self.max_queue}
        # Each pulse is open from its user's message on: a kill before it ends is accounted for (_open.py).
        opened = {pulse_id: OpenPulse(pulse_id, persona_id, building_id, "user", self.runner)
                  for persona_id, pulse_id in pulse_ids.items()}
        with self.services.db.engine.begin() as s:  # Core, as the journal's commit
            hid = world.add_history(building_id, speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                    content=said, session=s)
            for persona_id, pulse_id in pulse_ids.items():
                self.services.memory.add(persona_id, "user", said, tags=["conversation"], pulse_id=pulse_id, session=s)
            open_in(s, list(opened.values()))
        with self._guard:
            while len(self._said) >= SAID_KEPT:  # ids never submitted (a caller gave up): the oldest go
                self._said.pop(next(iter(self._said)))
            self._said.update({p: (said, building, o) for p, o in opened.items()})  # `submit` checks its id
        return hid, pulse_ids

    # ---- control -----------------------------------------------------------------------------
    def cancel_all(self, building_id: str | None = None) -> int:
        """Cancel running and queued pulses (of one building, if given); returns how many."""
        with self._guard:
            handles = list(self._running.values()) + list(self._queued.values())
        chosen = [h for h in handles if building_id is None or h.record.building_id == building_id]
        for h in chosen:
            h.cancel()
        return len(chosen)

    def stop_persona(self, persona_id: str, *, timeout: float = 30.0) -> bool:
        """Cancel a persona's running and queued pulses and wait for them to end; False if one did not."""
        with self._guard:
            handles = [h for h in (*self._running.values(), *self._queued.values())
                       if h.record.persona_id == persona_id]
        for h in handles:
            h.cancel(keep_said=False)
        deadline = time.monotonic() + timeout
        return all(h.done.wait(max(0.0, deadline - time.monotonic())) for h in handles)

    def busy(self) -> bool:
        with self._guard:
            return bool(self._running or self._queued)

    def users_first(self) -> bool:
        """Whether autonomous pulses here give way now (a user's pulse runs, or a hold stands)."""
        return self._pool.users_busy()

    def hold_autonomous(self, key: str, on: bool, *, ttl: float = HOLD_LIMIT) -> None:
        """A user's pulse runs (or ended) in another process (saiverse/pulse/_usergate.py), or a user's
        message is being stored here before its pulse is queued: autonomous pulses here give way to it
        too, for `ttl` seconds at most."""
        self._pool.hold(key, on, ttl=ttl)

    def shutdown(self) -> None:
        """Cancel everything; waiting pulses end as cancelled on the workers, which then stop."""
        self._closed = True
        self.cancel_all()
        self._pool.shutdown()

    def record(self, pulse_id: str) -> PulseRecord | None:
        return next((r for r in self.records if r.pulse_id == pulse_id), None)

    # ---- running -----------------------------------------------------------------------------
    def _work(self, job: _Job) -> None:
        """One pulse on a pool worker; whatever happens, its handle ends (events closed, `done` set)."""
        handle = job.handle
        with self._guard:
            self._queued.pop(handle.pulse_id, None)
            self._running[handle.pulse_id] = handle
        try:
            self._execute(job, handle._put)
        except Exception as exc:  # noqa: BLE001 - even an event that cannot be built ends the pulse visibly
            log.exception("pulse %s failed outside its run", handle.pulse_id)
            handle.record.status = "error"
            handle._put(event("error", kind=type(exc).__name__, message=str(exc) or repr(exc),
                              pulse_id=handle.pulse_id, persona_id=handle.record.persona_id))
        finally:
            with self._guard:
                self._running.pop(handle.pulse_id, None)
            handle.record.ended_at = time.monotonic()
            handle._put(None)
            handle.done.set()

    def _execute(self, job: _Job, emit: Callable[[Event], None]) -> None:
        handle, persona, rec = job.handle, job.persona, job.handle.record
        base = {"pulse_id": rec.pulse_id, "persona_id": persona.persona_id, "persona_name": persona.name}
        rec.status = "running"
        rec.started_at = time.monotonic()
        emit(event("pulse_start", building_id=rec.building_id, playbook=job.playbook.name,
                   avatar=persona.avatar, kind=rec.kind, **base))
        if handle.token.cancelled:
            rec.status = "cancelled"
            close(self.services.db, job.opened)
            emit(event("error", kind="cancelled", message="パルスは開始前に中止されました。", **base))
            emit(event("pulse_end", status="cancelled", model=self._model_name(rec, persona_context(persona)),
                       **base))
            return
        journal = PulseJournal(rec.pulse_id, self.services, persona_id=persona.persona_id)
        ctx = persona_context(persona)
        why = ""
        try:
            own = job.stored_own
            # `user` only for a user's message: a recovered one says in the building that its reply stopped.
            kind = rec.kind if job.user_input is not None or rec.kind != "user" else "playbook"
            journal.opened = job.opened or OpenPulse(rec.pulse_id, persona.persona_id, rec.building_id, kind,
                                                     self.runner)
            if job.user_input and rec.kind == "user" and not job.user_stored:
                # What the user said is kept even if the pulse then fails; the pulse is open from then on.
                with self.services.db.engine.begin() as s:
                    self.services.memory.add(persona.persona_id, "user", job.user_input,
                                             tags=["conversation"], pulse_id=rec.pulse_id, session=s)
                    open_in(s, [journal.opened])
                own = None if own is None or "\x00" in job.user_input else \
                    [*own, ("user", job.user_input, ["conversation", f"pulse:{rec.pulse_id}"])]
            if own is not None:
                journal.stored = (persona.persona_id, own)
            if job.building is not None:
                journal.known_building = job.building
            common = {"ports": journal, "pulse_id": rec.pulse_id, "cancel": handle.token, "emit": emit,
                      "pulse_type": rec.kind, "usage": rec.usage, "trace": rec.trace, "answered": rec.answered,
                      "spent": rec.spent}
            if job.user_input is not None:
                run_meta_user(ctx, job.user_input, rec.building_id, meta_playbook=job.playbook,
                              args=job.args, **common)
            else:
                run_playbook(job.playbook, persona=ctx, building_id=rec.building_id, args=job.args, **common)
            journal.commit()
            rec.status = "ok"
        except PulseCancelled:
            rec.status, why = "cancelled", "中止されました"
        except (PlaybookError, LLMError) as exc:
            rec.status, why = "error", stop_reason(exc)  # run_playbook already emitted the error event
        except Exception as exc:  # noqa: BLE001 - any failure ends the pulse visibly, not the app
            rec.status, why = "error", stop_reason(exc)
            emit(event("error", kind=type(exc).__name__, message=str(exc) or repr(exc), **base))
        if rec.status != "ok":
            # A user's message whose reply failed: the building says so where and when it happened (a
            # cancel is the user's own doing and says nothing).
            line = stopped_line(persona.name, why) if rec.status == "error" and job.user_input is not None \
                and rec.kind == "user" else None
            self._keep_effects(journal, why, emit, base, line)
        self._record_spent(rec)
        emit(event("pulse_end", status=rec.status, usage=dict(rec.usage), model=self._model_name(rec, ctx), **base))

    @staticmethod
    def _keep_effects(journal: PulseJournal, why: str, emit: Callable[[Event], None], base: dict[str, Any],
                      line: str | None = None) -> None:
        """A stopped pulse: what its tools changed stays, remembered (saiverse/pulse/_journal.py, the rule);
        `line`, the building's line saying the reply stopped and why."""
        try:
            kept = journal.commit_stopped(why, line)
        except Exception as exc:  # noqa: BLE001 - the database refused even this; say so
            emit(event("error", kind=type(exc).__name__, **base,
                       message=f"途中までの記録を保存できませんでした: {exc}"))
            return
        if kept:
            emit(event("notice", kind="pulse_effects_kept", **base,
                       text=f"パルスは途中で止まりましたが、それまでの変更 {kept} 件は残り、記憶にも書きました。"))

    def _record_spent(self, rec: PulseRecord) -> None:
        """What the pulse's model calls cost, added to its persona's day (never ends the pulse in error)."""
        if not rec.spent:
            return
        try:
            self.services.record_usage(rec.persona_id, list(rec.spent))
        except Exception:  # noqa: BLE001 - an uncounted pulse is logged, the reply stands
            log.exception("pulse %s: its token usage could not be recorded", rec.pulse_id)

    def _model_name(self, rec: PulseRecord, persona: Any) -> str | None:
        """The model that answered last, else the persona's normal model (a pulse with no model call)."""
        if rec.answered:
            return rec.answered[-1]
        try:
            return self.services.resolve_model(persona, "normal")[0].name
        except Exception:  # noqa: BLE001 - naming the model must never turn a finished pulse into an error
            return None
