"""Deleting a chat line in real Chromium: click a line, the bar says where it goes from, 削除する
removes it from the history and the persona's SAIMemory. Desktop and 390 px screenshots go to
/tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, open_tab, pick, sent, served, settle, shot, wait_toast

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    home = tmp_path_factory.mktemp("chat_actions") / "home"
    with served(home) as app:
        yield app


def _memory(app: RunningApp, persona_id: str) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in app.manager.memory_messages(persona_id, limit=500)]


def _say(page: Any, text: str) -> None:
    replies = page.locator("#chat [data-testid='bot']").filter(has_text="ミナ")
    before = replies.count()
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")
    replies.nth(before).wait_for()  # the new reply has reached the Chatbot (the send is over)
    page.wait_for_function("() => !document.querySelector('#chat-live')?.innerText.trim()")
    settle(page)  # the send and what it set off are over: a line clicked next is the stored one


def test_delete_a_line_from_history_and_memory(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _say(page, "猫の話をしよう")
        page.locator("#chat [data-testid='user']").filter(has_text="猫の話をしよう").last.click()
        bar = page.locator("#sv-line-actions")
        bar.get_by_text("会話の履歴とミナの記憶から消します。").wait_for()
        assert "猫の話をしよう" in bar.inner_text()
        shot(page, "21c_delete_confirm")
        assert ("user", "猫の話をしよう") in _memory(running, "mina")
        act(page, page.locator("#sv-line-delete"))
        wait_toast(page, "削除しました (会話の履歴とミナの記憶から)。")
        page.wait_for_function(
            "() => !document.querySelector('#chat').innerText.includes('猫の話をしよう')")
        bar.wait_for(state="hidden")
        shot(page, "21c_deleted")
    assert all(e.content != "猫の話をしよう" for e in running.manager.history("library"))
    assert ("user", "猫の話をしよう") not in _memory(running, "mina")
    assert any(e.speaker_kind == "persona" for e in running.manager.history("library"))  # the reply stays


def test_delete_at_390px_and_cancel(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        page.set_viewport_size({"width": 390, "height": 844})
        _say(page, "今日はいい天気")
        reply = page.locator("#chat [data-testid='bot']").filter(has_text="ミナ").last
        reply.click()
        bar = page.locator("#sv-line-actions")
        bar.get_by_text("ミナの記憶から消します").wait_for()
        box = bar.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        shot(page, "21c_delete_confirm_390")
        act(page, page.locator("#sv-line-cancel"))
        bar.wait_for(state="hidden")
        lines = running.manager.history("library")
        reply_text = [e for e in lines if e.speaker_kind == "persona"][-1].content
        page.locator("#chat [data-testid='bot']").filter(has_text="ミナ").last.click()
        bar.get_by_text("ミナの記憶から消します").wait_for()
        act(page, page.locator("#sv-line-delete"))
        wait_toast(page, "削除しました (会話の履歴とミナの記憶から)。")
        bar.wait_for(state="hidden")
        assert ("assistant", reply_text) not in _memory(running, "mina")
        assert [e.id for e in running.manager.history("library")] == [e.id for e in lines[:-1]]
        shot(page, "21c_deleted_390")


def test_regenerate_the_last_reply_and_swipe_back(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _say(page, "好きな色は？")
        first = running.manager.history("library")[-1]
        page.locator("#chat [data-testid='bot']").filter(has_text="ミナ").last.click()
        bar = page.locator("#sv-line-actions")
        bar.get_by_text("ミナの記憶から消します").wait_for()  # the clicked reply is the one the bar acts on
        mark = sent(page)
        page.locator("#sv-line-regen").click()
        wait_toast(page, "返事を作り直しました (2/2)")
        bar.get_by_text("返事 2/2").wait_for()
        settle(page, mark)
        shot(page, "21c_regenerated")
        lines = running.manager.history("library")
        assert lines[-1].id == first.id and [e.content for e in lines].count("好きな色は？") == 1
        swipes = running.manager.reply_swipes("library", first.id)
        assert swipes is not None and len(swipes.answers) == 2 and swipes.chosen == 1
        act(page, page.locator("#sv-line-prev"))
        bar.get_by_text("返事 1/2").wait_for()
        assert page.locator("#sv-line-next").is_visible() and not page.locator("#sv-line-prev").is_visible()
        assert running.manager.history("library")[-1].content == first.content
        assert ("assistant", first.content) in _memory(running, "mina")
        shot(page, "21c_swipe_back")
    with new_page(browser, running.url) as page:  # a phone sees the same answers
        page.set_viewport_size({"width": 390, "height": 844})
        page.locator("#chat [data-testid='bot']").filter(has_text="ミナ").last.click()
        page.locator("#sv-line-actions").get_by_text("返事 1/2").wait_for()
        box = page.locator("#sv-line-next").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390
        shot(page, "21c_swipe_390")


def test_edit_your_last_message_redoes_the_reply(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _say(page, "猫が好き")
        page.locator("#chat [data-testid='user']").last.hover()
        page.locator("#chat button[aria-label='編集']").last.click()
        box = page.locator("#chat textarea").first
        page.wait_for_function("() => document.querySelector('#chat textarea')?.value === '猫が好き'")
        box.fill("犬が好き")
        shot(page, "21c_edit_box")
        page.locator("#chat button[aria-label='送信']").first.click()
        wait_toast(page, "メッセージを直して、返事を作り直しました")
        page.locator("#chat [data-testid='user']").filter(has_text="犬が好き").wait_for()
        shot(page, "21c_edited")
    texts = [(e.speaker_kind, e.content) for e in running.manager.history("library")]
    assert ("user", "猫が好き") not in texts and texts[-2] == ("user", "犬が好き") and texts[-1][0] == "persona"
    memory = _memory(running, "mina")
    assert ("user", "猫が好き") not in memory and ("user", "犬が好き") in memory


def test_search_this_buildings_chat(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _say(page, "灯台の本を探しています")
        page.locator("#sv-chat-search").get_by_text("この建物の会話を検索").click()
        box = page.locator("#sv-chat-search-box textarea, #sv-chat-search-box input").first
        box.fill("灯台")
        box.press("Enter")
        found = page.locator("#sv-chat-found li")
        found.first.wait_for()
        assert "灯台の本を探しています" in found.first.inner_text() and "あなた" in found.first.inner_text()
        shot(page, "21c_search")
        box.fill("存在しない言葉")
        box.press("Enter")
        page.get_by_text("「存在しない言葉」を含む行はありません。").wait_for()
        page.set_viewport_size({"width": 390, "height": 844})
        page.locator(".sv-more-btn").click()  # on a phone, search folds away under ⋯ (issue 35)
        box.fill("灯台")
        box.press("Enter")
        found.first.wait_for()
        shot(page, "21c_search_390")


def test_an_avatar_uploaded_in_the_personas_tab_is_drawn_in_chips_and_chat(
        running: RunningApp, browser: Any, tmp_path: Any) -> None:
    import io

    from PIL import Image

    picture = tmp_path / "mina.png"
    buf = io.BytesIO()
    Image.new("RGB", (64, 64), "teal").save(buf, "PNG")
    picture.write_bytes(buf.getvalue())
    with new_page(browser, running.url) as page:
        open_tab(page, "ペルソナ")
        pick(page, "persona-pick", "ミナ")
        page.locator("#persona-avatar-panel").get_by_text("アバター画像").click()
        page.locator("#persona-avatar-file input[type='file']").set_input_files(str(picture))
        page.locator("#persona-avatar-status .sv-ok", has_text="ミナ のアバター画像を設定しました。").wait_for()
        shot(page, "21c_avatar_upload")
    assert (running.manager.world.persona("mina").avatar_image or "").startswith("icons/")
    with new_page(browser, running.url) as page:  # chips and the chat draw the picture
        chip = page.locator("#chat-header .sv-persona[data-persona-id='mina'] img.sv-avatar-img")
        chip.wait_for()
        _say(page, "絵を見せて")
    with new_page(browser, running.url) as page:  # stored lines are drawn with the picture
        page.wait_for_function(
            "() => [...document.querySelectorAll('#chat img.sv-avatar-img')].some(i => i.naturalWidth === 64)")
        assert page.evaluate("() => document.querySelector('#chat-header img.sv-avatar-img').naturalWidth") == 64
        shot(page, "21c_avatar_chat")
