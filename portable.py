"""What differs between operating systems, in one module (docs/ARCHITECTURE.md, "Layers": "portable.py").

SAIVerse runs where its users are: Linux, Windows and macOS. Everything else in the project is written
against the names here and never imports `fcntl`, `termios`, `resource`, `pwd` or `grp`, forks, or
reads `/proc` (tests/test_layers.py holds that rule). POSIX-only modules are imported only on POSIX,
Windows-only ones only on Windows, so this module imports everywhere.

- **File locks** (`open_lock`, `lock`, `unlock`): `fcntl.flock` on POSIX. On Windows `LockFileEx` on
  one byte far past a lock file's contents, called through `ctypes` (see `_WindowsLocks` for why
  not `msvcrt.locking` or a locking library). Both kinds behave alike: shared or exclusive, waiting
  or not, held per open descriptor (two descriptors of one file in one process exclude each other,
  as two processes do), given up when the descriptor closes or the process dies, and changing a
  held lock's kind first gives up the old one (so a refused non-blocking upgrade leaves nothing held:
  database/locking.py `tried_lock` takes the shared lock back).
- **Processes**: `pid_alive` (on Windows `os.kill(pid, 0)` would *terminate* the process);
  `run_async` (psycopg's async mode cannot run on Windows' default event loop).
- **Files**: `O_NOFOLLOW`, `O_NONBLOCK`, `O_BINARY` (0 where the system has no such flag),
  `fsync_path`, `POSIX_MODES` (whether 0600-style permission bits mean anything),
  `PSEUDO_ROOTS` (kernel file systems that are never a place for a world).
- **Benchmarks**: `peak_rss_mib`; the rest of their readings come from psutil.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Coroutine

T = TypeVar("T")

IS_WINDOWS = os.name == "nt"
"""Windows (any version the pinned Python supports); everything else here is treated as POSIX."""
POSIX_MODES = not IS_WINDOWS
"""Whether permission bits (0700, 0600) protect a file. On Windows `os.chmod` only sets or clears the
read-only flag and `st_mode` always looks world-readable; a user's profile folder is private by its ACL."""
O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
"""Refuse a symbolic link as the last part of a path (POSIX); Windows has no such flag."""
O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
"""Open a FIFO without waiting for a writer (POSIX); Windows has no FIFOs in the file system."""
O_BINARY: int = getattr(os, "O_BINARY", 0)
"""No newline translation on `os.write` (Windows opens descriptors in text mode by default)."""
PSEUDO_ROOTS: tuple[Path, ...] = () if IS_WINDOWS else (Path("/proc"), Path("/sys"), Path("/dev"))
"""File systems of the kernel (saiverse/care/_home_safety.py refuses a home under them)."""
LOCK_TEMP_PREFIX = "saiverse-folder-"
"""Windows only: a folder cannot be locked there, so a file of this name in the temp folder stands in."""


def open_lock(path: Path, *, create: bool = False) -> int:
    """A descriptor to lock `path` through: a lock file (made 0600 when `create`) or an existing
    folder or file, which is only opened, never written.

    On Windows a folder cannot be opened as a file, so its lock is taken on
    `<temp>/saiverse-folder-<hash of the folder's real path>.lock`: nothing is left in the folder,
    as on POSIX, and every process of this user on this machine meets the same file."""
    if IS_WINDOWS:
        if Path(path).is_dir():
            import tempfile

            real = os.path.normcase(str(Path(path).resolve()))
            digest = hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:32]
            path, create = Path(tempfile.gettempdir()) / f"{LOCK_TEMP_PREFIX}{digest}.lock", True
        if create:
            return os.open(path, os.O_RDWR | os.O_CREAT | O_BINARY, 0o600)
        return os.open(path, os.O_RDONLY | O_BINARY)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if create else os.open(path, os.O_RDONLY)


def lock(fd: int, *, shared: bool = False, wait: bool = True) -> bool:
    """Lock the open descriptor `fd` (shared or exclusive); without `wait`, False when another holds it.

    A lock `fd` already holds of the other kind is given up first (flock's own rule on Linux): after
    a refused non-blocking change nothing is held."""
    return _LOCKS.lock(fd, shared=shared, wait=wait)


def unlock(fd: int) -> None:
    """Give up the lock `fd` holds (nothing happens if it holds none)."""
    _LOCKS.unlock(fd)


class _PosixLocks:
    """`flock`: whole-file, advisory, per open file description; the kernel drops it with the process."""

    def __init__(self) -> None:
        import fcntl

        self._fcntl = fcntl

    def lock(self, fd: int, *, shared: bool, wait: bool) -> bool:
        f = self._fcntl
        try:
            f.flock(fd, (f.LOCK_SH if shared else f.LOCK_EX) | (0 if wait else f.LOCK_NB))
        except BlockingIOError:
            return False
        return True

    def unlock(self, fd: int) -> None:
        self._fcntl.flock(fd, self._fcntl.LOCK_UN)


