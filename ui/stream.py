"""What one browser session's chat shows, and the streamed send handler that updates it.

`ChatView` (kept in a per-session `gr.State`, which Gradio holds by reference) is the rendered
message list of one building plus the history ids it covers: the window opens on the latest
`PAGE` lines, "load earlier" prepends the page before `oldest_id`, and the refresh timer appends
lines newer than `newest_id` that background pulses wrote. `stream_events` runs the manager's
event generator on a pump thread and coalesces chunk updates, so a long reply re-sends the chat
at most every `FLUSH_SEC` (the first chunk of each reply goes out at once).

A session has one live area. A message sent while a send still streams (an instruction for a
production, say) joins the running pump instead of starting a second stream: its events are
shown in the same place, in the order things happen, and nothing is read twice from the history.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from saiverse.port import CityPort
from ui.chat import Message, history_messages, system_message
from ui.i18n import Labels
from ui.live import LiveRenderer, live_bubble
from ui.side_panel import avatar_html

PAGE = 200
"""History lines shown when a building opens, and loaded per "load earlier" click."""
FLUSH_SEC = 0.05
"""Shortest gap between two chat updates while a reply streams."""


@dataclass
class ChatView:
    """One session's chat: the building shown, its rendered messages and the history ids covered."""

    building_id: str | None = None
    messages: list[Message] = field(default_factory=list)
    oldest_id: int | None = None
    newest_id: int = 0
    has_more: bool = False
    busy: bool = False
    """A send is streaming: the refresh timer leaves the chat alone meanwhile."""
    panels: tuple[str, str, str] | None = None
    """The side-panel HTML last sent, so the timer only sends a change."""
    pump: _Pump | None = None
    """The running send's pump, so the stop button can end it after the cancelled pulse."""
    shown: int = 0
    """How many of `messages` the Chatbot shows; the live strip shows the rest (and what is pending)."""
    live: LiveRenderer | None = None
    """The running send's renderer (its pending entries are the live strip's tail)."""
    once_shown: set[str] = field(default_factory=set)
    """Notice kinds shown once per session that this session has shown (ui/chat.py ONCE_PER_SESSION)."""

    buildings: list[tuple[str, str]] | None = None
    """The building list last sent to this window's selector, so the timer only sends a change."""


def open_building(view: ChatView, manager: CityPort, labels: Labels, building_id: str) -> ChatView:
    """Reset `view` to the latest PAGE lines of `building_id`."""
    entries = manager.history(building_id, limit=PAGE)
    view.building_id = building_id
    view.messages = history_messages(entries, avatars_of(manager), labels)
    view.oldest_id = entries[0].id if entries else None
    view.newest_id = entries[-1].id if entries else 0
    view.has_more = len(entries) >= PAGE
    return view


def load_earlier(view: ChatView, manager: CityPort, labels: Labels) -> int:
    """Prepend the page before the oldest line shown; returns how many lines were added."""
    if view.building_id is None or view.oldest_id is None:
        return 0
    entries = manager.history(view.building_id, limit=PAGE, before_id=view.oldest_id)
    if entries:
        view.messages[:0] = history_messages(entries, avatars_of(manager), labels)
        view.oldest_id = entries[0].id
    view.has_more = len(entries) >= PAGE
    return len(entries)


def catch_up(view: ChatView, manager: CityPort, labels: Labels) -> bool:
    """Append history lines newer than `newest_id` (background pulses); True when some arrived.

    Cheap when nothing changed: one indexed query for the newest line.
    """
    if view.building_id is None:
        return False
    latest = manager.history(view.building_id, limit=1)
    if not latest or latest[-1].id <= view.newest_id:
        return False
    entries = [e for e in manager.history(view.building_id, limit=PAGE) if e.id > view.newest_id]
    if entries and entries[0].id > view.newest_id and len(entries) >= PAGE:
        open_building(view, manager, labels, view.building_id)  # too far behind: start over
        return True
    view.messages.extend(history_messages(entries, avatars_of(manager), labels))
    view.newest_id = latest[-1].id
    if view.oldest_id is None and entries:
        view.oldest_id = entries[0].id
    return True


def avatars_of(manager: CityPort) -> dict[str, str]:
    """Persona id → what its bubbles start with: its picture (ui/side_panel.py avatar_html) or its emoji."""
    pictures = manager.avatar_files()
    return {p.persona_id: avatar_html(p, pictures[p.persona_id]) if p.persona_id in pictures else p.avatar
            for p in manager.personas()}


