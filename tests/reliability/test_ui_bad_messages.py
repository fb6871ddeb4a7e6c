"""Bad input through the UI, in real Chromium (issue 34):

- a message refused as too long (over SAIVERSE_MAX_MESSAGE_CHARS) or for a NUL stays in the input
  box with the refusal (it was cleared: the user's text lost), and nothing is stored;
- control characters (ESC, RLO) are stored as sent, but the chat shows each as a visible sign that
  changes nothing around it (`ui/chat.py::inert`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, sent, served, settle, wait_toast

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("bad-messages") / "home") as app:
        yield app


def _send(page: Any, text: str) -> Any:
    box = page.locator("#chat-input textarea")
    box.fill(text)
    mark = sent(page)
    box.press("Enter")
    settle(page, mark)
    return box


def test_a_refused_message_stays_in_the_box(running: RunningApp, page: Any) -> None:
    before = len(running.manager.history("library"))
    limit = running.manager.settings.max_message_chars
    long_text = "長" * (limit + 1)
    box = _send(page, long_text)
    wait_toast(page, "このメッセージは送れません")
    assert box.input_value() == long_text
    page.evaluate("() => { const t = document.querySelector('#chat-input textarea');"
                  " t.value = 'ぬる\\u0000文字'; t.dispatchEvent(new Event('input', {bubbles: true})); }")
    mark = sent(page)
    box.press("Enter")
    settle(page, mark)
    wait_toast(page, "NUL")
    assert box.input_value() == "ぬる\x00文字"
    assert len(running.manager.history("library")) == before  # nothing was said


def test_control_characters_are_stored_but_shown_inert(running: RunningApp, page: Any) -> None:
    text = "前\x1b[2J\x1b[31m赤\u202e逆さま\u2066後"
    _send(page, text)
    page.locator("#chat .message", has_text="逆さま").first.wait_for()
    stored = [e.content for e in running.manager.history("library") if e.speaker_kind == "user"]
    assert stored[-1] == text  # kept exactly as sent
    shown = page.locator("#chat .message", has_text="逆さま").first.inner_text()
    assert "\x1b" not in shown and "\u202e" not in shown and "\u2066" not in shown
    assert "␛[2J␛[31m赤⟨U+202E⟩逆さま⟨U+2066⟩後" in shown
