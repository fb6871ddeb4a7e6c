"""The live strip under the chat: what is being said right now, before it joins the history.

Re-rendering the Chatbot costs the browser time in proportion to the messages it holds (with 200
lines, ~100 ms per update in headless Chromium), so streaming a reply token by token into it would
re-render the whole history per update. Instead, the exchange in progress — the user's line and the
replies still streaming — lives in a small HTML strip below the chat (`#chat-live`), and each entry
moves into the Chatbot once it is complete (a reply's final `speak`, an error, the pulse's end).
The Chatbot then changes once per finished reply, never per token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ui.chat import EventRenderer, Message
from ui.chat_time import strip_time
from ui.i18n import Labels

_HEADER = re.compile(r"^(.*?)\*\*(.+?)\*\*\n\n", re.S)
HELD = ("user_message", "item_created", "pulse_start", "speak_chunk")
"""Events that never move entries into the Chatbot by themselves: the user's line (and upload)
waits in the strip with the first reply, so the first token costs no Chatbot re-render."""


@dataclass
class LiveRenderer:
    """Applies pulse events: complete entries go to `messages`, the rest stays in `pending`."""

    messages: list[Message]
    labels: Labels
    image_path_of: Any = lambda _item_id: None
    pending: list[Message] = field(default_factory=list)
    muted_notices: set[str] = field(default_factory=set)
    """Notice kinds not shown in the chat (ui/chat.py EventRenderer)."""
    once_shown: set[str] = field(default_factory=set)
    """Once-per-session notice kinds already shown (the session's set)."""
    avatars: dict[str, str] = field(default_factory=dict)
    """Persona id → its avatar (ui/chat.py EventRenderer)."""

    def __post_init__(self) -> None:
        self._inner = EventRenderer(self.pending, self.labels, image_path_of=self.image_path_of,
                                    muted_notices=self.muted_notices, once_shown=self.once_shown,
                                    avatars=self.avatars)

    def apply(self, ev: dict[str, Any]) -> tuple[bool, bool]:
        """Render one event; returns (messages changed, side panel should refresh)."""
        panel = self._inner.apply(ev)
        if ev.get("type") in HELD:
            return False, panel
        return self._commit(), panel

    def _commit(self) -> bool:
        """Move the complete prefix of `pending` into `messages` (order is kept exactly)."""
        open_at = {r.index for r in self._inner.replies.values() if not r.final}
        k = 0
        while k < len(self.pending) and k not in open_at:
            k += 1
        if not k:
            return False
        self.messages.extend(self.pending[:k])
        del self.pending[:k]
        for reply in self._inner.replies.values():
            reply.index -= k
        # Final replies left in the table (until their pulse_end) now point before the strip.
        for key in [key for key, r in self._inner.replies.items() if r.index < 0]:
            del self._inner.replies[key]
        return True

    def html(self) -> str:
        """The strip's HTML: one bubble per pending entry ('' when nothing is in progress)."""
        return "".join(live_bubble(m) for m in self.pending)


def live_bubble(message: Message) -> str:
    """One pending entry as an escaped bubble (plain text: the Chatbot renders the final markdown)."""
    content = message.get("content")
    match = None
    if isinstance(content, dict):  # an uploaded picture
        text, name = f"🖼 {content.get('alt_text') or ''}", ""
    else:
        text, name = strip_time(str(content or "")), ""
        match = _HEADER.match(text)
        if match:
            # A picture avatar is the Chatbot's to draw (the strip is escaped text): the name alone here.
            avatar = "" if match.group(1).lstrip().startswith("<") else match.group(1)
            name, text = f"{avatar}{match.group(2)}", text[match.end():]
    role = "user" if message.get("role") == "user" else "bot"
    head = f'<div class="sv-live-name">{escape(name)}</div>' if name else ""
    say = ""
    if message.get("say") and match:  # a persona's words: the page's voice says them (ui/voice.py)
        say = (f' data-say="{escape(str(message["say"]))}" data-persona="{escape(str(message.get("persona") or ""))}"'
               f' data-name="{escape(match.group(2))}" data-final="{1 if message.get("said") else 0}"')
    return f'<div class="sv-live-row sv-live-{role}"{say}><div class="sv-live-bubble">{head}' \
           f'<div class="sv-live-text">{escape(text)}</div></div></div>'
