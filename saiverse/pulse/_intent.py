"""A tool's intent: kept before it changes the world, so a kill in the middle still leaves a trace.

A tool changes the world in its own transaction and then reports the change (`on_effect`), whose note
the pulse keeps in its `pulse_open` row (saiverse/pulse/_open.py). A kill -9 between the two would
leave a change the persona never remembers. So every tool-context method that changes the world is
marked `@changes`: before it runs, the pulse keeps an intent — the tool's name — in the same row
(`PulseJournal.note_intent`); the change's note replaces it in one write (`note_effect`). A recovered
intent without its note becomes a memory note that the pulse stopped in the middle of that tool and
its result is unknown (`intent_note`), so the persona knows to check. Read-only methods are not
marked: a pulse that only reads (a plain chat) writes nothing more.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from tools import ToolError

F = TypeVar("F", bound=Callable[..., Any])


def intent_note(tool: str) -> str:
    """The memory note for a tool a killed pulse was running, whose change was never reported."""
    return f"このパルスは「{tool}」の途中で止まりました。その結果は分かりません。確かめてください。"


def changes(method: F) -> F:
    """Mark a tool service's method that changes the world: its call's `before_change` runs first (the
    pulse keeps its intent) and its `after_change` once the method returned or refused with a ToolError
    (an intent its note did not replace is dropped: nothing changed). Any other error leaves the intent
    in place: what the method did is unknown."""

    @functools.wraps(method)
    def marked(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.call.before_change()
        try:
            result = method(self, *args, **kwargs)
        except ToolError:
            self.call.after_change()
            raise
        self.call.after_change()
        return result

    return marked  # type: ignore[return-value]
