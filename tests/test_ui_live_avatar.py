"""A reply streamed in draws the persona's picture like its stored line does (ui/chat.py, ui/live.py)."""

from __future__ import annotations

from ui.i18n import Labels
from ui.live import LiveRenderer, live_bubble

PICTURE = '<img class="sv-avatar sv-avatar-img" alt="📚" src="/gradio_api/file=/h/icons/mina.png">'


def _events() -> list[dict[str, str]]:
    base = {"pulse_id": "p1", "persona_id": "mina", "persona_name": "ミナ", "avatar": "📚"}
    return [{"type": "pulse_start", **base}, {"type": "speak_chunk", "delta": "こんに", **base},
            {"type": "speak", "text": "こんにちは", **base}, {"type": "pulse_end", "status": "ok", **base}]


def test_a_streamed_reply_takes_the_picture_avatar() -> None:
    messages: list[dict[str, object]] = []
    renderer = LiveRenderer(messages, Labels("ja"), avatars={"mina": PICTURE})
    for ev in _events():
        renderer.apply(ev)
    assert len(messages) == 1 and str(messages[0]["content"]).startswith(PICTURE)


def test_without_a_picture_the_emoji_stays_and_the_strip_never_shows_markup() -> None:
    messages: list[dict[str, object]] = []
    renderer = LiveRenderer(messages, Labels("ja"))
    for ev in _events()[:2]:
        renderer.apply(ev)
    assert "📚" in renderer.html()
    picture = LiveRenderer([], Labels("ja"), avatars={"mina": PICTURE})
    for ev in _events()[:2]:
        picture.apply(ev)
    strip = picture.html()
    assert "ミナ" in strip and "&lt;img" not in strip and "<img" not in strip
    assert "sv-live-name" in live_bubble({"role": "assistant", "content": "📚 **ミナ**\n\nやあ"})