class _WindowsLocks:
    """`LockFileEx` on one byte at `OFFSET`, through ctypes.

    Why not `msvcrt.locking`: it has no shared lock, and its "blocking" lock gives up after ten
    one-second tries. Why not a locking library: the ones that give shared locks on Windows need
    pywin32 beside them, and lock from byte 0, where Windows' locks are mandatory — another process
    could then not read the pid saiverse/care/_serverlock.py keeps in its lock file to say who holds
    the home. A byte at 1 GiB lies past anything a lock file holds and may be locked beyond the end."""

    OFFSET = 1 << 30
    _FAIL_IMMEDIATELY, _EXCLUSIVE = 0x1, 0x2
    _ERROR_LOCK_VIOLATION, _ERROR_NOT_LOCKED = 33, 158

    def __init__(self) -> None:
        import ctypes
        import msvcrt
        from ctypes import wintypes

        class Overlapped(ctypes.Structure):
            _fields_ = [("Internal", ctypes.c_size_t), ("InternalHigh", ctypes.c_size_t),
                        ("Offset", wintypes.DWORD), ("OffsetHigh", wintypes.DWORD), ("hEvent", wintypes.HANDLE)]

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        self._lock_ex = kernel32.LockFileEx
        self._lock_ex.argtypes = [wintypes.HANDLE, wintypes.DWORD, wintypes.DWORD, wintypes.DWORD,
                                  wintypes.DWORD, ctypes.POINTER(Overlapped)]
        self._unlock_ex = kernel32.UnlockFileEx
        self._unlock_ex.argtypes = [wintypes.HANDLE, wintypes.DWORD, wintypes.DWORD, wintypes.DWORD,
                                    ctypes.POINTER(Overlapped)]
        self._lock_ex.restype = self._unlock_ex.restype = wintypes.BOOL
        self._ctypes, self._msvcrt, self._overlapped = ctypes, msvcrt, Overlapped

    def _region(self) -> object:
        return self._overlapped(0, 0, self.OFFSET & 0xFFFFFFFF, self.OFFSET >> 32, None)

    def lock(self, fd: int, *, shared: bool, wait: bool) -> bool:
        self.unlock(fd)  # as flock: a held lock of the other kind is given up first
        handle = self._msvcrt.get_osfhandle(fd)
        flags = (0 if shared else self._EXCLUSIVE) | (0 if wait else self._FAIL_IMMEDIATELY)
        if self._lock_ex(handle, flags, 0, 1, 0, self._ctypes.byref(self._region())):
            return True
        error = self._ctypes.get_last_error()
        if error == self._ERROR_LOCK_VIOLATION and not wait:
            return False
        raise self._ctypes.WinError(error)

    def unlock(self, fd: int) -> None:
        handle = self._msvcrt.get_osfhandle(fd)
        if not self._unlock_ex(handle, 0, 1, 0, self._ctypes.byref(self._region())):
            error = self._ctypes.get_last_error()
            if error != self._ERROR_NOT_LOCKED:
                raise self._ctypes.WinError(error)


_LOCKS: _PosixLocks | _WindowsLocks = _WindowsLocks() if IS_WINDOWS else _PosixLocks()


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs now (one of another user counts: it exists)."""
    if pid <= 0:
        return False
    if IS_WINDOWS:
        import psutil  # a signal 0 would terminate the process there

        return psutil.pid_exists(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on a selector event loop on Windows: psycopg's async connections (the
    pulse workers' queue, saiverse/pulse/_queue.py) refuse the proactor loop Windows starts by default."""
    import asyncio  # here: most commands never run a loop, and database/ imports this module

    if IS_WINDOWS:
        with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
            return runner.run(main)
    return asyncio.run(main)


def fsync_path(path: Path) -> None:
    """Flush a file, or a folder's entries (a rename or a new name in it), to the disk.

    Windows can neither open a folder as a file nor flush through a read-only descriptor; NTFS
    journals its folders itself, so a folder is left alone there."""
    if IS_WINDOWS:
        if Path(path).is_dir():
            return
        fd = os.open(path, os.O_RDWR | O_BINARY)
    else:
        fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def peak_rss_mib(*, children: bool = False) -> float | None:
    """The largest resident set this process (or, with `children`, any of its ended, waited-for
    children) has had, in MiB; None where the system does not keep it (a child's, on Windows)."""
    if IS_WINDOWS:
        if children:
            return None
        import psutil

        return psutil.Process().memory_info().peak_wset / 1_048_576
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss
    return peak / 1_048_576 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux


def lower_priority(pid: int) -> bool:
    """Let a background process (the embedding indexer's) give way to the app's own work: nice 10, or
    below-normal priority on Windows. False when the system refuses."""
    import psutil

    try:
        proc = psutil.Process(pid)
        proc.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS if sys.platform == "win32" else 10)  # type: ignore[attr-defined]
    except (psutil.Error, OSError, ValueError):
        return False
    return True
