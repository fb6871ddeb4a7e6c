"""Per-line actions of the chat: click a line, and a bar under the chat offers to delete it, to
regenerate the last reply, to continue it when it stopped before its end (▶ 続きを生成: the answer length
cut it or the user stopped it; the continuation joins the same line), to pick another of its answers
(‹ n/m ›) or to pin it (📌: always in the prompt of the personas who remember it, saiverse/pulse/_sight.py;
pressed again, it unpins); the Chatbot's own ✎ on your last message edits it (its reply is redone; the old
reply is deleted, not kept), its ↻ regenerates.

The bar is the confirmation: it quotes the line and says where it goes from — the chat history and
the memory of the personas who remember it (「会話の履歴とミナの記憶から消します」), or the history
only — as `CityPort.line_deletion` found it. Deleting calls `CityPort.delete_line`, then redraws the
window's building. A line is found by what the Chatbot shows at the clicked place (the window's
`ChatView.messages`) among the building's stored lines, so lines that arrived by a send (rendered
from events, not read back) are found too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.chat import history_messages, inert
from ui.chat_time import clock, strip_time
from ui.i18n import Labels
from ui.session import sending, session_lock
from ui.stream import PAGE, ChatView, open_building

_TIME_ANYWHERE = re.compile(r'\s*<span class="sv-time">[^<]*</span>\s*')
QUOTE_CHARS = 60
EDIT_BOX_JS = """
() => {
  // The Chatbot's ✎ box holds the bubble's Markdown: leave the time line (ui/chat_time.py) out of it.
  const clean = (ta) => {
    const v = ta.value.replace(/\\s*<span class="sv-time">[^<]*<\\/span>\\s*$/, '');
    if (v !== ta.value) { ta.value = v; ta.dispatchEvent(new Event('input', {bubbles: true})); }
  };
  const watch = () => {
    const chat = document.querySelector('#chat');
    if (!chat) { setTimeout(watch, 300); return; }
    new MutationObserver(() => chat.querySelectorAll('textarea').forEach((ta) => {
      if (!ta.dataset.svClean) { ta.dataset.svClean = '1'; clean(ta); }
    })).observe(chat, {childList: true, subtree: true});
  };
  watch();
}
"""
"""Run once per page (`wire_line_actions` adds it to the page's load)."""
"""How much of the chosen line the bar quotes."""


_HEADER = re.compile(r"^[^\n]*?(\*\*[^\n]*\*\*\n\n)")
"""A persona bubble's first line up to its bold name: the avatar before it differs between a line
drawn from events (the emoji) and one read back (a picture), so lines are compared without it."""


def _same(text: str) -> str:
    return _HEADER.sub(r"\1", strip_time(text), count=1)


def chosen_line(manager: CityPort, view: ChatView, index: int, labels: Labels) -> Any | None:
    """The stored history line shown at `index` of the window's chat, or None (a notice rendered from
    an event, an error line, or a line deleted meanwhile).

    Of the stored lines rendered the same way, the one nearest the same place from the end is taken
    (the same words said twice are two lines)."""
    if view.building_id is None or not 0 <= index < len(view.messages):
        return None
    want = _same(str(view.messages[index].get("content") or ""))
    entries = manager.history(view.building_id, limit=max(PAGE, len(view.messages) + PAGE))
    rendered = history_messages(entries, {}, labels)
    found = [i for i, m in enumerate(rendered) if _same(str(m["content"])) == want]
    if not found:
        return None
    from_end = len(view.messages) - index
    return entries[min(found, key=lambda i: abs((len(rendered) - i) - from_end))]


def confirmation_html(labels: Labels, entry: Any, remembered_by: list[str]) -> str:
    """The bar's text: the line quoted with its time, and where deleting removes it from."""
    content = inert(entry.content)
    quoted = content if len(content) <= QUOTE_CHARS else content[:QUOTE_CHARS] + "…"
    where = (labels("line_from_both", names=labels("list_sep").join(remembered_by)) if remembered_by
             else labels("line_from_history"))
    chosen = labels("line_chosen", time=clock(entry.created_at), text=quoted)
    return f'<div class="sv-line-chosen">{escape(chosen)}</div><div class="sv-line-where">{escape(where)}</div>'


def deleted_message(labels: Labels, remembered_by: list[str]) -> str:
    """The toast after a delete, saying where the line was removed from."""
    if remembered_by:
        return labels("line_deleted_both", names=labels("list_sep").join(remembered_by))
    return labels("line_deleted_history")


def found_html(labels: Labels, query: str, entries: list[Any]) -> str:
    """The search's results: each line with its time and who said it, newest first."""
    if not query.strip():
        return ""
    if not entries:
        return f'<div class="sv-empty">{escape(labels("chat_search_none", q=query.strip()))}</div>'
    rows = []
    for e in entries:
        who = labels("you") if e.speaker_kind == "user" else (e.speaker_name or "")
        content = inert(e.content)
        text = content if len(content) <= 120 else content[:120] + "…"
        when = escape(clock(e.created_at))
        rows.append(f'<li data-history-id="{int(e.id)}"><span class="sv-found-time">{when}</span> '
                    f'<b>{escape(who)}</b> {escape(text)}</li>')
    head = escape(labels("chat_search_count", n=len(entries)))
    return f'<div class="sv-found-head">{head}</div><ul class="sv-found">{"".join(rows)}</ul>'


def edited_text(value: str) -> str:
    """What the person wrote in the Chatbot's edit box, without the time line the bubble carried."""
    return _TIME_ANYWHERE.sub("", value).strip()


def swipe_html(labels: Labels, swipes: Any) -> str:
    """The chosen answer's place among a reply's answers, e.g. 「返事 2/3」 (empty for one answer)."""
    if swipes is None or len(swipes.answers) < 2:
        return ""
    said = labels("line_swipe", n=swipes.chosen + 1, of=len(swipes.answers))
    return f'<div class="sv-line-swipe">{escape(said)}</div>'


@dataclass
class LineActions:
    """The bar under the chat (hidden until a line is clicked) and the chosen line it holds."""

    bar: Any
    text: Any
    prev: Any
    next: Any
    regen: Any
    pin: Any
    delete: Any
    cancel: Any
    chosen: Any
    search: Any
    found: Any
    go_on: Any

    def outputs(self) -> list[Any]:
        return [self.bar, self.text, self.chosen, self.prev, self.next, self.regen, self.pin, self.go_on]


def build_line_actions(labels: Labels) -> LineActions:
    """The search box (folded) and the bar (call where they sit, right under the Chatbot)."""
    with gr.Accordion(labels("chat_search"), open=False, elem_id="sv-chat-search"):
        search = gr.Textbox(show_label=False, label=labels("chat_search"), container=False,
                            placeholder=labels("chat_search_placeholder"), elem_id="sv-chat-search-box", max_length=200)
        found = gr.HTML("", elem_id="sv-chat-found")
    with gr.Row(visible=False, elem_id="sv-line-actions") as bar:
        text = gr.HTML("", elem_id="sv-line-text")
        prev = gr.Button("‹", elem_id="sv-line-prev", size="sm", scale=0, min_width=40, visible=False)
        nxt = gr.Button("›", elem_id="sv-line-next", size="sm", scale=0, min_width=40, visible=False)
        regen = gr.Button(labels("line_regenerate"), elem_id="sv-line-regen", size="sm", scale=0, min_width=100,
                          visible=False)
        go_on = gr.Button(labels("line_continue"), elem_id="sv-line-continue", size="sm", scale=0, min_width=110,
                          visible=False, variant="primary")
        pin = gr.Button(labels("line_pin"), elem_id="sv-line-pin", size="sm", scale=0, min_width=100, visible=False)
        delete = gr.Button(labels("line_delete"), elem_id="sv-line-delete", variant="stop", size="sm", scale=0,
                           min_width=100)
        cancel = gr.Button(labels("line_cancel"), elem_id="sv-line-cancel", size="sm", scale=0, min_width=70)
    return LineActions(bar, text, prev, nxt, regen, pin, delete, cancel, gr.State(None), search, found, go_on)


def _closed() -> list[Any]:
    return [gr.Row(visible=False), gr.skip(), None, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()]


def _bar(manager: CityPort, labels: Labels, view: ChatView, history_id: int) -> list[Any]:
    """The bar for line `history_id`: what deleting removes, its answers (‹ n/m ›), 再生成 on the last reply,
    📌 to pin it in the memory of those who remember it (or to unpin it)."""
    bid = str(view.building_id)
    try:
        plan = manager.line_deletion(bid, history_id)
        swipes = manager.reply_swipes(bid, history_id)
        pinned = bool(manager.sight.line_pins(bid, history_id))
    except LookupError:
        gr.Info(labels("line_not_found"))
        return _closed()
    latest = manager.history(bid, limit=1)
    last_reply = plan.entry.speaker_kind == "persona" and bool(latest) and latest[-1].id == history_id
    many = swipes is not None and len(swipes.answers) > 1
    html = swipe_html(labels, swipes) + confirmation_html(labels, plan.entry, plan.remembered_by)
    chosen = [bid, history_id, swipes.chosen if swipes is not None else 0]
    return [gr.Row(visible=True), html, chosen, gr.Button(visible=many and swipes.chosen > 0),  # type: ignore[union-attr]
            gr.Button(visible=many and swipes.chosen < len(swipes.answers) - 1),  # type: ignore[union-attr]
            gr.Button(visible=last_reply),
            gr.Button(visible=bool(plan.memory_ids), value=labels("line_unpin" if pinned else "line_pin")),
            gr.Button(visible=last_reply and bool(latest[-1].cut))]


def _events_said(events: Any) -> str | None:
    """The message of the first error among a regenerate's events (None when it went well)."""
    for ev in events:
        if ev.get("type") == "error":
            return str(ev.get("message") or "")
    return None


def wire_line_actions(manager: CityPort, labels: Labels, actions: LineActions, chatbot: Any, view_state: Any,
                      earlier: Any, hide_on: list[Any], demo: Any = None) -> None:
    """Clicking a line opens the bar; its buttons delete, regenerate or pick another answer and redraw;
    やめる and each of `hide_on` (a move to another building) close it. The Chatbot's own ↻ on the
    last reply regenerates too."""
    outs = actions.outputs()

    def redraw(view: ChatView) -> list[Any]:
        open_building(view, manager, labels, str(view.building_id))
        view.shown = len(view.messages)
        return [list(view.messages), gr.Button(visible=view.has_more)]

    def on_select(view: ChatView, evt: gr.SelectData) -> list[Any]:
        index = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        with session_lock(view):
            entry = chosen_line(manager, view, int(index), labels) if isinstance(index, int) else None
            if entry is None:
                gr.Info(labels("line_not_found"))
                return _closed()
            return _bar(manager, labels, view, entry.id)

    def usable(view: ChatView, chosen: list[Any] | None) -> bool:
        if view.busy or sending(view):
            gr.Warning(labels("line_busy"))
            return False
        return bool(chosen) and chosen[0] == view.building_id  # type: ignore[index]

    def on_delete(view: ChatView, chosen: list[Any] | None) -> list[Any]:
        with session_lock(view):
            if not usable(view, chosen):
                return [gr.skip(), gr.skip(), *_closed()]
            try:
                done = manager.delete_line(str(chosen[0]), int(chosen[1]))  # type: ignore[index]
            except LookupError:
                gr.Warning(labels("line_not_found"))
                return [gr.skip(), gr.skip(), *_closed()]
            chat = redraw(view)
        gr.Info(deleted_message(labels, done.remembered_by))
        return [*chat, *_closed()]

    def on_pin(view: ChatView, chosen: list[Any] | None) -> list[Any]:
        with session_lock(view):
            if not chosen or chosen[0] != view.building_id:
                return _closed()
            bid, hid = str(chosen[0]), int(chosen[1])
            try:
                if manager.sight.line_pins(bid, hid):
                    done = manager.sight.unpin_line(bid, hid)
                    gr.Info(labels("line_unpinned", names=labels("list_sep").join(done.who)))
                else:
                    done = manager.sight.pin_line(bid, hid)
                    names = labels("list_sep").join(done.who)
                    said = labels("line_pinned" if done.fits else "line_pinned_over", names=names)
                    (gr.Info if done.fits else gr.Warning)(said)
            except LookupError:
                gr.Warning(labels("line_not_found"))
                return _closed()
            except ValueError:  # nobody remembers it (LongTermMemoryError)
                gr.Warning(labels("line_pin_nobody"))
                return _closed()
            return _bar(manager, labels, view, hid)

    def on_swipe(step: int) -> Any:
        def handler(view: ChatView, chosen: list[Any] | None) -> list[Any]:
            with session_lock(view):
                if not usable(view, chosen):
                    return [gr.skip(), gr.skip(), *_closed()]
                try:
                    manager.choose_swipe(str(chosen[0]), int(chosen[1]), int(chosen[2]) + step)  # type: ignore[index]
                except (LookupError, ValueError) as exc:
                    gr.Warning(str(exc))
                    return [gr.skip(), gr.skip(), *_closed()]
                return [*redraw(view), *_bar(manager, labels, view, int(chosen[1]))]  # type: ignore[index]
        return handler

    def _rewrite(view: ChatView, run: Callable[[str], Any], said: Callable[[dict[str, Any]], str]) -> list[Any]:
        """↻ and ▶ 続きを生成 alike: refused while a reply runs, else the redrawn chat and the line's bar."""
        with session_lock(view):
            if view.busy or sending(view) or not view.building_id:
                gr.Warning(labels("line_busy"))
                return [gr.skip(), gr.skip(), *_closed()]
            events = list(run(str(view.building_id)))
            problem = _events_said(events)
            chat = redraw(view)
            if problem is not None:
                gr.Warning(problem)
                return [*chat, *_closed()]
            done = events[-1]
            gr.Info(said(done))
            return [*chat, *_bar(manager, labels, view, int(done["history_id"]))]

    def on_regen(view: ChatView) -> list[Any]:
        return _rewrite(view, manager.regenerate,
                        lambda done: labels("line_regenerated", n=done["chosen"] + 1, of=len(done["answers"])))

    def on_continue(view: ChatView) -> list[Any]:
        return _rewrite(view, manager.continue_reply,
                        lambda done: labels("line_continued_cut" if done.get("cut") else "line_continued"))

    def on_edit(view: ChatView, evt: gr.EditData) -> list[Any]:
        index = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        new_text = edited_text(str(evt.value or ""))
        with session_lock(view):
            if view.busy or sending(view) or not view.building_id:
                gr.Warning(labels("line_busy"))
                return [list(view.messages), gr.skip(), *_closed()]
            entry = chosen_line(manager, view, int(index), labels) if isinstance(index, int) else None
            users = [e for e in manager.history(str(view.building_id), limit=50) if e.speaker_kind == "user"]
            if entry is None or not users or users[-1].id != entry.id:
                gr.Warning(labels("line_edit_last_only"))
                return [list(view.messages), gr.skip(), *_closed()]
            if new_text == entry.content:
                return [list(view.messages), gr.skip(), *_closed()]
            problem = _events_said(manager.edit_last_message(str(view.building_id), new_text))
            chat = redraw(view)
        if problem is not None:
            gr.Warning(problem)
        else:
            gr.Info(labels("line_edited"))
        return [*chat, *_closed()]

    def on_search(view: ChatView, query: str) -> str:
        if not view.building_id:
            return ""
        try:
            return found_html(labels, query or "", manager.search_chat(str(view.building_id), query or ""))
        except LookupError as exc:
            gr.Warning(str(exc))
            return ""

    actions.search.submit(on_search, [view_state, actions.search], actions.found, show_progress="hidden")
    both = [chatbot, earlier, *outs]
    if demo is not None:
        demo.load(None, None, None, js=EDIT_BOX_JS)
    chatbot.edit(on_edit, view_state, both, show_progress="minimal")
    chatbot.select(on_select, view_state, outs, show_progress="hidden")
    actions.delete.click(on_delete, [view_state, actions.chosen], both, show_progress="hidden")
    actions.prev.click(on_swipe(-1), [view_state, actions.chosen], both, show_progress="hidden")
    actions.next.click(on_swipe(+1), [view_state, actions.chosen], both, show_progress="hidden")
    actions.regen.click(on_regen, view_state, both, show_progress="minimal")
    actions.go_on.click(on_continue, view_state, both, show_progress="minimal")
    actions.pin.click(on_pin, [view_state, actions.chosen], outs, show_progress="hidden")
    chatbot.retry(on_regen, view_state, both, show_progress="minimal")
    actions.cancel.click(_closed, None, outs, show_progress="hidden")
    for trigger in hide_on:
        trigger.input(_closed, None, outs, show_progress="hidden")
        trigger.input(lambda: ["", ""], None, [actions.search, actions.found], show_progress="hidden")
