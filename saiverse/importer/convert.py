"""Value conversions from upstream's formats to ours: times, JSON text, HTML note-boxes.

Upstream stores SAIMemory times as epoch seconds and database/log times as naive local ISO text.
Ours: SAIMemory, Memopedia and Chronicle times are naive UTC (`YYYY-MM-DD HH:MM:SS.ffffff`, what
SQLAlchemy writes), and world times (building history, items, schedules) naive local, so upstream's
naive times are kept as they are.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

_STAMP = "%Y-%m-%d %H:%M:%S.%f"
_NOTE_BOX = re.compile(r"""class\s*=\s*["'][^"']*\bnote-box\b""", re.IGNORECASE)


def stamp(value: datetime) -> str:
    """A datetime as stored by this app (`YYYY-MM-DD HH:MM:SS.ffffff`)."""
    return value.strftime(_STAMP)


def from_epoch(value: Any) -> str | None:
    """Epoch seconds (or milliseconds, or ISO text from older versions) → naive UTC text; None if unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        seconds = float(value) / 1000 if abs(value) > 100_000_000_000 else float(value)
        try:
            return datetime.fromtimestamp(seconds, UTC).strftime(_STAMP)
        except (OverflowError, OSError, ValueError):
            return None
    return naive_text(value, to_utc=True)


def naive_text(value: Any, *, to_utc: bool = False) -> str | None:
    """An ISO-ish time (naive or with an offset) → naive text; None if unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        return from_epoch(value)
    try:
        parsed = datetime.fromisoformat(str(value).strip())
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC if to_utc else None).replace(tzinfo=None)
    return parsed.strftime(_STAMP)


def json_value(raw: Any, default: Any) -> Any:
    """Parsed JSON text, or `default` when empty or not JSON."""
    if raw is None or raw == "":
        return default
    if not isinstance(raw, str | bytes):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return default


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class _Text(HTMLParser):
    """HTML → plain text: `<br>` and block ends become line breaks, entities are decoded."""

    BLOCKS = frozenset({"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" or tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def readable_note(content: str) -> str | None:
    """The text of content holding upstream's HTML note-boxes (`<div class="note-box">`); None otherwise."""
    if "<" not in content or not _NOTE_BOX.search(content):
        return None
    parser = _Text()
    parser.feed(content)
    parser.close()
    lines = [line.strip() for line in "".join(parser.parts).splitlines()]
    return "\n".join(line for line in lines if line)
