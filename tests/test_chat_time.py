"""A time on every chat line (ui/chat_time.py): stored lines carry their stored time, lines
rendered from events the moment they were said; the live strip shows the text without it."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

import pytest

from ui.chat import EventRenderer, history_messages
from ui.chat_time import clock, strip_time, with_time
from ui.i18n import Labels
from ui.live import live_bubble

NOW = datetime(2026, 11, 25, 10, 30)


def test_clock_says_the_day_only_when_it_is_not_today() -> None:
    assert clock("2026-11-25 09:05:00.123", NOW) == "09:05"
    assert clock("2026-11-24T23:59:00", NOW) == "11/24 23:59"
    assert clock("2025-01-02 08:00:00", NOW) == "2025/1/2 08:00"
    assert clock("", NOW) == "" and clock("not a time", NOW) == "" and clock(None, NOW) == ""
    assert with_time("やあ", "garbage") == "やあ"
    assert strip_time(with_time("やあ", NOW)) == "やあ"


def test_every_history_line_and_every_finished_event_line_has_a_time() -> None:
    entries = [
        SimpleNamespace(speaker_kind="user", speaker_id="user", speaker_name="あなた", content="こんにちは",
                        created_at="2026-11-24 10:00:00"),
        SimpleNamespace(speaker_kind="persona", speaker_id="mina", speaker_name="ミナ", content="ようこそ",
                        created_at="2026-11-24 10:00:05"),
        SimpleNamespace(speaker_kind="system", speaker_id=None, speaker_name="", content="移動しました",
                        created_at="2026-11-24 10:01:00"),
    ]
    messages = history_messages(entries, {"mina": "📚"}, Labels("ja"))
    assert all('<span class="sv-time">11/24 10:0' in m["content"] for m in messages), messages
    assert strip_time(messages[1]["content"]) == "📚 **ミナ**\n\nようこそ"

    live: list[dict[str, str]] = []
    r = EventRenderer(live, Labels("ja"))
    r.apply({"type": "user_message", "text": "やあ"})
    r.apply({"type": "pulse_start", "pulse_id": "p", "persona_name": "ミナ", "avatar": "📚"})
    assert "sv-time" not in live[1]["content"]  # still thinking: no time yet
    r.apply({"type": "speak", "pulse_id": "p", "persona_name": "ミナ", "text": "どうも"})
    assert all("sv-time" in m["content"] for m in live)
    assert "sv-time" not in live_bubble(live[1]) and "どうも" in live_bubble(live[1])


def test_the_memory_tab_shows_stored_utc_times_on_the_local_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from ui.chat_time import local_stamp

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert local_stamp("2026-11-24T23:30:00+00:00") == "2026-11-25 08:30:00"  # SAIMemory's UTC
        assert local_stamp("2026-11-25 08:30:00.123456") == "2026-11-25 08:30:00"  # a naive time is local already
        assert local_stamp(None) == "" and local_stamp("not a time") == "not a time"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
