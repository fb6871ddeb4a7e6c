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

CHUNK_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 64
"""Deepest nesting accepted in JSON handed in on the command line (`--args`)."""
MAX_JSON_INT = 2**63 - 1
"""Largest whole number in such JSON (what SQLite and the tools can hold)."""


class InputError(UserError, ValueError):
    """Input refused before anything was written; the message names it and says why."""


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


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
        raise InputError(f"{what} must be text, got {type(text).__name__}")
    where = unencodable_at(text)
    if where is not None:
        raise InputError(f"{what} holds a character that is not valid UTF-8 (a lone surrogate at position "
                         f"{where}); use UTF-8 text")
    if not allow_nul and "\x00" in text:
        raise InputError(f"{what} holds a NUL character (\\x00) at position {text.index(chr(0))}")
    if max_chars is not None and len(text) > max_chars:
        raise InputError(f"{what} is too long: {len(text):,} characters (the limit is {max_chars:,})")
    return text


def check_message(text: str, max_chars: int) -> str:
    """A chat message a user may send: UTF-8, no NUL, at most `max_chars` (SAIVERSE_MAX_MESSAGE_CHARS)."""
    if isinstance(text, str) and len(text) > max_chars:
        raise InputError(f"the message is too long: {len(text):,} characters (the limit is {max_chars:,}); shorten "
                         "it, or put long text in a document (SAIVERSE_MAX_MESSAGE_CHARS)")
    return check_text(text, "the message")


def check_name(name: str, what: str, *, max_chars: int = 200) -> str:
    """A name stripped, on one line, without control characters, at most `max_chars`; else InputError."""
    check_text(name, what)
    clean = name.strip()
    if not clean:
        raise InputError(f"{what} is empty")
    bad = next((ch for ch in clean if ord(ch) < 32 or ch == "\x7f"), None)
    if bad is not None:
        raise InputError(f"{what} holds a control character ({bad!r}); a name is one line of text")
    if len(clean) > max_chars:
        raise InputError(f"{what} is too long: {len(clean):,} characters (the limit is {max_chars:,})")
    return clean


def check_json_value(value: Any, what: str) -> Any:
    """JSON handed in (already parsed): no text UTF-8 cannot hold, no NUL, not too deep, no huge numbers."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise InputError(f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels, at {path})")
        if isinstance(item, str):
            check_text(item, f"{what} at {path}")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_JSON_INT:
                raise InputError(f"{what} at {path}: the number {str(item)[:30]}… is too large")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InputError(f"{what} at {path}: {item} is not a number JSON allows")
        elif isinstance(item, dict):
            for key, sub in item.items():
                check_text(key, f"{what}: a key at {path}")
                stack.append((sub, f"{path}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{n}]", depth + 1) for n, sub in enumerate(item))
    return value


def open_regular(path: Path, what: str = "the file") -> BinaryIO:
    """`path` opened for reading if it is a regular file; InputError naming it otherwise.

    The file is opened without blocking and checked on the open descriptor: a FIFO would wait forever
    for a writer, a device (`/dev/zero`) never ends, and a check before opening could be raced."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NONBLOCK | O_BINARY)
    except FileNotFoundError as exc:
        raise InputError(f"{what} {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise InputError(f"{what} {path} is a folder, not a file") from exc
    except OSError as exc:
        if Path(path).is_dir():  # Windows refuses to open a folder with "permission denied"
            raise InputError(f"{what} {path} is a folder, not a file") from exc
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError(f"{what} {path} is a folder, not a file")
        raise InputError(f"{what} {path} is not a regular file (a pipe, a device or a socket); give a file")
    if O_NONBLOCK:  # POSIX only (portable.py): Windows opened it blocking and has no os.set_blocking for files
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_limited(path: Path, max_bytes: int, *, what: str = "the file", limit_name: str = "") -> bytes:
    """A file's bytes, read in chunks and never past `max_bytes` (a regular file's size is checked
    first, so a huge or sparse one is not read at all); InputError naming the file and the limit."""
    limit = f", {limit_name}" if limit_name else ""
    try:
        with open_regular(path, what) as fh:
            info = os.fstat(fh.fileno())
            if info.st_size > max_bytes:
                size = _mb(info.st_size) if _mb(info.st_size) != _mb(max_bytes) else f"{info.st_size:,} bytes"
                raise InputError(f"{what} {path} is too large: {size} (the limit is {_mb(max_bytes)}{limit})")
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = fh.read(min(CHUNK_BYTES, max_bytes + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise InputError(f"{what} {path} is larger than the limit ({_mb(max_bytes)}{limit}); "
                                     "stopped reading there")
    except FileNotFoundError as exc:
        raise InputError(f"{what} {path} does not exist") from exc
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    if total == 0:
        raise InputError(f"{what} {path} is empty")
    return b"".join(chunks)
