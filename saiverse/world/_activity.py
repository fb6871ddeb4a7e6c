"""A persona's activity state, as upstream v0.3 names it, beside this app's interaction mode.

Upstream v0.3 replaced INTERACTION_MODE with four states: `Active` (acts on its own), `Idle` (awake,
answers, takes no action on its own), `Sleep` (asleep; answers nothing until woken) and `Stop`
(switched off). This app keeps its three modes (`auto`, `user`, `sleep`) and stores the upstream state
beside them (ai.ACTIVITY_STATE) so an imported `Stop` is kept and shown; `Stop` behaves as `sleep`
here. A mode changed here since the import wins: the state shown is then derived from the mode.
"""

from __future__ import annotations

from typing import Any

ACTIVITY_STATES: tuple[str, ...] = ("Active", "Idle", "Sleep", "Stop")
_FROM_MODE = {"auto": "Active", "user": "Idle", "manual": "Idle", "sleep": "Sleep"}
"""Upstream's own conversion of a v0.2 INTERACTION_MODE (manual is its "auto off" state)."""
_TO_MODE = {"Active": "auto", "Idle": "user", "Sleep": "sleep", "Stop": "sleep"}


def from_interaction_mode(mode: Any) -> str:
    """The activity state upstream's migration gives an INTERACTION_MODE (trimmed; unknown → Idle)."""
    return _FROM_MODE.get(str(mode).strip() if mode is not None else "", "Idle")


def to_interaction_mode(state: str) -> str:
    """This app's interaction mode for an activity state."""
    return _TO_MODE.get(state, "user")


def shown_state(stored: str | None, mode: str) -> str:
    """The state to show: the stored one while it still agrees with the mode, else the mode's."""
    if stored in _TO_MODE and _TO_MODE[stored] == mode:
        return stored
    return from_interaction_mode(mode)
