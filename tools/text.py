"""How tools write for a persona: local times, Japanese role names, clipped snippets, date arguments."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from tools.registry import ToolArgumentError

ROLE_JA = {"user": "相手", "assistant": "自分", "system": "システム"}
"""A memory message's role as the persona reads it (the persona is the assistant)."""


def role_ja(role: str) -> str:
    """`assistant` → 自分, `user` → 相手, `system` → システム."""
    return ROLE_JA.get(role, role)


def local(iso: str) -> datetime:
    """An ISO timestamp as an aware local time (naive values are taken as local already)."""
    return datetime.fromisoformat(iso).astimezone()


def stamp(iso: str, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """An ISO timestamp in local time, formatted (the raw text when it cannot be read)."""
    try:
        return local(iso).strftime(fmt)
    except (TypeError, ValueError):
        return str(iso)[:16]


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces."""
    return " ".join(str(text).split())


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (an ellipsis marks a cut)."""
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def elapsed_ja(delta: timedelta) -> str:
    """A duration as Japanese words: 45秒, 12分, 3時間5分, 2日4時間."""
    total = max(int(delta.total_seconds()), 0)
    if total < 60:
        return f"{total}秒"
    if total < 3600:
        return f"{total // 60}分"
    if total < 86400:
        hours, minutes = divmod(total // 60, 60)
        return f"{hours}時間{minutes}分" if minutes else f"{hours}時間"
    days, hours = total // 86400, (total % 86400) // 3600
    return f"{days}日{hours}時間" if hours else f"{days}日"


def date_arg(tool: str, name: str, value: str | None) -> date | None:
    """A `YYYY-MM-DD` argument (None when empty); anything else is an argument error naming it."""
    if value is None or not str(value).strip():
        return None
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise ToolArgumentError(f"tool {tool!r}: argument {name!r} must be a date YYYY-MM-DD, got {value!r}") from exc


def in_dates(iso: str, start: date | None, end: date | None) -> bool:
    """Whether a timestamp's local date lies within [start, end] (open ends allowed)."""
    if start is None and end is None:
        return True
    try:
        day = local(iso).date()
    except (TypeError, ValueError):
        return False
    return (start is None or day >= start) and (end is None or day <= end)
