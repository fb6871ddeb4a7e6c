"""The 自律 switch of the chat view: autonomous mode on or off, one click away.

The switch is the world's (`SAIVerseManager.autonomous`, kept in the database), so every window and
the ワールド tab show the same state, and it is as it was left after a restart. Turning it on says
which personas act on their own and how often.
"""

from __future__ import annotations

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels


def autonomy_switch(manager: CityPort, labels: Labels) -> gr.Checkbox:
    """The switch itself (call inside the chat head row)."""
    status = manager.autonomy_status()
    return gr.Checkbox(value=bool(status["on"]), label=labels("autonomy_switch"), elem_id="chat-autonomy",
                       container=False, scale=0, min_width=80, elem_classes=["sv-autonomy"])


def autonomy_message(manager: CityPort, labels: Labels) -> str:
    """What a toast says after the switch moved: who acts and how often, or that nobody does."""
    status = manager.autonomy_status()
    if not status["on"]:
        return labels("autonomy_off")
    if not status["personas"]:
        return labels("autonomy_on_nobody")
    return labels("autonomy_on", names=labels("list_sep").join(status["personas"]), minutes=status["minutes"])


def wire_autonomy(manager: CityPort, labels: Labels, switch: gr.Checkbox, demo: gr.Blocks, chat_tab: gr.Tab) -> None:
    """Flip the world's switch on input; show the world's state on load and when the chat tab opens."""

    def on_switch(on: bool) -> gr.Checkbox:
        manager.autonomous = bool(on)
        gr.Info(autonomy_message(manager, labels))
        # Sent back so the box ends as the world is, even if the page's load answer came in after the click.
        return gr.Checkbox(value=bool(manager.autonomous))

    def current() -> gr.Checkbox:
        return gr.Checkbox(value=bool(manager.autonomous))

    switch.input(on_switch, switch, switch, show_progress="hidden")
    demo.load(current, None, switch, show_progress="hidden")
    chat_tab.select(current, None, switch, show_progress="hidden")
