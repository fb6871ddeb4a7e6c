"""The chat's event handling without a browser: order of entries, one pump per session, notices once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from ui.chat import EventRenderer
from ui.chat_time import strip_time
from ui.i18n import Labels
from ui.stream import ChatView, join_running, stream_events

FALLBACK = {"type": "notice", "kind": "model_fallback", "text": "GEMINI_API_KEY が設定されていないため…"}


def _contents(messages: list[dict[str, Any]]) -> list[str]:
    return [strip_time(str(m["content"])) for m in messages]  # each line's time (ui/chat_time.py) aside


def test_a_reply_that_has_not_spoken_yet_moves_below_what_happens_meanwhile() -> None:
    messages: list[dict[str, Any]] = []
    r = EventRenderer(messages, Labels("ja"))
    r.apply({"type": "user_message", "text": "絵本を作って"})
    r.apply({"type": "pulse_start", "pulse_id": "p", "persona_name": "ソラ", "avatar": "🎨"})
    r.apply({"type": "notice", "kind": "production_started", "text": "制作を始めました"})
    r.apply({"type": "user_message", "text": "挿絵の前に表紙を入れて"})
    r.apply({"type": "notice", "kind": "production_instruction", "text": "指示を追加しました"})
    r.apply({"type": "speak_chunk", "pulse_id": "p", "persona_name": "ソラ", "delta": "できた"})
    r.apply({"type": "notice", "kind": "step_retry", "text": "もう一度"})  # after the words began: below them
    r.apply({"type": "speak", "pulse_id": "p", "persona_name": "ソラ", "text": "制作完了だよ"})
    assert _contents(messages) == ["絵本を作って", "ℹ️ 制作を始めました", "挿絵の前に表紙を入れて", "ℹ️ 指示を追加しました",
                                   "🎨 **ソラ**\n\n制作完了だよ", "ℹ️ もう一度"]


def test_a_fallback_notice_shows_once_per_send_or_not_at_all_when_muted() -> None:
    messages: list[dict[str, Any]] = []
    r = EventRenderer(messages, Labels("ja"))
    for _ in range(3):
        r.apply(FALLBACK)
    assert len(messages) == 1
    muted: list[dict[str, Any]] = []
    EventRenderer(muted, Labels("ja"), muted_notices={"model_fallback"}).apply(FALLBACK)
    assert muted == []


def test_a_second_send_joins_the_running_one() -> None:
    gate = threading.Event()

    def first() -> Iterator[dict[str, Any]]:
        yield {"type": "user_message", "text": "絵本を作って"}
        yield {"type": "pulse_start", "pulse_id": "p", "persona_name": "ソラ"}
        gate.wait(10)
        yield {"type": "speak", "pulse_id": "p", "persona_name": "ソラ", "text": "できたよ"}
        yield {"type": "pulse_end", "pulse_id": "p", "status": "ok"}

    def second() -> Iterator[dict[str, Any]]:
        yield {"type": "user_message", "text": "表紙も"}
        yield {"type": "notice", "kind": "production_instruction", "text": "指示を追加しました"}
        gate.set()

    view = ChatView(building_id="atelier", busy=True)
    updates = stream_events(view, Labels("ja"), first(), flush_sec=0.01)
    next(updates)
    assert join_running(view, second())
    html = [h for h, _ in updates]
    assert _contents(view.messages) == ["絵本を作って", "表紙も", "ℹ️ 指示を追加しました", "👤 **ソラ**\n\nできたよ"]
    assert html and view.pump is None and view.live is None
    assert not join_running(view, second())  # the pump has finished: a later send streams on its own
