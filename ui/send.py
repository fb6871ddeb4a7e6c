"""The chat's send handler: one user message → the live strip, streamed as the pulse's events arrive.

A message sent while a send already streams in this session joins it (ui/stream.py `join_running`),
so a session has one live area and its entries appear once, in the order things happened.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import gradio as gr

from saiverse.port import CityPort, is_user_error
from ui.attachments import refusal
from ui.i18n import Labels
from ui.stream import ChatView, avatars_of, catch_up, join_running, open_building, stream_events

MANUAL_META = "meta_user_manual"
"""The meta playbook whose sub-playbook the user picks in the second chooser."""


class SendViews(Protocol):
    """What the send handler needs of the window's views (ui/app.py `_Views`)."""

    def panels(self, building_id: str) -> tuple[str, str, str]: ...

    def image_path(self, item_id: str) -> str | None: ...

    def muted_notices(self) -> frozenset[str]: ...


def read_attachments(files: list[Any], labels: Labels) -> list[tuple[str, bytes]]:
    """Uploaded files (paths in Gradio's cache) → (filename, bytes) for the manager."""
    out: list[tuple[str, bytes]] = []
    for f in files:
        path = f if isinstance(f, str) else (f or {}).get("path")
        if not path:
            continue
        try:
            out.append((Path(path).name, Path(path).read_bytes()))
        except OSError:
            gr.Warning(labels("read_failed", name=Path(path).name))
    return out


def send(
    manager: CityPort, labels: Labels, views: SendViews, view: ChatView, message: dict[str, Any] | None,
    building_id: str | None, meta_name: str | None, sub_name: str | None,
) -> Iterator[list[Any]]:
    """The send handler: yields [live strip, input, header, panel, items] as pulse events arrive.

    The Chatbot is not an output here (a busy output re-renders, and with 200 messages that costs
    the first token ~60 ms): `finish_send` moves the exchange into it when the send is over.
    """
    skip = gr.skip
    message = message or {}
    text = str(message.get("text") or "")
    why = refusal(list(message.get("files") or []), int(manager.settings.max_upload_bytes), labels)
    if not why:
        try:  # checked here, before the box is cleared: a refused text stays for the user to shorten
            manager.check_message(text)
        except Exception as exc:  # noqa: BLE001 - InputError (a UserError); anything else is the send's own
            if not is_user_error(exc):
                raise
            why = labels("message_refused", why=str(exc))
    if why:  # nothing is sent: the text and the files stay in the box
        gr.Warning(why)
        yield [skip()] * 5
        return
    attachments = read_attachments(list(message.get("files") or []), labels)
    if not text.strip() and not attachments:
        yield [skip()] * 5
        return
    bid = building_id or manager.user_building()
    args = {"selected_playbook": sub_name} if meta_name == MANUAL_META and sub_name else None
    source = manager.handle_user_input(bid, text, attachments, meta_playbook=meta_name or None, args=args)
    clear: Any = gr.MultimodalTextbox(value=None)
    if view.building_id == bid and join_running(view, source):
        # A send is streaming here already (a production at work): this message's events join it,
        # in the one live area, in the order they happen.
        yield [skip(), clear, skip(), skip(), skip()]
        return
    wait_for_send(view)
    if view.building_id != bid:
        open_building(view, manager, labels, bid)
    else:
        catch_up(view, manager, labels)  # lines a background pulse wrote since the last tick
    view.busy = True
    try:
        # The box is cleared by the first update, which goes out with the first chunk of the reply
        # or after FLUSH_SEC, whichever comes first (every update is a round trip through Gradio).
        shown_live = None
        for html, panel_changed in stream_events(view, labels, source, image_path_of=views.image_path,
                                                 muted_notices=views.muted_notices(), avatars=avatars_of(manager)):
            live_out = html if html != shown_live else skip()
            shown_live = html
            if panel_changed:
                view.panels = views.panels(bid)
                yield [live_out, clear, *view.panels]
            else:
                yield [live_out, clear, skip(), skip(), skip()]
            clear = skip()
    finally:
        view.busy = False
        latest = manager.history(bid, limit=1)
        view.newest_id = max(view.newest_id, latest[-1].id if latest else 0)


def wait_for_send(view: ChatView, timeout: float = 5.0) -> None:
    """A send that just finished its stream is still writing down where it got to; let it, so its
    lines are not read from the history a second time."""
    deadline = time.monotonic() + timeout
    while view.busy and time.monotonic() < deadline:
        time.sleep(0.02)
