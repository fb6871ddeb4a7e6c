"""Pulses taken by pulse workers: enqueue in PostgreSQL, follow the events back (docs/ARCHITECTURE.md, "Pulse workers").

With `SAIVERSE_DATABASE_URL=postgresql+psycopg://…` and `SAIVERSE_PULSE_WORKERS_REMOTE=1`, an app or
CLI process does not run pulses itself: `QueuedPulses` defers each one as a `procrastinate` job
(saiverse/pulse/_queue.py runs them in `python main.py worker` processes) and hands back the same
`PulseHandle` the in-process controller does, fed by LISTEN/NOTIFY: the worker publishes every event of
the pulse on the pulse's own channel as JSON, and a payload too large for NOTIFY is stored in
`saiverse_pulse_events` and referenced by id. The channel is listened to before the job is deferred,
so no event is missed; a job that ends without its `pulse_end` (it failed outside the pulse, or was
cancelled before it started) is noticed from the job's status and ended visibly, never silently.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from database.engine import is_postgres, libpq_url
from saiverse.errors import UsageError
from saiverse.pulse._controller import RECORDS_KEPT, PulseHandle, PulseKinds, PulseRecord
from saiverse.pulse._usergate import announce
from saiverse.world import PersonaInfo
from sea.events import event
from sea.playbook import Playbook
from sea.ports import CancellationToken

if TYPE_CHECKING:
    import psycopg

    from saiverse.settings import Settings

REMOTE_ENV = "SAIVERSE_PULSE_WORKERS_REMOTE"
"""`Settings.pulse_workers_remote`'s variable (saiverse/settings.py reads it), named in the refusal."""
RUN_PULSE = "saiverse.run_pulse"
QUEUE_PRIORITY: dict[str, int] = {"user": 20, "schedule": 10, "auto": 0}
"""procrastinate runs a higher number first: a user's pulse, then a schedule, then an autonomous turn."""
USER_QUEUE = "saiverse.user"
"""The queue of users' pulses: every worker also runs a lane that takes only these (saiverse/pulse/_queue.py),
so a user's pulse never waits for a worker's slots to free from autonomous turns."""
EVENTS_TABLE = "saiverse_pulse_events"
NOTIFY_LIMIT = 7000
"""Bytes of a NOTIFY payload (PostgreSQL's limit is 8000); a larger event goes through EVENTS_TABLE."""
LISTENERS = 16
"""Users' pulses one app process follows at once on kept connections (more wait for one to free)."""
QUIET_CHECK = 5.0
"""Seconds without an event after which the follower looks at the job's status."""
ENDED = ("succeeded", "failed", "cancelled", "aborted")
log = logging.getLogger(__name__)


def channel(pulse_id: str) -> str:
    return f"saiverse_pulse_{pulse_id}"


def persona_lock(persona_id: str) -> str:
    """procrastinate's `lock`: a persona runs one pulse at a time across every worker."""
    return f"saiverse.persona:{persona_id}"


def remote_enabled(settings: Settings) -> bool:
    """Whether this process hands its pulses to workers (`Settings.pulse_workers_remote`, PostgreSQL only)."""
    if not settings.pulse_workers_remote:
        return False
    if not is_postgres(settings.database_url):
        raise UsageError(f"{REMOTE_ENV}=1 needs a city in PostgreSQL (SAIVERSE_DATABASE_URL=postgresql+psycopg://…)")
    return True


def remote_pulses(settings: Settings, local: Any) -> Any:
    """The manager's pulses: `local` (the in-process controller), or a queue to the workers."""
    if not remote_enabled(settings):
        return local
    return QueuedPulses(settings.database_url, local)


def ensure_schema(url: str) -> None:
    """procrastinate's tables and the large-event table, made once (an advisory lock orders openers)."""
    import psycopg  # loaded by a city in PostgreSQL only: an SQLite home's start never pays for it
    from procrastinate.schema import SchemaManager

    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext('saiverse.pulse_queue.schema'))")
        try:
            if conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()[0] is None:  # type: ignore[index]
                conn.execute(SchemaManager.get_schema())
            conn.execute(f"CREATE TABLE IF NOT EXISTS {EVENTS_TABLE} (id BIGSERIAL PRIMARY KEY, "
                         "pulse_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TIMESTAMPTZ DEFAULT now())")
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext('saiverse.pulse_queue.schema'))")


