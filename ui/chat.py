"""The chat panel's logic: building history → Chatbot messages, and pulse events → live messages.

The manager's building history is the source of truth: every send starts from it and then applies
the events of `handle_user_input` as they arrive, so the view never drifts from what was stored.
No Gradio import here — the app wires these functions to components.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from typing import Any
from uuid import uuid4

from ui.chat_time import with_time
from ui.i18n import Labels

Message = dict[str, Any]
"""A Chatbot message in the messages format: {"role", "content", optional "metadata"}."""
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters that change what is shown around them: C0/C1 controls but tab and line breaks (ESC starts
a terminal's escape sequences) and the bidirectional marks, embeddings, overrides and isolates (an RLO
turns the rest of the line around). Issue 34: stored and shown raw."""


def inert(text: str) -> str:
    """`text` as the chat shows it: each control character as a visible sign that changes nothing around
    it (`␛` for ESC, `⟨U+202E⟩` for an RLO). What is stored keeps the characters as they were sent."""
    def sign(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code < 0x20:
            return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
        return "␡" if code == 0x7F else f"⟨U+{code:04X}⟩"

    return _CONTROL.sub(sign, text)


ONCE_PER_SEND = frozenset({"model_fallback"})
"""Notice kinds a pulse may repeat (every model call of it falls back alike) that the chat shows once."""
ONCE_PER_SESSION = frozenset({"model_suggest_pull", "decision_fallback"})
"""Notice kinds the chat shows once per browser session (the small model's "pull a better one"; a weak
model's decisions made by the rules, sea/decisions.py)."""


def persona_header(name: str, avatar: str | None) -> str:
    """The first line of a persona's chat bubble: avatar + bold name."""
    return f"{avatar or '👤'} **{name}**"


def gone_avatar(name: str) -> str:
    """The avatar of a persona no longer in the city (deleted): the first letter of its name in a circle."""
    first = (name or "?").strip()[:1] or "?"
    return f'<span class="sv-avatar-gone" title="{escape(name or "")}">{escape(first)}</span>'


def persona_message(name: str, avatar: str | None, text: str, when: Any = None) -> Message:
    """A persona's bubble; the name is shown in the text because the Chatbot has no per-message name.
    `when` (the stored time, or the moment it was said) is its last line."""
    return {"role": "assistant", "content": with_time(f"{persona_header(name, avatar)}\n\n{inert(text)}", when)}


def system_message(text: str) -> Message:
    """A notice or error line, kept visually apart from persona speech by its prefix."""
    return {"role": "assistant", "content": inert(text)}


def history_messages(entries: list[Any], avatars: dict[str, str], labels: Labels) -> list[Message]:
    """Stored building history (oldest first) → Chatbot messages."""
    messages: list[Message] = []
    for entry in entries:
        when = getattr(entry, "created_at", None)
        if entry.speaker_kind == "user":
            messages.append({"role": "user", "content": with_time(inert(entry.content), when)})
        elif entry.speaker_kind == "persona":
            avatar = avatars.get(entry.speaker_id or "") or gone_avatar(entry.speaker_name)
            said = cut_text(entry.content, getattr(entry, "cut", ""), labels)  # a line from elsewhere may have none
            messages.append(persona_message(entry.speaker_name, avatar, said, when))
        else:
            messages.append(system_message(with_time(labels("notice", text=entry.content), when)))
    return messages


def cut_text(text: str, cut: str, labels: Labels) -> str:
    """A reply's text, with the mark of a reply that stopped before its end (`cut`: `length`, `stopped`)
    saying it can be continued; drawn alike live and from the history, so a click finds the line."""
    if cut not in ("length", "stopped"):
        return text
    return f"{text}\n\n{labels('reply_cut_' + cut)}"


@dataclass
class _Reply:
    """A persona bubble being streamed: where it sits in the list and what it says so far."""

    index: int
    name: str
    avatar: str | None
    text: str = ""
    final: bool = False
    cut: str = ""
    persona_id: str = ""
    say: str = field(default_factory=lambda: uuid4().hex[:12])
    """The bubble's key for the page's voice (ui/voice.py reads it from the live strip as `data-say`)."""


@dataclass
class EventRenderer:
    """Applies pulse events to a message list, in place.

    `apply` returns True when the building's contents changed (an item was created or updated), so
    the caller refreshes the side panel without a page reload.
    """

    messages: list[Message]
    labels: Labels
    image_path_of: Callable[[str], str | None] = lambda _item_id: None
    replies: dict[str, _Reply] = field(default_factory=dict)
    shown_notices: set[str] = field(default_factory=set)
    """Notice kinds shown once per send (a model fallback repeats for every model call of a pulse)."""
    muted_notices: set[str] = field(default_factory=set)
    """Notice kinds never shown in the chat (the line under the chat already says it)."""
    once_shown: set[str] = field(default_factory=set)
    """ONCE_PER_SESSION kinds already shown (the session's own set, ui/stream.py ChatView)."""
    avatars: dict[str, str] = field(default_factory=dict)
    """Persona id → its avatar (a picture's HTML where it has one), as history lines draw it."""
    cut_said: set[str] = field(default_factory=set)
    """Pulses whose reply was kept cut (stopped): their cancelled end adds no second mark."""

    def _append(self, message: Message) -> None:
        """Add an entry in the order things happened: a reply that has not said anything yet moves
        below it, so its words appear where they were said, not where the persona began thinking."""
        waiting = sorted((r for r in self.replies.values() if not r.final and not r.text), key=lambda r: r.index)
        for reply in reversed(waiting):
            del self.messages[reply.index]
            for other in self.replies.values():
                if other.index > reply.index:
                    other.index -= 1
        self.messages.append(message)
        for reply in waiting:
            self.messages.append({"role": "assistant", "content": ""})
            reply.index = len(self.messages) - 1
            self._render(reply)

    def _key(self, ev: dict[str, Any]) -> str:
        return str(ev.get("pulse_id") or ev.get("persona_id") or "")

    def _render(self, reply: _Reply) -> None:
        text = cut_text(reply.text, reply.cut, self.labels) if reply.text else self.labels("thinking")
        # A finished reply shows when it was said, like the stored line it now is.
        self.messages[reply.index] = persona_message(reply.name, reply.avatar, text,
                                                     datetime.now() if reply.final else None)
        # Read by ui/live.py only (the Chatbot ignores keys it does not know): which bubble, whose, finished.
        self.messages[reply.index].update(say=reply.say, persona=reply.persona_id, said=reply.final)

    def _open(self, ev: dict[str, Any]) -> _Reply:
        """The bubble of this pulse, creating it when the pulse speaks without a pulse_start."""
        key = self._key(ev)
        reply = self.replies.get(key)
        if reply is None or reply.final:
            self.messages.append({"role": "assistant", "content": ""})
            reply = _Reply(len(self.messages) - 1, ev.get("persona_name") or "?", None)
            self.replies[key] = reply
        reply.persona_id = reply.persona_id or str(ev.get("persona_id") or "")
        if not reply.avatar:  # a picture, as the stored line will draw it, else the event's emoji
            reply.avatar = self.avatars.get(str(ev.get("persona_id") or "")) or ev.get("avatar")
        return reply

    def apply(self, ev: dict[str, Any]) -> bool:
        """Render one event; True when the side panel should refresh."""
        kind = ev.get("type")
        if kind == "user_message":
            self._append({"role": "user", "content": with_time(inert(str(ev.get("text", ""))), datetime.now())})
        elif kind == "pulse_start":
            self._render(self._open(ev))
        elif kind == "speak_chunk":
            reply = self._open(ev)
            reply.text += str(ev.get("delta", ""))
            self._render(reply)
        elif kind in ("speak", "say"):
            reply = self._open(ev)
            # The final text replaces the streamed chunks: it is what was stored in the history.
            reply.text = str(ev.get("text", "")) or reply.text
            reply.final = True
            reply.cut = str(ev.get("cut") or "")
            if reply.cut:
                self.cut_said.add(self._key(ev))
            self._render(reply)
        elif kind == "notice":
            self._notice(ev)
        elif kind == "error" and ev.get("kind") == "cancelled":
            pass  # pulse_end(status=cancelled) marks the bubble; a second error line would be noise
        elif kind == "error":
            message, name = ev.get("message", ""), ev.get("persona_name")
            line = self.labels("error_from", name=name, message=message) if name else self.labels(
                "error", message=message
            )
            self._append(system_message(line))
        elif kind == "pulse_end":
            self._close(ev)
        elif kind == "data-plan_update":
            return True  # the plan panel in the side panel shows it
        elif kind in ("item_created", "item_updated"):
            if kind == "item_created":
                self._show_upload(ev.get("item") or {})
            return True
        return False

    def _notice(self, ev: dict[str, Any]) -> None:
        """A notice line, unless muted or (for a once-per-send kind) already shown."""
        kind = str(ev.get("kind") or "")
        if kind in self.muted_notices or (kind in ONCE_PER_SEND and kind in self.shown_notices):
            return
        if kind in ONCE_PER_SESSION:
            if kind in self.once_shown:
                return
            self.once_shown.add(kind)
        self.shown_notices.add(kind)
        self._append(system_message(self.labels("notice", text=ev.get("text", ""))))

    def _close(self, ev: dict[str, Any]) -> None:
        """End of a pulse: an empty bubble becomes '(no reply)' or, after an error, disappears;
        a cancelled pulse keeps what it said so far, marked as stopped."""
        reply = self.replies.pop(self._key(ev), None)
        if ev.get("status") == "cancelled" and self._key(ev) in self.cut_said:
            return  # kept as said, its mark drawn already
        if ev.get("status") == "cancelled":
            if reply is None:
                reply = self._open(ev)
                self.replies.pop(self._key(ev), None)
            reply.text = f"{reply.text}\n\n{self.labels('cancelled')}".strip()
            self._render(reply)
            return
        if reply is None or reply.text:
            return
        if ev.get("status", "ok") == "ok":
            reply.text = self.labels("no_reply")
            self._render(reply)
            return
        del self.messages[reply.index]
        for other in self.replies.values():
            if other.index > reply.index:
                other.index -= 1

    def _show_upload(self, item: dict[str, Any]) -> None:
        """An uploaded picture appears in the chat as the user's image (the user's text line follows)."""
        if item.get("type") != "picture" or (item.get("state") or {}).get("created_by") != "user_upload":
            return
        path = self.image_path_of(str(item.get("item_id", "")))
        if path:
            self._append({"role": "user", "content": {"path": path, "alt_text": item.get("name", "")}})
