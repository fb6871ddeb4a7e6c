"""Streaming reader of a JSON array file: one element at a time, memory bounded by the largest element."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CHUNK_CHARS = 1 << 20
_REPLACED = [0]
"""Bytes replaced by `_replace` so far (one process reads one file at a time; `_Reader` counts the change)."""


def _replace(exc: UnicodeError) -> tuple[str, int]:
    # A log saved by a Windows editor in cp932, or a byte flipped on disk: the line is kept, the bad
    # bytes become U+FFFD, and the caller says how many there were (rather than losing the rest of the file).
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _REPLACED[0] += exc.end - exc.start
    return "\ufffd", exc.end


codecs.register_error("saiverse-import-replace", _replace)


@dataclass
class ReadStats:
    """What reading one file met: bytes that were not UTF-8 (each became U+FFFD)."""

    replaced: int = 0


class JSONArrayError(ValueError):
    """The file is not (or stops being) a JSON array; `read` elements came before the damage."""

    def __init__(self, message: str, read: int) -> None:
        super().__init__(message)
        self.read = read


class _Reader:
    def __init__(self, fh: IO[str], chunk: int, stats: ReadStats) -> None:
        self.fh, self.chunk, self.stats = fh, chunk, stats
        self.buf, self.pos, self.base, self.eof = "", 0, 0, False

    @property
    def offset(self) -> int:
        return self.base + self.pos

    def more(self) -> bool:
        before = _REPLACED[0]
        data = self.fh.read(self.chunk)
        self.stats.replaced += _REPLACED[0] - before
        if not data:
            self.eof = True
            return False
        self.base += self.pos
        self.buf, self.pos = self.buf[self.pos:] + data, 0
        return True

    def peek(self) -> str:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos] if self.pos < len(self.buf) else ""

    def take(self) -> str:
        ch = self.peek()
        self.pos += len(ch)
        return ch

    def value(self, decoder: json.JSONDecoder) -> Any:
        self.peek()
        while True:
            try:
                obj, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.more():
                    continue
                raise ValueError(f"{exc.msg} at character {self.base + exc.pos}") from exc
            except RecursionError as exc:  # `[[[[…` thousands deep: no entry of a log is nested like that
                raise ValueError(f"an entry is nested too deeply to read, at character {self.offset}") from exc
            if end == len(self.buf) and self.more():
                continue  # the value may go on in the next chunk (a number cut in two)
            self.pos = end
            return obj


def iter_json_array(path: Path, chunk_chars: int = CHUNK_CHARS, stats: ReadStats | None = None) -> Iterator[Any]:
    """The elements of the JSON array in `path`; JSONArrayError says where the file stops being one.

    A BOM is skipped; bytes that are not UTF-8 become U+FFFD and are counted in `stats.replaced`.
    """
    decoder = json.JSONDecoder()
    read = 0
    try:
        with path.open(encoding="utf-8-sig", errors="saiverse-import-replace") as fh:
            reader = _Reader(fh, chunk_chars, stats if stats is not None else ReadStats())
            if reader.take() != "[":
                raise ValueError("the file does not start with a JSON array")
            if reader.peek() == "]":
                return
            while True:
                value = reader.value(decoder)
                read += 1
                yield value
                sep = reader.take()
                if sep == "]":
                    return
                if sep != ",":
                    raise ValueError(f"expected ',' or ']' at character {reader.offset}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise JSONArrayError(str(exc), read) from exc
