"""A calm chat while a slow model works: the user's line once, one live area above the input,
notices in the order things happened, a placed instruction, a line instead of silence, and a
fallback notice shown once. Screenshots go to /tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, new_page, served, settle, shot, start_app
from tests.support.models import ScriptedModel

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]
REQUEST = "絵本を作って: 猫の冒険"
INSTRUCTION = "挿絵の前に表紙を入れて"
BOOK = [  # the plan the (scripted) model answers with: the picture-book template
    {"capability": "researcher", "title": "題材集め", "instruction": "猫の冒険の題材を集める"},
    {"capability": "writer", "title": "あらすじと登場人物", "instruction": "あらすじを考える", "depends_on": [1]},
    {"capability": "writer", "title": "本文", "instruction": "各ページの文章を書く", "depends_on": [2]},
    {"capability": "visualizer", "title": "挿絵", "instruction": "場面ごとの絵を描く", "depends_on": [2]},
    {"capability": "data_analyst", "title": "製本", "instruction": "ひとつにまとめる", "depends_on": [3, 4]},
]


@pytest.fixture(scope="module")
def model() -> ScriptedModel:
    """A model at a remote model's pace: every answer takes a while, replies stream slowly."""
    return ScriptedModel(follows_instructions=True, chunk_delay=0.04, generate_delay=1.2)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, model: ScriptedModel) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("calm") / "home", model=model, refresh_sec=1.0) as app:
        yield app


def _open(browser: Any, running: RunningApp, building: str) -> Any:
    running.manager.move_user(building)
    return new_page(browser, running.url)


def _texts(page: Any) -> list[str]:
    """Every entry in the chat and the live strip, top to bottom (each line's time left out)."""
    return page.locator("#chat .message, #chat-live .sv-live-row").evaluate_all(
        "els => els.map(e => { const c = e.cloneNode(true); c.querySelectorAll('.sv-time').forEach(t => t.remove());"
        " document.body.appendChild(c); const t = c.innerText; c.remove(); return t; })")


def _assert_live_area_is_calm(page: Any) -> None:
    assert page.locator("#chat-live").count() == 1
    # One read of the three boxes: read one by one, a streamed line landing between the reads
    # moves the strip and the notice apart in time and they seem to overlap.
    live, notice, box = page.evaluate("() => ['#chat-live', '#model-notice', '#chat-input'].map(s => {"
                                      " const r = document.querySelector(s).getBoundingClientRect();"
                                      " return {y: r.top, height: r.height}; })")
    assert live["y"] + live["height"] <= notice["y"] + 1 <= box["y"] + 1  # never over the notice or the input
    overflow = page.evaluate("() => { const e = document.querySelector('#chat-live');"
                             " const r = e.getBoundingClientRect();"
                             " return [...e.querySelectorAll('.sv-live-row')].every("
                             " c => c.getBoundingClientRect().bottom <= r.bottom + 1"
                             " || getComputedStyle(e).overflowY === 'auto'); }")
    assert overflow


def test_a_production_keeps_the_chat_calm(running: RunningApp, browser: Any, model: ScriptedModel) -> None:
    model.enqueue(when="次の作業者で実行する計画", data={"steps": BOOK})
    ctx = _open(browser, running, "atelier")
    with ctx as page:
        page.wait_for_selector("#chat-header :text('アトリエ')")
        box = page.locator("#chat-input textarea")
        box.fill(REQUEST)
        box.press("Enter")
        page.locator("#plan-panel .sv-step").nth(4).wait_for(timeout=60_000)
        box.fill(INSTRUCTION)
        box.press("Enter")
        page.get_by_text("制作中の計画に指示を追加しました").first.wait_for(timeout=60_000)
        _assert_live_area_is_calm(page)
        assert sum(REQUEST == t.strip() for t in _texts(page)) == 1  # the user's line once, even mid-run
        assert sum(INSTRUCTION == t.strip() for t in _texts(page)) == 1
        shot(page, "c01_production_running")
        page.locator("#chat .message", has_text="頼まれたものを作").last.wait_for(timeout=120_000)
        page.wait_for_function("() => !document.querySelector('#chat-live .sv-live-row')")
        shot(page, "c02_production_done")
        texts = _texts(page)
        order = [next(i for i, t in enumerate(texts) if needle in t) for needle in (
            REQUEST, "制作を始めました", INSTRUCTION, "制作中の計画に指示を追加しました", "頼まれたものを作")]
        assert order == sorted(order), texts  # notices where they happened; the reply after them
        assert sum(REQUEST == t.strip() for t in texts) == 1 and sum(INSTRUCTION == t.strip() for t in texts) == 1
        assert not any("計画を読み取れなかった" in t for t in texts)  # the scripted plan was taken
        steps = page.locator("#plan-panel .sv-step").all_inner_texts()
        titles = page.locator("#plan-panel .sv-step-title").all_inner_texts()  # rows also say when they ran
        assert any("表紙" in t for t in titles) and INSTRUCTION not in " ".join(steps)
        assert [i for i, s in enumerate(steps) if "表紙" in s][0] < [i for i, s in enumerate(steps) if "挿絵" in s][0]
    plan = running.manager.production.current_plan("atelier")["plan"]
    assert [s["title"] for s in plan] == ["題材集め", "あらすじと登場人物", "本文", "表紙", "挿絵", "製本"]


