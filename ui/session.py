"""One building per window (docs/ARCHITECTURE.md, "UI": one building per window).

A window's building lives in its own `ChatView.building_id` (a per-session `gr.State`), never in
a server-wide "current building": the header, the side panel, the chat and the place a message goes
all come from it. The world's user location (`manager.move_user`) only follows: it records where
the person last chose to be or spoke, which is what personas see ("the user is here").

Each session's handlers take the session's lock, so a page-load event that is still reading the
history cannot overwrite a building the person clicked meanwhile. A message is sent only when the
page shows the same building the session holds (the hidden `shown` value is updated in the same
render as the header), so a message can never go to a building the window does not name.
"""

from __future__ import annotations

import threading

from saiverse.port import CityPort
from ui.stream import ChatView

_GUARD = threading.Lock()


def session_lock(view: ChatView) -> threading.RLock:
    """The lock of one window's session (made on first use: a gr.State value is deep-copied per
    session from its default, and a lock cannot be copied)."""
    with _GUARD:
        lock = view.__dict__.get("_session_lock")
        if lock is None:
            lock = threading.RLock()
            view.__dict__["_session_lock"] = lock
        return lock


def building_ids(manager: CityPort) -> set[str]:
    """Ids of the buildings that exist now."""
    return {b.building_id for b in manager.buildings()}


def first_building(manager: CityPort, view: ChatView, stored: str | None) -> str:
    """The building a freshly loaded window shows: the one this session already moved to (a click
    that beat the load), else the one this browser tab showed before a reload, else where the
    person is in the world."""
    ids = building_ids(manager)
    if view.building_id in ids:
        return str(view.building_id)
    if stored and stored in ids:
        return stored
    return manager.user_building()


def still_there(manager: CityPort, view: ChatView) -> str | None:
    """None while the window's building exists; else the building to show instead (it was deleted
    in another tab or by the CLI)."""
    if view.building_id is not None and view.building_id in building_ids(manager):
        return None
    return manager.user_building()


def begin_send(view: ChatView) -> None:
    """A send of this window has started (call under `session_lock`)."""
    view.__dict__["_sending"] = sending(view) + 1


def end_send(view: ChatView) -> None:
    """A send of this window is over."""
    with session_lock(view):
        view.__dict__["_sending"] = max(0, sending(view) - 1)


def sending(view: ChatView) -> int:
    """How many sends of this window are under way: while any is, the window stays where it is,
    so what streams in belongs to the building the header names."""
    return int(view.__dict__.get("_sending", 0))
