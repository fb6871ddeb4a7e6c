"""portable.py's promises, which database/locking.py, saiverse/locks.py and the server lock build on.

Run here on Linux (flock); the same tests are what a Windows run (LockFileEx) must pass. Two
descriptors of one file stand for two processes: both systems lock per open descriptor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import portable
from database.locking import locked, locked_within, tried_lock
from saiverse.locks import HomeLock


@pytest.fixture
def lock_file(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "x.lock"


def _fd(path: Path) -> int:
    return portable.open_lock(path, create=True)


def test_shared_locks_share_and_exclude_an_exclusive_one(lock_file: Path) -> None:
    a, b, c = _fd(lock_file), _fd(lock_file), _fd(lock_file)
    try:
        assert portable.lock(a, shared=True) and portable.lock(b, shared=True, wait=False)
        assert not portable.lock(c, wait=False)
        portable.unlock(a)
        portable.unlock(b)
        assert portable.lock(c, wait=False)
        assert not portable.lock(a, shared=True, wait=False)
    finally:
        for fd in (a, b, c):
            os.close(fd)


def test_closing_the_descriptor_gives_the_lock_up(lock_file: Path) -> None:
    a, b = _fd(lock_file), _fd(lock_file)
    try:
        assert portable.lock(a, wait=False)
        assert not portable.lock(b, wait=False)
        portable.unlock(a)
        os.close(a)
        assert portable.lock(b, wait=False)
    finally:
        os.close(b)


def test_a_refused_upgrade_leaves_nothing_held(lock_file: Path) -> None:
    """flock's own rule, kept on Windows: changing a lock's kind gives the old one up first."""
    a, b, c = _fd(lock_file), _fd(lock_file), _fd(lock_file)
    try:
        portable.lock(a, shared=True)
        portable.lock(b, shared=True)
        assert not portable.lock(a, wait=False)
        os.close(b)
        b = -1
        assert portable.lock(c, wait=False), "a's shared lock went with the refused upgrade"
    finally:
        for fd in (a, b, c):
            if fd >= 0:
                os.close(fd)


def test_tried_lock_then_shared_holds_the_shared_lock_again(lock_file: Path) -> None:
    a, b, c = _fd(lock_file), _fd(lock_file), _fd(lock_file)
    try:
        portable.lock(a, shared=True)
        portable.lock(b, shared=True)
        with tried_lock(a, then_shared=True) as alone:
            assert not alone
        os.close(b)
        b = -1
        assert not portable.lock(c, wait=False), "a must hold its shared lock after a refused try"
        with tried_lock(a, then_shared=True) as alone:
            assert alone
        assert not portable.lock(c, wait=False)
        assert portable.lock(c, shared=True, wait=False)
    finally:
        for fd in (a, b, c):
            if fd >= 0:
                os.close(fd)


def test_home_lock_stays_shared_after_another_process_refused_alone(tmp_path: Path) -> None:
    """The manager opens the home, finds another process there (not alone), and keeps the home open:
    a third process must still see it as not alone (start-up repair would mistake its temp files)."""
    first, second = HomeLock(tmp_path), HomeLock(tmp_path)
    with first.alone() as alone:
        assert not alone
    second.close()
    third = HomeLock(tmp_path)
    try:
        with third.alone() as alone:
            assert not alone
        first.close()
        with third.alone() as alone:
            assert alone
    finally:
        third.close()
        first.close()


def test_locked_waits_for_the_holder(lock_file: Path) -> None:
    order: list[str] = []
    fd = _fd(lock_file)
    portable.lock(fd)

    def other() -> None:
        with locked(lock_file, create=True):
            order.append("other")

    thread = threading.Thread(target=other)
    thread.start()
    time.sleep(0.2)
    order.append("holder")
    portable.unlock(fd)
    os.close(fd)
    thread.join(5)
    assert order == ["holder", "other"]


def test_a_folder_is_locked_without_leaving_a_file_in_it(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    with locked(folder):
        with locked_within(folder, 0.1) as taken:
            assert not taken
    with locked_within(folder, 0.1) as taken:
        assert taken
    assert list(folder.iterdir()) == []


def test_pid_alive() -> None:
    assert portable.pid_alive(os.getpid())
    assert not portable.pid_alive(0) and not portable.pid_alive(-1)
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    assert not portable.pid_alive(int(done.stdout))


def test_fsync_path_takes_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x")
    portable.fsync_path(tmp_path / "f")
    portable.fsync_path(tmp_path)


def test_peak_rss_is_read() -> None:
    peak = portable.peak_rss_mib()
    assert peak is not None and 5 < peak < 100_000