def test_a_long_exchange_scrolls_inside_the_live_area(running: RunningApp, browser: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def busy_events(building_id: str, text: str, *_a: Any, **_kw: Any) -> Iterator[dict[str, Any]]:
        yield {"type": "user_message", "text": text}
        yield {"type": "pulse_start", "pulse_id": "p", "persona_name": "ソラ", "avatar": "🎨"}
        yield {"type": "speak_chunk", "pulse_id": "p", "persona_name": "ソラ", "delta": "とても長い話を始めるよ。\n" * 40}
        time.sleep(4)
        yield {"type": "speak", "pulse_id": "p", "persona_name": "ソラ", "text": "おしまい"}
        yield {"type": "pulse_end", "pulse_id": "p", "status": "ok"}

    monkeypatch.setattr(running.manager, "handle_user_input", busy_events)
    ctx = _open(browser, running, "atelier")
    with ctx as page:
        page.wait_for_selector("#chat-header :text('アトリエ')")
        page.locator("#chat-input textarea").fill("長い話をして")
        page.locator("#chat-input textarea").press("Enter")
        page.locator("#chat-live").get_by_text("とても長い話を始めるよ").first.wait_for()
        _assert_live_area_is_calm(page)
        live = page.locator("#chat-live")
        assert live.evaluate("e => e.scrollHeight > e.clientHeight")  # it scrolls inside its own box
        page.wait_for_function("() => { const e = document.querySelector('#chat-live');"
                               " return e.scrollTop + e.clientHeight >= e.scrollHeight - 2; }")  # at its newest
        shot(page, "c03_long_live_strip")
        page.locator("#chat .message", has_text="おしまい").wait_for()


def test_a_message_nobody_answers_says_who_is_where(running: RunningApp, browser: Any) -> None:
    ctx = _open(browser, running, "museum")
    with ctx as page:
        page.wait_for_selector("#chat-header :text('美術館')")
        page.locator("#chat-input textarea").fill("誰かいますか")
        page.locator("#chat-input textarea").press("Enter")
        line = page.locator("#chat .message", has_text="返事をする人がいません")
        line.wait_for()
        text = line.inner_text()
        assert "ミナは図書館" in text and "ソラはアトリエ" in text and "移動" in text
        shot(page, "c04_nobody_here")


def test_a_model_fallback_notice_shows_once(tmp_path: Path, browser: Any) -> None:
    app = start_app(tmp_path / "home", model=None)
    try:
        app.manager.admin.save_settings({"default_model": "gemini-2.5-flash"})  # and no key
        with new_page(browser, app.url) as page:
            page.wait_for_selector("#chat-header :text('図書館')")
            page.locator("#chat-input textarea").fill("こんにちは")
            page.locator("#chat-input textarea").press("Enter")
            page.locator("#chat .message", has_text="ミナ").last.wait_for()
            settle(page)  # the send is over: a second notice would be on the page by now
            center = page.locator("#sv-center").inner_text()
            assert center.count("GEMINI_API_KEY が設定されていない") == 1, center
            shot(page, "c05_fallback_notice_once")
    finally:
        app.close()
