"""Per-line actions of the chat: click a line, and a bar under the chat offers to delete it.

The bar is the confirmation: it quotes the line and says where it goes from — the chat history and
the memory of the personas who remember it (「会話の履歴とミナの記憶から消します」), or the history
only — as `CityPort.line_deletion` found it. Deleting calls `CityPort.delete_line`, then redraws the
window's building. A line is found by what the Chatbot shows at the clicked place (the window's
`ChatView.messages`) among the building's stored lines, so lines that arrived by a send (rendered
from events, not read back) are found too.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.chat import history_messages
from ui.chat_time import clock, strip_time
from ui.i18n import Labels
from ui.session import sending, session_lock
from ui.stream import PAGE, ChatView, open_building

QUOTE_CHARS = 60
"""How much of the chosen line the bar quotes."""


def _avatars(manager: CityPort) -> dict[str, str]:
    return {p.persona_id: p.avatar for p in manager.personas()}


def chosen_line(manager: CityPort, view: ChatView, index: int, labels: Labels) -> Any | None:
    """The stored history line shown at `index` of the window's chat, or None (a notice rendered from
    an event, an error line, or a line deleted meanwhile).

    Of the stored lines rendered the same way, the one nearest the same place from the end is taken
    (the same words said twice are two lines)."""
    if view.building_id is None or not 0 <= index < len(view.messages):
        return None
    want = strip_time(str(view.messages[index].get("content") or ""))
    entries = manager.history(view.building_id, limit=max(PAGE, len(view.messages) + PAGE))
    rendered = history_messages(entries, _avatars(manager), labels)
    found = [i for i, m in enumerate(rendered) if strip_time(str(m["content"])) == want]
    if not found:
        return None
    from_end = len(view.messages) - index
    return entries[min(found, key=lambda i: abs((len(rendered) - i) - from_end))]


def confirmation_html(labels: Labels, entry: Any, remembered_by: list[str]) -> str:
    """The bar's text: the line quoted with its time, and where deleting removes it from."""
    quoted = entry.content if len(entry.content) <= QUOTE_CHARS else entry.content[:QUOTE_CHARS] + "…"
    where = (labels("line_from_both", names="、".join(remembered_by)) if remembered_by
             else labels("line_from_history"))
    chosen = labels("line_chosen", time=clock(entry.created_at), text=quoted)
    return f'<div class="sv-line-chosen">{escape(chosen)}</div><div class="sv-line-where">{escape(where)}</div>'


def deleted_message(labels: Labels, remembered_by: list[str]) -> str:
    """The toast after a delete, saying where the line was removed from."""
    if remembered_by:
        return labels("line_deleted_both", names="、".join(remembered_by))
    return labels("line_deleted_history")


@dataclass
class LineActions:
    """The bar under the chat (hidden until a line is clicked) and the chosen line it holds."""

    bar: Any
    text: Any
    delete: Any
    cancel: Any
    chosen: Any


def build_line_actions(labels: Labels) -> LineActions:
    """The bar (call where it sits, right under the Chatbot)."""
    with gr.Row(visible=False, elem_id="sv-line-actions") as bar:
        text = gr.HTML("", elem_id="sv-line-text")
        delete = gr.Button(labels("line_delete"), elem_id="sv-line-delete", variant="stop", size="sm", scale=0,
                           min_width=100)
        cancel = gr.Button(labels("line_cancel"), elem_id="sv-line-cancel", size="sm", scale=0, min_width=70)
    return LineActions(bar, text, delete, cancel, gr.State(None))


def wire_line_actions(manager: CityPort, labels: Labels, actions: LineActions, chatbot: Any, view_state: Any,
                      earlier: Any, hide_on: list[Any]) -> None:
    """Clicking a line opens the bar; 削除する deletes and redraws; やめる and each of `hide_on`
    (a move to another building) close it."""
    closed = [gr.Row(visible=False), None]

    def on_select(view: ChatView, evt: gr.SelectData) -> list[Any]:
        index = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        with session_lock(view):
            entry = chosen_line(manager, view, int(index), labels) if isinstance(index, int) else None
            if entry is None:
                gr.Info(labels("line_not_found"))
                return [gr.Row(visible=False), gr.skip(), None]
            try:
                plan = manager.line_deletion(str(view.building_id), entry.id)
            except LookupError:
                gr.Info(labels("line_not_found"))
                return [gr.Row(visible=False), gr.skip(), None]
        html = confirmation_html(labels, plan.entry, plan.remembered_by)
        return [gr.Row(visible=True), html, [view.building_id, entry.id]]

    def on_delete(view: ChatView, chosen: list[Any] | None) -> list[Any]:
        with session_lock(view):
            if view.busy or sending(view):
                gr.Warning(labels("line_busy"))
                return [gr.skip(), gr.skip(), gr.skip(), gr.skip()]
            if not chosen or chosen[0] != view.building_id:
                return [gr.skip(), gr.skip(), *closed]
            try:
                done = manager.delete_line(str(chosen[0]), int(chosen[1]))
            except LookupError:
                gr.Warning(labels("line_not_found"))
                return [gr.skip(), gr.skip(), *closed]
            open_building(view, manager, labels, str(view.building_id))
            view.shown = len(view.messages)
        gr.Info(deleted_message(labels, done.remembered_by))
        return [list(view.messages), gr.Button(visible=view.has_more), *closed]

    chatbot.select(on_select, view_state, [actions.bar, actions.text, actions.chosen], show_progress="hidden")
    actions.delete.click(on_delete, [view_state, actions.chosen], [chatbot, earlier, actions.bar, actions.chosen],
                         show_progress="hidden")
    actions.cancel.click(lambda: closed, None, [actions.bar, actions.chosen], show_progress="hidden")
    for trigger in hide_on:
        trigger.input(lambda: closed, None, [actions.bar, actions.chosen], show_progress="hidden")