class _Done:
    """End marker of the pump queue; carries the exception that ended the source, if any."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


class _Failed:
    """One source of the pump ended with an exception (shown in the chat; the others go on)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Pump:
    """Drains the manager's event generators, each on its own thread, into one queue.

    The send handler can then wait with a timeout (to flush coalesced chunks on time) instead of
    blocking inside a generator. A later send adds its generator with `add` while the pump runs;
    the pump is done (`_Done` queued) when every source has ended, and takes no source after that.
    After `stop()`, each source ends at its next `pulse_end` and is closed, so personas after the
    cancelled one are never started.
    """

    def __init__(self, source: Iterator[dict[str, Any]]) -> None:
        self.queue: queue.Queue[dict[str, Any] | _Failed | _Done] = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._active = 0
        self._closed = False
        self.add(source)

    def add(self, source: Iterator[dict[str, Any]]) -> bool:
        """Drain `source` into this pump too; False when the pump has already finished."""
        with self._lock:
            if self._closed:
                return False
            self._active += 1
        threading.Thread(target=self._run, args=(source,), name="saiverse-ui-pump", daemon=True).start()
        return True

    def stop(self) -> None:
        self._stop.set()

    def _run(self, source: Iterator[dict[str, Any]]) -> None:
        try:
            for ev in source:
                self.queue.put(ev)
                if self._stop.is_set() and ev.get("type") in ("pulse_end", "user_message"):
                    break
        except Exception as exc:  # noqa: BLE001 - handed to the send handler, shown in the chat
            self.queue.put(_Failed(exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
            with self._lock:
                self._active -= 1
                last = self._active == 0
                self._closed = self._closed or last
            if last:
                self.queue.put(_Done())


Update = tuple[str, bool]
"""(the live strip's HTML, whether the side panel should refresh)."""


def live_html(view: ChatView) -> str:
    """The live strip: finished entries the Chatbot does not show yet, then what is in progress."""
    pending = view.live.html() if view.live is not None else ""
    return "".join(live_bubble(m) for m in view.messages[view.shown:]) + pending


def join_running(view: ChatView, source: Iterator[dict[str, Any]]) -> bool:
    """Hand a later send's events to the send already streaming in this session; False if none is."""
    pump = view.pump
    return bool(view.busy and pump is not None and pump.add(source))


def show_finished(view: ChatView) -> bool:
    """Let the Chatbot take the finished entries while a long send still runs; True when there were any."""
    if len(view.messages) <= view.shown:
        return False
    view.shown = len(view.messages)
    return True


def stream_events(
    view: ChatView, labels: Labels, source: Iterator[dict[str, Any]], *,
    image_path_of: Callable[[str], str | None] = lambda _i: None, flush_sec: float = FLUSH_SEC,
    muted_notices: frozenset[str] = frozenset(), avatars: dict[str, str] | None = None,
) -> Iterator[Update]:
    """Apply `source`'s events to `view.messages`, yielding coalesced updates of the live strip.

    The strip shows everything of this send (complete or not); the Chatbot is updated by the
    caller once the send is over (`view.messages` then holds it all), so the Chatbot is neither
    re-rendered per token nor marked busy while the reply streams.

    An update goes out at once for the first chunk of each reply and for anything that is not a
    chunk once `flush_sec` has passed since the last one; otherwise it waits (at most `flush_sec`).
    The first update goes out within `flush_sec` of the start even if nothing happened.
    """
    renderer = view.live = LiveRenderer(view.messages, labels, image_path_of=image_path_of,
                                        muted_notices=set(muted_notices), once_shown=view.once_shown,
                                        avatars=avatars or {})
    view.shown = len(view.messages)  # what the Chatbot already displays
    pump = view.pump = _Pump(source)
    started: set[str] = set()
    # The first update waits (at most flush_sec) for the first chunk, so the user's line and the
    # start of the reply usually travel together: one round trip through Gradio instead of three.
    last, pending, panel_dirty = time.monotonic(), True, False

    def update() -> Update:
        nonlocal last, pending, panel_dirty
        out = (live_html(view), panel_dirty)
        last, pending, panel_dirty = time.monotonic(), False, False
        return out

    try:
        while True:
            timeout = max(0.0, last + flush_sec - time.monotonic()) if pending else None
            try:
                item = pump.queue.get(timeout=timeout)
            except queue.Empty:
                yield update()
                continue
            if isinstance(item, _Done):
                break
            if isinstance(item, _Failed):
                exc = item.error
                view.messages.append(system_message(labels("error", message=str(exc) or type(exc).__name__)))
                print(f"saiverse ui: send failed: {exc!r}", file=sys.stderr)
                pending = True
                continue
            _changed, panel = renderer.apply(item)
            panel_dirty = panel_dirty or panel
            first_chunk = False
            if item.get("type") == "speak_chunk":
                key = str(item.get("pulse_id") or item.get("persona_id") or "")
                first_chunk = key not in started
                started.add(key)
            if first_chunk or time.monotonic() - last >= flush_sec:
                yield update()
            else:
                pending = True
    finally:
        pump.stop()  # a closed page (GeneratorExit) stops after the current pulse too
        view.pump = None
        view.live = None
    # Whatever is still pending (a source that ended mid-reply) joins the history as it stands.
    view.messages.extend(renderer.pending)
    renderer.pending.clear()
    yield live_html(view), True
