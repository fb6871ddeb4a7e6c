"""Gradio's queue without the status messages an event with hidden progress never shows.

For every queued event, Gradio 6 sends the page an `estimation` (its place in the queue) when the
event is queued and a `process_starts` when it starts, before any output. The page's client turns
each into a loading-status change, and each such change re-reads the props of every component that
was ever an event's output (`update_loading_stati_state` in Gradio's Blocks script) — the Chatbot
with its 200 messages among them. That costs the page ~10–20 ms per message on a busy 2-core
machine, all on the path of the first streamed token (benchmarks/ui_trace.py measured ~45 ms of
the ~140 ms from Enter to the reply on screen; docs/ARCHITECTURE.md "First token").

An event wired with `show_progress="hidden"` shows neither its queue place nor its start, so this
module drops those two messages for such events. Everything else goes out as before: the data of
each update (`process_generating`), the end (`process_completed`), progress, logs, toasts and
errors. Events that show progress, and streaming (WebRTC) events, which open their stream on
`process_starts`, are left alone.
"""

from __future__ import annotations

from typing import Any

from gradio import queueing
from gradio.server_messages import EstimationMessage, ProcessStartsMessage

_UNSHOWN = (EstimationMessage, ProcessStartsMessage)


def unshown(event: Any, message: Any) -> bool:
    """True for a queue-place or start message of an event whose progress is hidden."""
    fn = getattr(event, "fn", None)
    return (isinstance(message, _UNSHOWN) and getattr(fn, "show_progress", "full") == "hidden"
            and getattr(fn, "connection", "sse") != "stream")


def quiet_hidden_progress() -> None:
    """Install the filter on Gradio's queue (once per process; later calls do nothing)."""
    send = queueing.Queue.send_message
    if getattr(send, "_saiverse_quiet", False):
        return

    def send_message(self: Any, event: Any, event_message: Any) -> None:
        if unshown(event, event_message):
            return
        send(self, event, event_message)

    send_message._saiverse_quiet = True  # type: ignore[attr-defined]
    queueing.Queue.send_message = send_message  # type: ignore[method-assign]
