"""A time on every chat line: the stored line's time (history) or the moment an event arrived.

The time is the last line of a bubble, as a small `<span class="sv-time">` the Chatbot's Markdown
keeps; the live strip (ui/live.py) shows plain text and leaves it out (`strip_time`).
"""

from __future__ import annotations

import re
from datetime import datetime

_TAG = re.compile(r'\n\n<span class="sv-time">[^<]*</span>$')


def clock(when: str | datetime | None, now: datetime | None = None) -> str:
    """'10:12' today, '11/24 10:12' another day of this year, '2025/11/24 10:12' before; '' if unknown."""
    if when is None or when == "":
        return ""
    try:
        at = when if isinstance(when, datetime) else datetime.fromisoformat(str(when).replace("Z", "+00:00"))
    except ValueError:
        return ""
    now = now or datetime.now(at.tzinfo)
    if at.date() == now.date():
        return at.strftime("%H:%M")
    if at.year == now.year:
        return f"{at.month}/{at.day} {at:%H:%M}"
    return f"{at.year}/{at.month}/{at.day} {at:%H:%M}"


def with_time(text: str, when: str | datetime | None) -> str:
    """`text` with its time as the bubble's last line (unchanged when the time is unknown)."""
    label = clock(when)
    return f'{text}\n\n<span class="sv-time">{label}</span>' if label else text


def strip_time(text: str) -> str:
    """`text` without the time line `with_time` added."""
    return _TAG.sub("", text)


def local_stamp(when: str | datetime | None, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
    """`2026-11-25 09:12:03` (or `fmt`) in the machine's local time (a stored UTC time, as SAIMemory keeps
    them, is shown as the person's clock reads; a naive time is taken as local already); '' if unknown."""
    if when is None or when == "":
        return ""
    try:
        at = when if isinstance(when, datetime) else datetime.fromisoformat(str(when).replace("Z", "+00:00"))
    except ValueError:
        return str(when)[:19].replace("T", " ")
    if at.tzinfo is not None:
        at = at.astimezone().replace(tzinfo=None)
    return at.strftime(fmt)
