"""The real window in real Chromium: building list, streamed chat, item modal, upload, moving.

One server per module (its own temp data home, seeded: the user starts in 図書館 with ミナ 📚;
図書館 holds 古い鍵 and SAIVerse使い方ガイド, 美術館 holds 星空の絵). Each test opens a fresh
page and first puts the user back in 図書館, so the tests do not depend on their order.
Screenshots go to /tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides).
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, send_for_reply, served, shot, start_app, wait_toast
from ui.chat import EventRenderer
from ui.chat_time import strip_time
from ui.i18n import Labels

# Gradio's queue trips pandas 3 deprecation warnings that are not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:::gradio.queueing")
browser_test = pytest.mark.browser

GUIDE = "SAIVerse使い方ガイド"
KEY = "古い鍵"
PICTURE = "星空の絵"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("ui") / "home") as app:
        yield app


def _item_id(running: RunningApp, building_id: str, name: str) -> str:
    items = running.manager.building_view(building_id)["items"]
    return next(i.item_id for i in items if i.name == name)


def _open_item(page: Any, name: str) -> Any:
    page.locator("#item-list [data-item-id]", has_text=name).first.click()
    modal = page.locator("#item-modal")
    modal.wait_for(state="visible")
    page.locator("#item-modal-title", has_text=name).wait_for()
    return modal


def _close_modal(page: Any) -> None:
    page.locator("#item-modal-close").click()
    page.locator("#item-modal").wait_for(state="detached")


@browser_test
def test_page_shows_buildings_chat_and_side_panel(running: RunningApp, page: Any) -> None:
    select = page.locator("#building-select")
    for name in ("エントランス", "図書館", "美術館", "アトリエ"):
        assert select.get_by_text(name, exact=True).is_visible()
    assert select.locator("input[value='library']").is_checked()
    assert "ミナ" in page.locator("#chat-header").inner_text()
    panel = page.locator("#building-panel").inner_text()
    assert "図書館" in panel and "ミナ" in panel
    items = page.locator("#item-list")
    assert items.locator("[data-item-type='object']", has_text=KEY).is_visible()
    assert items.locator("[data-item-type='document']", has_text=GUIDE).is_visible()
    assert page.locator("#chat-input textarea").is_visible()
    assert "オフライン" in page.locator("#model-notice").inner_text()
    assert page.locator("#item-modal").count() == 0
    shot(page, "01_loaded")


@browser_test
def test_message_gets_a_streamed_persona_reply(running: RunningApp, page: Any) -> None:
    reply = send_for_reply(page, "こんにちは、おすすめの本はありますか？")
    assert "ミナ" in reply.inner_text()
    page.wait_for_function("document.querySelector('#chat-input textarea').value === ''")
    shot(page, "02_chat_reply")
    # The reply was stored: a reload shows it from the building history.
    page.reload()
    page.locator("#chat .message", has_text="オフライン").first.wait_for()


@browser_test
def test_document_opens_edits_and_saves(running: RunningApp, page: Any) -> None:
    item_id = _item_id(running, "library", GUIDE)
    path = running.home / running.manager.item(item_id).file_path
    before_disk = path.read_text(encoding="utf-8")
    modal = _open_item(page, GUIDE)
    text = page.locator("#item-modal-text textarea")
    text.wait_for()
    assert "SAIVerse の使い方" in text.input_value()
    assert text.input_value().strip() == before_disk.strip()
    old_summary = page.locator("#item-modal-summary").inner_text()
    shot(page, "03_document_modal")

    new_text = "図書館の新しい案内\n\n閉館時間は夜九時です。静かに本を読みましょう。"
    text.fill(new_text)
    act(page, page.locator("#item-modal-save"))
    page.locator("#item-modal-status .sv-ok").wait_for()
    assert path.read_text(encoding="utf-8").strip() == new_text.strip()
    summary = page.locator("#item-modal-summary")
    page.wait_for_function(
        "old => document.querySelector('#item-modal-summary').innerText !== old", arg=old_summary
    )
    stored = running.manager.item(item_id).description
    assert stored and "閉館時間" in stored
    assert stored[:20] in summary.inner_text()
    assert modal.is_visible()
    shot(page, "04_document_saved")
    _close_modal(page)


@browser_test
def test_object_is_not_viewable(running: RunningApp, page: Any) -> None:
    _open_item(page, KEY)
    page.locator("#item-modal-not-viewable", has_text="閲覧不可").wait_for()
    assert page.locator("#item-modal-image img").count() == 0
    assert not page.locator("#item-modal-save").is_visible()
    shot(page, "05_object_modal")
    page.keyboard.press("Escape")  # Escape closes the dialog as well as the close button does
    page.locator("#item-modal").wait_for(state="detached")


@browser_test
def test_move_to_museum_and_view_picture(running: RunningApp, page: Any) -> None:
    page.locator("#building-select").get_by_text("美術館", exact=True).click()
    page.locator("#chat-header", has_text="美術館").wait_for()
    page.locator("#item-list [data-item-id]", has_text=PICTURE).wait_for()
    assert running.manager.user_building() == "museum"
    assert page.locator("#item-list", has_text=GUIDE).count() == 0
    _open_item(page, PICTURE)
    img = page.locator("#item-modal-image img")
    img.wait_for()
    page.wait_for_function(
        "() => { const i = document.querySelector('#item-modal-image img');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    shot(page, "06_picture_modal")
    _close_modal(page)
    shot(page, "07_museum")


@browser_test
def test_uploaded_image_becomes_a_picture_item(running: RunningApp, page: Any, tmp_path: Path) -> None:
    from PIL import Image

    image = tmp_path / "夕焼け.png"
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (230, 120, 60)).save(buf, format="PNG")
    image.write_bytes(buf.getvalue())
    before = len(running.manager.building_view("library")["items"])

    page.locator("#chat-input input[type='file']").set_input_files(str(image))
    page.locator("#chat-input img, #chat-input .thumbnail-item").first.wait_for()
    box = page.locator("#chat-input textarea")
    box.fill("夕焼けの写真です")
    box.press("Enter")
    new_item = page.locator("#item-list [data-item-type='picture']", has_text="夕焼け").first
    new_item.wait_for()
    # The upload is one new item (the reply may add more: the router can pick image generation).
    items = running.manager.building_view("library")["items"]
    assert len(items) >= before + 1
    assert any(i.type == "picture" and (i.state or {}).get("created_by") == "user_upload" for i in items)
    page.locator("#chat .message", has_text="夕焼けの写真です").first.wait_for()
    shot(page, "08_uploaded")
    _open_item(page, "夕焼け")
    page.locator("#item-modal-image img").wait_for()
    _close_modal(page)


@browser_test
def test_unknown_item_click_warns_without_traceback(running: RunningApp, page: Any) -> None:
    # A stale list (the item was removed elsewhere) must not break the window.
    page.evaluate(
        "() => { const b = document.querySelector('#item-list [data-item-id]');"
        " b.dataset.itemId = 'no-such-item'; b.click(); }"
    )
    message = wait_toast(page, "no-such-item").inner_text()
    assert "no-such-item" in message and "Traceback" not in message
    assert page.locator("#item-modal").count() == 0


@browser_test
def test_english_labels(tmp_path: Path, browser: Any) -> None:
    app = start_app(tmp_path / "home-en", lang="en")
    try:
        with new_page(browser, app.url) as page:
            assert page.locator("#building-select").get_by_text("Buildings").is_visible()
            assert "Items" in page.locator("#item-list").inner_text()
            assert "Type a message" in (page.locator("#chat-input textarea").get_attribute("placeholder") or "")
            _open_item(page, KEY)
            assert "Close" in page.locator("#item-modal-close").inner_text()
            page.locator("#item-modal-not-viewable", has_text="cannot be viewed").wait_for()
            _close_modal(page)
    finally:
        app.close()


def test_renderer_streams_chunks_then_final_text_for_each_persona() -> None:
    messages: list[dict[str, Any]] = []
    r = EventRenderer(messages, Labels("ja"))
    r.apply({"type": "user_message", "text": "やあ"})
    r.apply({"type": "pulse_start", "pulse_id": "p1", "persona_name": "ミナ", "avatar": "📚"})
    assert "ミナ" in messages[-1]["content"] and "…" in messages[-1]["content"]
    r.apply({"type": "speak_chunk", "pulse_id": "p1", "persona_name": "ミナ", "delta": "こん"})
    r.apply({"type": "speak_chunk", "pulse_id": "p1", "persona_name": "ミナ", "delta": "にちは"})
    assert messages[-1]["content"].endswith("こんにちは")
    r.apply({"type": "speak", "pulse_id": "p1", "persona_name": "ミナ", "text": "こんにちは！"})
    r.apply({"type": "pulse_end", "pulse_id": "p1", "status": "ok"})
    # The second persona answers in turn; its failed pulse leaves an error line, not an empty bubble.
    r.apply({"type": "pulse_start", "pulse_id": "p2", "persona_name": "ソラ", "avatar": "🎨"})
    r.apply({"type": "error", "pulse_id": "p2", "persona_name": "ソラ", "message": "モデルが応答しません"})
    r.apply({"type": "pulse_end", "pulse_id": "p2", "status": "error"})
    # A reply may also come as one speak event with no pulse_start or chunks.
    r.apply({"type": "speak", "pulse_id": "p3", "persona_name": "ソラ", "avatar": "🎨", "text": "描けたよ"})
    contents = [strip_time(m["content"]) for m in messages]  # each line's time (ui/chat_time.py) aside
    assert "sv-time" in messages[0]["content"] and "sv-time" in messages[1]["content"]
    assert contents[0] == "やあ"
    assert contents[1] == "📚 **ミナ**\n\nこんにちは！"
    assert contents[2] == "⚠️ ソラ のエラー: モデルが応答しません"
    assert contents[3] == "🎨 **ソラ**\n\n描けたよ"
    assert len(messages) == 4
    assert r.apply({"type": "item_created", "item": {"type": "document", "item_id": "x"}}) is True


@browser_test
def test_chunks_render_while_the_pulse_runs(
    running: RunningApp, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow event source: the first chunk is on screen before the rest exists."""

    def slow_events(building_id: str, text: str, attachments: Any = (), **_kw: Any) -> Iterator[dict[str, Any]]:
        yield {"type": "user_message", "text": text}
        for pid, name, avatar in (("s1", "ミナ", "📚"), ("s2", "ソラ", "🎨")):
            yield {"type": "pulse_start", "pulse_id": pid, "persona_name": name, "avatar": avatar}
            yield {"type": "speak_chunk", "pulse_id": pid, "persona_name": name, "delta": f"{name}の前半"}
            time.sleep(1.5)
            yield {"type": "speak_chunk", "pulse_id": pid, "persona_name": name, "delta": "と後半"}
            yield {"type": "speak", "pulse_id": pid, "persona_name": name, "text": f"{name}の最終稿です"}
            yield {"type": "pulse_end", "pulse_id": pid, "status": "ok"}

    monkeypatch.setattr(running.manager, "handle_user_input", slow_events)
    page.locator("#chat-input textarea").fill("順番にどうぞ")
    page.locator("#chat-input textarea").press("Enter")
    # Chunks stream into the live strip under the chat; a finished reply moves into the chat.
    live, chat = page.locator("#chat-live"), page.locator("#chat")
    live.get_by_text("ミナの前半").wait_for()
    assert page.locator("#sv-center").get_by_text("ミナの最終稿です").count() == 0
    assert live.get_by_text("順番にどうぞ").count() == 1  # the user's line waits with the reply
    shot(page, "09_streaming")
    chat.get_by_text("ミナの最終稿です").wait_for()
    chat.get_by_text("ソラの最終稿です").wait_for()
    assert chat.get_by_text("順番にどうぞ").count() == 1
    assert page.locator("#sv-center").get_by_text("ミナの前半").count() == 0  # the final text replaced the chunks
    assert live.inner_text().strip() == ""
