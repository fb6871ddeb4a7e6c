"""Pulls the UI started, running in background threads: they go on when the page is closed or reloaded,
and any page shows how far each is (bytes, speed, time left). One job per file name at a time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from saiverse.errors import UserError
from saiverse.llm.local._pull import PulledModel, PullInterrupted, PullProgress, pull
from saiverse.settings import SettingsStore


@dataclass
class PullJob:
    """One pull and how far it is."""

    name: str
    progress: PullProgress | None = None
    result: PulledModel | None = None
    error: str | None = None
    error_key: str = ""
    """PullRefused.key of the error, when it has one (the page words it in its language)."""
    error_fields: dict[str, str] = field(default_factory=dict)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        """Whether it is still working."""
        return self.thread is not None and self.thread.is_alive()


class PullJobs:
    """The pulls of one app (`manager.pulls`)."""

    def __init__(self, store: SettingsStore) -> None:
        self._store = store
        self._jobs: dict[str, PullJob] = {}
        self._lock = threading.Lock()

    def start(self, name: str, *, set_default: bool = False) -> PullJob:
        """Start pulling `name` (a catalogue name or owner/repo/file.gguf) unless it is being pulled already."""
        name = name.strip()
        with self._lock:
            job = self._jobs.get(name)
            if job is not None and job.running:
                return job
            job = self._jobs[name] = PullJob(name)

        def run() -> None:
            try:
                job.result = pull(self._store.current, name, set_default=set_default, store=self._store,
                                  progress=lambda p: setattr(job, "progress", p))
            except (UserError, PullInterrupted) as exc:
                job.error = str(exc)
                job.error_key, job.error_fields = getattr(exc, "key", ""), dict(getattr(exc, "fields", {}))
            except Exception as exc:  # noqa: BLE001 - shown on the page; a download must not kill the app
                job.error = f"{type(exc).__name__}: {exc}"

        job.thread = threading.Thread(target=run, name=f"pull-{name}", daemon=True)
        job.thread.start()
        return job

    def get(self, name: str) -> PullJob | None:
        """The latest job for `name`."""
        with self._lock:
            return self._jobs.get(name.strip())

    def all(self) -> list[PullJob]:
        """Every job of this run, oldest first."""
        with self._lock:
            return list(self._jobs.values())

    def wait(self, name: str, timeout: float | None = None) -> PullJob | None:
        """Wait for the job of `name` to end (tests, the CLI)."""
        job = self.get(name)
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
        return job


def describe(job: PullJob, lang: str = "ja") -> dict[str, Any]:
    """A job as plain data for the page: state, bytes, speed and time left."""
    p = job.progress
    state = "error" if job.error else ("done" if job.result else (p.phase if p else "starting"))
    return {"name": job.name, "state": state, "done": p.done if p else 0, "total": p.total if p else 0,
            "bytes_per_s": p.bytes_per_s if p else 0.0, "eta_s": p.eta_s if p else None, "error": job.error,
            "error_key": job.error_key, "error_fields": job.error_fields,
            "local_name": job.result.name if job.result else None}
