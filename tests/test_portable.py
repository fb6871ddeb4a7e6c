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


class _FakeKernel32:
    """LockFileEx/UnlockFileEx as Windows documents them, on one byte range per handle: shared locks
    share, an exclusive one excludes every other handle, a handle's own locks stack until unlocked."""

    def __init__(self) -> None:
        self.held: dict[int, list[bool]] = {}  # handle → [exclusive?] of each lock it holds
        self.offsets: set[int] = set()
        self.error = 0
        # plain functions, as ctypes' are: portable.py sets their argtypes and restype
        self.LockFileEx = lambda *args: self.lock_file_ex(*args)
        self.UnlockFileEx = lambda *args: self.unlock_file_ex(*args)

    def lock_file_ex(self, handle: int, flags: int, _reserved: int, low: int, high: int, overlapped: object) -> bool:
        region = overlapped._obj  # type: ignore[attr-defined]
        self.offsets.add(region.Offset | (region.OffsetHigh << 32))
        exclusive = bool(flags & 0x2)
        others = [kind for h, kinds in self.held.items() if h != handle for kind in kinds]
        if (exclusive and others) or any(others):
            assert flags & 0x1, "a waiting lock would block the test"
            self.error = 33  # ERROR_LOCK_VIOLATION
            return False
        self.held.setdefault(handle, []).append(exclusive)
        return True

    def unlock_file_ex(self, handle: int, _reserved: int, low: int, high: int, overlapped: object) -> bool:
        if not self.held.get(handle):
            self.error = 158  # ERROR_NOT_LOCKED
            return False
        self.held[handle].pop()
        return True


def test_the_windows_lock_keeps_the_same_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """portable._WindowsLocks' glue (flags, the byte it locks, errors), run on fakes of kernel32 and
    msvcrt: the rules the flock tests above pin must come out the same."""
    import ctypes
    import types

    kernel = _FakeKernel32()
    monkeypatch.setattr(ctypes, "WinDLL", lambda name, use_last_error: kernel, raising=False)
    monkeypatch.setattr(ctypes, "get_last_error", lambda: kernel.error, raising=False)
    monkeypatch.setattr(ctypes, "WinError", lambda code: OSError(code, "windows error"), raising=False)
    monkeypatch.setitem(sys.modules, "msvcrt", types.SimpleNamespace(get_osfhandle=lambda fd: 1000 + fd))
    locks = portable._WindowsLocks()
    a, b, c = 1, 2, 3
    assert locks.lock(a, shared=True, wait=False) and locks.lock(b, shared=True, wait=False)
    assert not locks.lock(c, shared=False, wait=False)
    assert not locks.lock(a, shared=False, wait=False)  # a refused upgrade…
    assert kernel.held[1000 + a] == []  # …leaves nothing held, as flock does
    locks.unlock(b)
    locks.unlock(b)  # unlocking what is not held is no error
    assert locks.lock(c, shared=False, wait=False)
    assert not locks.lock(a, shared=True, wait=False)
    locks.unlock(c)
    assert locks.lock(a, shared=True, wait=False) and locks.lock(a, shared=True, wait=False)
    assert kernel.held[1000 + a] == [False], "a changed or repeated lock never stacks"
    assert kernel.offsets == {portable._WindowsLocks.OFFSET}


def test_on_windows_a_folder_lock_is_a_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(portable, "IS_WINDOWS", True)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    folder = tmp_path / "db"
    folder.mkdir()
    fds = [portable.open_lock(folder), portable.open_lock(tmp_path / "db" / ".." / "db")]
    try:
        [stand_in] = (tmp_path / "temp").iterdir()
        assert stand_in.name.startswith(portable.LOCK_TEMP_PREFIX)
        assert {os.fstat(fd).st_ino for fd in fds} == {stand_in.stat().st_ino}
        assert list(folder.iterdir()) == []
        portable.fsync_path(folder)  # nothing to do for a folder there
    finally:
        for fd in fds:
            os.close(fd)
