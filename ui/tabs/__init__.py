"""The tabs beside チャット (docs/ARCHITECTURE.md, "UI"): personas, memory, playbooks, schedules, world, settings.

Each module has one `build_*_tab(manager, labels)` that creates its components inside the current
`gr.Tab` and wires them to the manager; it returns a `TabRefresh` the app runs when the tab is
selected, so lists never show a world that changed elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any


@dataclass
class TabRefresh:
    """What to run when a tab is selected: `fn(*inputs)` returns updates for `outputs`, in order."""

    fn: Callable[..., list[Any]]
    outputs: list[Any]
    inputs: list[Any] = field(default_factory=list)
    drawn: bool = False
    """The builder drew every output with what is current as it ran: a tab built on its first opening
    (ui/lazy_tab.py) is not refreshed then, which would read it all again, only at later openings."""
    fill: TabRefresh | None = None
    """With `drawn`: what the first opening still fills (the outputs the builder left empty)."""

    def on_first_opening(self) -> TabRefresh | None:
        """What runs once a tab built on its first opening is on the page: all of the refresh, only
        what the builder left to `fill`, or nothing."""
        return self.fill if self.drawn else self


SHORT_CELL = 12
"""A cell of at most this many characters (a name, 自動配置, 600s) stays on one line: a narrow column then
gives way to the long ones instead of breaking 「自動配置」 as 自動配 / 置."""


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return f'<td class="sv-nowrap">{escape(text)}</td>' if len(text) <= SHORT_CELL else f"<td>{escape(text)}</td>"


def table_html(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, empty: str = "",
               elem_class: str = "") -> str:
    """An escaped HTML table (cells are plain text; nothing from users or models is trusted)."""
    if not rows:
        return f'<div class="sv-muted sv-empty">{escape(empty)}</div>'
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f'<div class="sv-table-wrap"><table class="sv-table {elem_class}"><thead><tr>{head}</tr></thead>' \
           f"<tbody>{body}</tbody></table></div>"


def ok_html(text: str) -> str:
    """A success line for a status box."""
    return f'<div class="sv-ok">✓ {escape(text)}</div>'


def error_html(text: str) -> str:
    """An error line for a status box (the message as the backend gave it, escaped)."""
    return f'<div class="sv-error">⚠️ {escape(text)}</div>'
