"""What the long-term memory modules share: time values as stored, and their error type.

Chronicle and Memopedia rows come from two writers — this app (naive UTC `YYYY-MM-DD HH:MM:SS.ffffff`,
like SQLite's CURRENT_TIMESTAMP) and the upstream importer (which may keep upstream's epoch
seconds) — so every time column is read through `parse_time`, which accepts both.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from saiverse.errors import UserError


class LongTermMemoryError(UserError, ValueError):
    """Bad input to Chronicle or Memopedia (unknown page, cycle, over-long text, broken row);
    the message names the thing and nothing was changed."""


def utc_now() -> datetime:
    """Now as naive UTC, the form every time column stores."""
    return datetime.now(UTC).replace(tzinfo=None)


def stamp(value: datetime | None = None) -> str:
    """A naive-UTC datetime as the text stored in DATETIME columns."""
    return (value or utc_now()).isoformat(sep=" ", timespec="microseconds")


def parse_time(raw: Any) -> datetime | None:
    """A stored time (datetime, ISO text, or epoch seconds as number or digits) as naive UTC; None if
    empty or unreadable."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str) and raw[:1] != "-" and not raw.isdigit():
        try:  # the common case, first: our own naive-UTC text
            value = datetime.fromisoformat(raw)
            return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
        except ValueError:
            pass
    if isinstance(raw, datetime):
        return raw.astimezone(UTC).replace(tzinfo=None) if raw.tzinfo else raw
    if isinstance(raw, (int, float)) or (isinstance(raw, str) and raw.strip().lstrip("-").isdigit()):
        try:
            return datetime.fromtimestamp(float(raw), UTC).replace(tzinfo=None)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        value = datetime.fromisoformat(str(raw).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def local_time(value: datetime) -> datetime:
    """A naive-UTC time as the machine's local time (naive): the clock and calendar the person lives
    by, which is how a persona is shown times (tools/text.py) and how Chronicle names its days."""
    return value.replace(tzinfo=UTC).astimezone().replace(tzinfo=None)


def iso(value: datetime | None) -> str | None:
    """A naive-UTC time as ISO text with its zone (what JSON output shows)."""
    return value.replace(tzinfo=UTC).isoformat() if value else None


def short_time(value: datetime | None) -> str:
    """`YYYY-MM-DD HH:MM` (UTC) for lines a persona or a person reads; `?` when unknown."""
    return value.strftime("%Y-%m-%d %H:%M") if value else "?"