def queue_app(url: str) -> Any:
    """A procrastinate App for enqueuing from synchronous code (the workers build theirs, saiverse/pulse/_queue.py)."""
    from procrastinate import App, SyncPsycopgConnector

    return App(connector=SyncPsycopgConnector(conninfo=libpq_url(url), min_size=1, max_size=4))


def connection_pool(url: str, size: int) -> Any:
    """Autocommit connections kept open for LISTEN and NOTIFY: a connection made per pulse costs the
    database a new backend each time (several ms of its CPU, on the cores the pulses share)."""
    from psycopg_pool import ConnectionPool

    return ConnectionPool(libpq_url(url), min_size=1, max_size=size, kwargs={"autocommit": True}, open=True,
                          name="saiverse-notify")


class QueuedPulses(PulseKinds):
    """The pulse controller's interface, with the pulses run by workers (`listen=False`: fire and forget)."""

    def __init__(self, url: str, local: Any = None, *, listen: bool = True) -> None:
        ensure_schema(url)
        self.url = url
        self.local = local
        """The in-process controller this replaces (shut down with it)."""
        self.listen = listen
        self.app = queue_app(url)
        self.app.open()
        self._app_users = 0
        """Calls into `app` under way: `shutdown` closes it only when none is, and none starts after."""
        self._app_free = threading.Condition()
        self._guard = threading.Lock()
        self._live: dict[str, PulseHandle] = {}
        self._jobs: dict[str, int] = {}
        """The job of each followed pulse (`shutdown` cancels those still live)."""
        self.records: deque[PulseRecord] = deque(maxlen=RECORDS_KEPT)
        self._closed = False
        self._listeners: Any = None
        """Connections that follow users' pulses (LISTEN), kept open between pulses; made on first use."""

    def _enter_app(self) -> bool:
        """Whether `app` may be used now (then `_leave_app` must follow): never once shutdown began, so no
        thread calls into a closed App (procrastinate's AppNotOpen, issue 34)."""
        with self._app_free:
            if self._closed:
                return False
            self._app_users += 1
            return True

    def _leave_app(self) -> None:
        with self._app_free:
            self._app_users -= 1
            self._app_free.notify_all()

    def _cancel_job(self, job_id: int) -> None:
        """Ask the workers to stop a job (abort if it runs); after shutdown began, `shutdown` asked already."""
        if not self._enter_app():
            return
        try:
            self.app.job_manager.cancel_job_by_id(job_id, abort=True)
        finally:
            self._leave_app()

    def _listening(self, pulse_id: str) -> psycopg.Connection:
        """A kept connection listening on the pulse's channel (a dead kept one is replaced once)."""
        import psycopg

        with self._guard:
            if self._listeners is None:
                self._listeners = connection_pool(self.url, LISTENERS)
        conn = self._listeners.getconn()
        try:
            return self._listen(conn, pulse_id)
        except psycopg.OperationalError:
            self._listeners.putconn(conn)  # closed while kept: the pool drops it, and a fresh one is tried
        conn = self._listeners.getconn()
        try:
            return self._listen(conn, pulse_id)
        except BaseException:
            self._listeners.putconn(conn)
            raise

    @staticmethod
    def _listen(conn: psycopg.Connection, pulse_id: str) -> psycopg.Connection:
        from psycopg import sql

        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel(pulse_id))))
        return conn

    def _release(self, conn: psycopg.Connection, pulse_id: str) -> None:
        """A follower's connection back to the pool, listening to nothing (UNLISTEN; a broken one is dropped).
        The pulse's hold ends too: its worker says so as well, unless it never started it."""
        try:
            if not conn.closed:
                announce(conn, pulse_id, "end")
                conn.execute("UNLISTEN *")
        except Exception:  # noqa: BLE001 - the pool discards a connection in a bad state
            log.debug("a follower's connection could not UNLISTEN", exc_info=True)
        self._listeners.putconn(conn)

    def submit_claimed(self, claim: Callable[..., bool], persona: PersonaInfo, building_id: str, playbook: Playbook,
                       *, args: dict[str, Any] | None = None) -> PulseHandle | None:
        """A schedule's run, its job deferred inside the claim's transaction (ScheduleStore.mark_fired): a
        worker killed between the two would otherwise leave the run claimed and never deferred."""
        made: list[PulseHandle] = []

        def defer(conn: Any) -> None:  # a SQLAlchemy connection on this city's database
            made.append(self.submit("schedule", persona, building_id, playbook, args=args,
                                    user_input=str((args or {}).get("input", "")),
                                    connection=conn.connection.driver_connection))

        return made[0] if claim(within=defer) else None

    def submit(
        self, kind: str, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
        args: dict[str, Any] | None = None, user_input: str | None = None, connection: Any = None,
    ) -> PulseHandle:
        """Defer a pulse to the workers; its handle streams the events they publish. With `connection`
        (psycopg, in a transaction) the job is deferred in that transaction."""
        if not self._enter_app():
            raise RuntimeError("the pulse queue is shut down")
        try:
            return self._submit(kind, persona, building_id, playbook, args=args, user_input=user_input,
                                connection=connection)
        finally:
            self._leave_app()

    def _submit(
        self, kind: str, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
        args: dict[str, Any] | None, user_input: str | None, connection: Any,
    ) -> PulseHandle:
        record = PulseRecord(uuid.uuid4().hex, persona.persona_id, kind, playbook.name, building_id)
        handle = PulseHandle(record, CancellationToken())
        conn = None
        # Only a user's pulse is followed: schedules and autonomous turns (an app's ticker may start
        # a thousand) are not worth a connection each; their lines reach the building as written.
        if self.listen and kind == "user":
            conn = self._listening(record.pulse_id)
            # Autonomous pulses on every worker give way from now, not only once a worker starts it.
            announce(conn, record.pulse_id, "queued")
        try:
            job_id = self.app.configure_task(
                name=RUN_PULSE, lock=persona_lock(persona.persona_id), priority=QUEUE_PRIORITY[kind],
                **({"connection": connection} if connection is not None else {}),
                **({"queue": USER_QUEUE} if kind == "user" else {}),
            ).defer(pulse_id=record.pulse_id, kind=kind, persona_id=persona.persona_id, building_id=building_id,
                    playbook=playbook.name, user_input=user_input, args=dict(args or {}))
        except BaseException:
            if conn is not None:
                self._release(conn, record.pulse_id)
            raise
        self.records.append(record)
        if conn is None:
            handle._put(None)  # nobody here follows it: the worker runs it, its events stay there
            handle.done.set()
            return handle
        with self._guard:
            self._live[record.pulse_id] = handle
            self._jobs[record.pulse_id] = job_id
        threading.Thread(target=self._follow, args=(conn, handle, job_id), daemon=True,
                         name=f"pulse-follow-{record.pulse_id[:8]}").start()
        return handle

    # ---- following -----------------------------------------------------------------------------
    def _follow(self, conn: psycopg.Connection, handle: PulseHandle, job_id: int) -> None:
        rec, asked_cancel, ended = handle.record, False, False
        mine = channel(rec.pulse_id)
        last: dict[str, Any] | None = None
        """The pulse's `pulse_end`, handed on once the connection is back in the pool: the caller's next
        message then finds it free instead of opening another."""
        try:
            while not ended:
                got = False
                for note in conn.notifies(timeout=QUIET_CHECK if not handle.token.cancelled else 1.0):
                    if note.channel != mine:
                        continue  # left over from the kept connection's previous pulse
                    got = True
                    ev = self._decode(conn, note.payload)
                    self._seen(rec, ev)
                    if ev.get("type") == "pulse_end":
                        last, ended = ev, True
                        break
                    handle._put(ev)  # type: ignore[arg-type]
                    if handle.token.cancelled:
                        break
                if ended:
                    break
                if self._closed:  # the app is closing and asked the workers to stop the job: not waited for
                    rec.status = "cancelled"
                    last = event("pulse_end", status="cancelled", pulse_id=rec.pulse_id, persona_id=rec.persona_id)
                    break
                if handle.token.cancelled and not asked_cancel:
                    asked_cancel = True
                    self._cancel_job(job_id)
                if not got or asked_cancel:
                    status = self._job_status(conn, job_id)
                    if status in ENDED:
                        ended = self._end_without_events(conn, handle, status)
        except Exception as exc:  # noqa: BLE001 - the database went away: say so instead of hanging
            if self._closed:  # `shutdown` closed the connection under it, having cancelled the job
                rec.status = "cancelled"
                last = event("pulse_end", status="cancelled", pulse_id=rec.pulse_id, persona_id=rec.persona_id)
                return
            log.exception("following pulse %s failed", rec.pulse_id)
            rec.status = "error"
            handle._put(event("error", kind=type(exc).__name__, message=f"パルスの経過を受け取れませんでした: {exc}",
                              pulse_id=rec.pulse_id, persona_id=rec.persona_id))
            last = event("pulse_end", status="error", pulse_id=rec.pulse_id, persona_id=rec.persona_id)
        finally:
            self._release(conn, rec.pulse_id)
            with self._guard:
                self._live.pop(rec.pulse_id, None)
                self._jobs.pop(rec.pulse_id, None)
            if last is not None:
                handle._put(last)  # type: ignore[arg-type]
            handle._put(None)
            handle.done.set()

    def _end_without_events(self, conn: psycopg.Connection, handle: PulseHandle, status: str) -> bool:
        """The job ended; events it published just before are read first, then the pulse is ended here."""
        for note in conn.notifies(timeout=0.5):
            if note.channel != channel(handle.record.pulse_id):
                continue
            ev = self._decode(conn, note.payload)
            self._seen(handle.record, ev)
            handle._put(ev)  # type: ignore[arg-type]
            if ev.get("type") == "pulse_end":
                return True
        rec = handle.record
        rec.status = "cancelled" if status in ("cancelled", "aborted") else "error"
        base = {"pulse_id": rec.pulse_id, "persona_id": rec.persona_id}
        message = ("パルスは開始前に中止されました。" if rec.status == "cancelled"
                   else f"ワーカーがパルスを終えられませんでした (job {status})。")
        handle._put(event("error", kind=rec.status, message=message, **base))
        handle._put(event("pulse_end", status=rec.status, **base))
        return True

    @staticmethod
    def _seen(rec: PulseRecord, ev: dict[str, Any]) -> None:
        if ev.get("type") == "pulse_start":
            rec.status = "running"
        elif ev.get("type") == "pulse_end":
            rec.status = str(ev.get("status") or "ok")
            rec.usage = dict(ev.get("usage") or rec.usage)

    @staticmethod
    def _decode(conn: psycopg.Connection, payload: str) -> dict[str, Any]:
        ev = json.loads(payload)
        if set(ev) == {"ref"}:
            row = conn.execute(f"SELECT payload FROM {EVENTS_TABLE} WHERE id = %s", (int(ev["ref"]),)).fetchone()
            ev = json.loads(row[0]) if row else {"type": "notice", "kind": "event_lost", "text": "(event expired)"}
        return dict(ev)

    @staticmethod
    def _job_status(conn: psycopg.Connection, job_id: int) -> str | None:
        row = conn.execute("SELECT status FROM procrastinate_jobs WHERE id = %s", (job_id,)).fetchone()
        return str(row[0]) if row else "failed"

    # ---- control (the controller's interface) --------------------------------------------------
    def cancel_all(self, building_id: str | None = None) -> int:
        with self._guard:
            chosen = [h for h in self._live.values() if building_id is None or h.record.building_id == building_id]
        for h in chosen:
            h.cancel()
        return len(chosen)

    def stop_persona(self, persona_id: str, *, timeout: float = 30.0) -> bool:
        with self._guard:
            handles = [h for h in self._live.values() if h.record.persona_id == persona_id]
        for h in handles:
            h.cancel()
        return all(h.done.wait(timeout) for h in handles)

    def busy(self) -> bool:
        with self._guard:
            return bool(self._live)

    def hold_autonomous(self, key: str, on: bool, *, ttl: float = 0.0) -> None:
        """Nothing autonomous runs in this process: the workers give way to a user's pulse from the
        `queued` announcement `submit` makes (saiverse/pulse/_usergate.py)."""

    def record(self, pulse_id: str) -> PulseRecord | None:
        return next((r for r in self.records if r.pulse_id == pulse_id), None)

    def shutdown(self) -> None:
        """Cancel what is followed (the workers stop its jobs), then close the App once no call is in it."""
        self.cancel_all()
        with self._guard:
            jobs = list(self._jobs.values())
        for job_id in jobs:
            try:
                self._cancel_job(job_id)
            except Exception:  # noqa: BLE001 - the database went away: the followers say so
                log.warning("could not ask the workers to stop job %s", job_id, exc_info=True)
        with self._app_free:
            self._closed = True
            self._app_free.wait_for(lambda: self._app_users == 0, timeout=30.0)
        self.app.close()
        if self._listeners is not None:
            self._listeners.close(timeout=5.0)  # a follower still running closes its connection as it returns it
        if self.local is not None:
            self.local.shutdown()
