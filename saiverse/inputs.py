"""What a person hands in, checked before anything is written: text, names, JSON and files.

Every refusal is an `InputError` (a user error: the CLI prints one line and exits 2) whose message
names the thing and the limit. Text that cannot be stored as UTF-8 (a lone surrogate, which a
non-UTF-8 command-line byte or a JSON `\\ud800` escape becomes) is refused wherever it comes in, as
is a NUL character; files are read in chunks and never past their limit, so a huge file or an
endless one (`/dev/zero`) costs at most the limit.
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from portable import O_BINARY, O_NONBLOCK
from saiverse.errors import UserError
from words import say

CHUNK_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 64
"""Deepest nesting accepted in JSON handed in on the command line (`--args`)."""
MAX_JSON_INT = 2**63 - 1
"""Largest whole number in such JSON (what SQLite and the tools can hold)."""


class InputError(UserError, ValueError):
    """Input refused before anything was written; the message names it and says why."""


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else say("bytes", n=n)


def _why(exc: OSError) -> str:
    """Why the system refused to read: permission in the language in force, any other reason as the system says."""
    if isinstance(exc, PermissionError):
        return say("in_no_permission")
    return str(exc.strerror or exc)


def unencodable_at(text: str) -> int | None:
    """Position of the first character UTF-8 cannot hold (a lone surrogate), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def check_text(text: str, what: str, *, max_chars: int | None = None, allow_nul: bool = False) -> str:
    """`text` unchanged, or InputError naming `what`: a lone surrogate, a NUL, more than `max_chars`."""
    if not isinstance(text, str):
        raise InputError(say("in_not_text", what=what, kind=type(text).__name__))
    where = unencodable_at(text)
    if where is not None:
        raise InputError(say("in_surrogate", what=what, where=where))
    if not allow_nul and "\x00" in text:
        raise InputError(say("in_nul", what=what, where=text.index(chr(0))))
    if max_chars is not None and len(text) > max_chars:
        raise InputError(say("in_too_long", what=what, n=len(text), limit=max_chars))
    return text


def check_message(text: str, max_chars: int) -> str:
    """A chat message a user may send: UTF-8, no NUL, at most `max_chars` (SAIVERSE_MAX_MESSAGE_CHARS)."""
    if isinstance(text, str) and len(text) > max_chars:
        raise InputError(say("in_message_long", n=len(text), limit=max_chars))
    return check_text(text, say("what_message"))


def check_name(name: str, what: str, *, max_chars: int = 200) -> str:
    """A name stripped, on one line, without control characters, at most `max_chars`; else InputError."""
    check_text(name, what)
    clean = name.strip()
    if not clean:
        raise InputError(say("in_empty", what=what))
    bad = next((ch for ch in clean if ord(ch) < 32 or ch == "\x7f"), None)
    if bad is not None:
        raise InputError(say("in_control", what=what, ch=repr(bad)))
    if len(clean) > max_chars:
        raise InputError(say("in_too_long", what=what, n=len(clean), limit=max_chars))
    return clean


def check_json_value(value: Any, what: str) -> Any:
    """JSON handed in (already parsed): no text UTF-8 cannot hold, no NUL, not too deep, no huge numbers."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise InputError(say("in_json_deep", what=what, depth=MAX_JSON_DEPTH, path=path))
        if isinstance(item, str):
            check_text(item, say("what_at", what=what, path=path))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_JSON_INT:
                raise InputError(say("in_json_big", what=what, path=path, digits=str(item)[:30]))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InputError(say("in_json_nan", what=what, path=path, value=item))
        elif isinstance(item, dict):
            for key, sub in item.items():
                check_text(key, say("what_key_at", what=what, path=path))
                stack.append((sub, f"{path}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{n}]", depth + 1) for n, sub in enumerate(item))
    return value


def open_regular(path: Path, what: str = "") -> BinaryIO:
    """`path` opened for reading if it is a regular file; InputError naming it otherwise.

    The file is opened without blocking and checked on the open descriptor: a FIFO would wait forever
    for a writer, a device (`/dev/zero`) never ends, and a check before opening could be raced."""
    what = what or say("what_file")
    try:
        fd = os.open(path, os.O_RDONLY | O_NONBLOCK | O_BINARY)
    except FileNotFoundError as exc:
        raise InputError(say("in_missing", what=what, path=path)) from exc
    except IsADirectoryError as exc:
        raise InputError(say("in_folder", what=what, path=path)) from exc
    except OSError as exc:
        if Path(path).is_dir():  # Windows refuses to open a folder with "permission denied"
            raise InputError(say("in_folder", what=what, path=path)) from exc
        raise InputError(say("in_unreadable", what=what, path=path, why=_why(exc))) from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError(say("in_folder", what=what, path=path))
        raise InputError(say("in_not_regular", what=what, path=path))
    if O_NONBLOCK:  # POSIX only (portable.py): Windows opened it blocking and has no os.set_blocking for files
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_limited(path: Path, max_bytes: int, *, what: str = "", limit_name: str = "") -> bytes:
    """A file's bytes, read in chunks and never past `max_bytes` (a regular file's size is checked
    first, so a huge or sparse one is not read at all); InputError naming the file and the limit."""
    limit = f", {limit_name}" if limit_name else ""
    what = what or say("what_file")
    try:
        with open_regular(path, what) as fh:
            info = os.fstat(fh.fileno())
            if info.st_size > max_bytes:
                size = _mb(info.st_size) if _mb(info.st_size) != _mb(max_bytes) else say("bytes", n=info.st_size)
                raise InputError(say("in_too_large", what=what, path=path, size=size, limit=_mb(max_bytes), name=limit))
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = fh.read(min(CHUNK_BYTES, max_bytes + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise InputError(say("in_past_limit", what=what, path=path, limit=_mb(max_bytes), name=limit))
    except FileNotFoundError as exc:
        raise InputError(say("in_missing", what=what, path=path)) from exc
    except OSError as exc:
        raise InputError(say("in_unreadable", what=what, path=path, why=_why(exc))) from exc
    if total == 0:
        raise InputError(say("in_empty_file", what=what, path=path))
    return b"".join(chunks)
