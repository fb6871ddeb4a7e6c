"""City-wide claims (saiverse/claims.py): one process of all that serve a city does a piece of work.

Another process holds each claim here — a real child process, killed with SIGKILL to show a dead
holder never leaves the work stuck — on a SQLite home and on a real PostgreSQL city.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from saiverse.care import ServerLock
from saiverse.care._serverlock import HomeInUseError
from saiverse.claims import claim, claimed
from saiverse.manager import SAIVerseManager
from saiverse.pulse._production import RunBusyError
from tests.support.production_runs import interrupted_run

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def held_elsewhere(home: Path, url: str, key: str) -> Iterator[subprocess.Popen[str]]:
    """A child process holding the claim `key` until it is killed (it is SIGKILLed on exit)."""
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from saiverse.claims import claim
        with claim(Path({str(home)!r}), {url!r}, {key!r}) as mine:
            print("held" if mine else "refused", flush=True)
            time.sleep(600)
    """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        yield child
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()


def kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def sqlite_url(home: Path) -> str:
    return f"sqlite:///{home / 'saiverse.db'}"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_one_holder_at_a_time_and_a_killed_holder_frees_the_claim(tmp_path: Path, backend: str,
                                                                  request: pytest.FixtureRequest) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    url = request.getfixturevalue("pg_url") if backend == "postgres" else sqlite_url(home)
    with held_elsewhere(home, url, "production:r1") as child:
        with claim(home, url, "production:r1") as mine:
            assert mine is False
        with claim(home, url, "production:r2") as other:  # another key is free
            assert other is True
        kill(child)
        with claim(home, url, "production:r1") as mine:
            assert mine is True
            with claim(home, url, "production:r1") as again:  # this process holds it: no second run here
                assert again is False
    with claim(home, url, "production:r1") as mine:  # released on leaving
        assert mine is True


def test_a_claimed_chore_runs_in_one_caller_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    started, release, runs = threading.Event(), threading.Event(), []

    def chore() -> str:
        runs.append(1)
        started.set()
        release.wait(10)
        return "done"

    first = threading.Thread(target=claimed(home, sqlite_url(home), "backup:daily", chore))
    first.start()
    assert started.wait(10)
    assert claimed(home, sqlite_url(home), "backup:daily", chore)() is None  # skipped, not waited for
    release.set()
    first.join(10)
    assert runs == [1]
    assert claimed(home, sqlite_url(home), "backup:daily", lambda: "again")() == "again"


def test_a_run_another_process_is_running_is_never_resumed_twice(manager: SAIVerseManager,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    manager.world.move_persona("sora", "atelier")
    run = interrupted_run(manager, monkeypatch)
    home, url = manager.settings.home, manager.settings.database_url
    with held_elsewhere(home, url, f"production:{run['run_id']}") as child:
        # Another process (a CLI `production resume`, another app of the city) is running it:
        assert manager.production.resume_interrupted(lambda ev: None) == []
        assert manager.production.runs()[0]["status"] == "interrupted"  # its row untouched
        with pytest.raises(RunBusyError, match="別のプロセスで進行中"):
            manager.production.resume(run["run_id"], lambda ev: None)
        kill(child)  # that process dies: the run is free to be resumed here
    (summary,) = manager.production.resume_interrupted(lambda ev: None)
    assert summary.finished and manager.production.runs()[0]["status"] == "done"


def test_a_postgresql_city_may_be_served_by_several_apps(tmp_path: Path, pg_url: str) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    first = ServerLock(home, host="127.0.0.1", port=7001, database_url=pg_url)
    second = ServerLock(home, host="127.0.0.1", port=7002, database_url=pg_url)
    first.release()
    second.release()
    # A SQLite home keeps one server: a second is refused, naming the first.
    alone = ServerLock(home, host="127.0.0.1", port=7001, database_url=sqlite_url(home))
    try:
        with pytest.raises(HomeInUseError, match="7001"):
            ServerLock(home, host="127.0.0.1", port=7002, database_url=sqlite_url(home))
    finally:
        alone.release()
