"""Issue 21's pieces in real Chromium: the 自律 switch in the chat view, each persona's model with a
link to the 設定 tab, and attachments refused in Japanese with the message kept in the box.
Screenshots go to /tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    RunningApp,
    act,
    new_page,
    open_tab,
    pick,
    sent,
    served,
    settle,
    shot,
    wait_toast,
    wait_value,
)

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    home = tmp_path_factory.mktemp("hands") / "home"
    with served(home, refresh_sec=1.0) as app:
        app.manager.admin.update_persona("mina", {"default_model": "gemini-2.5-flash"})
        yield app


def test_the_autonomy_switch_is_in_the_chat_and_remembered(running: RunningApp, browser: Any) -> None:
    running.manager.admin.update_persona("sora", {"interaction_mode": "auto"})
    with new_page(browser, running.url) as page:
        switch = page.locator("#chat-autonomy input")
        assert not switch.is_checked()
        mark = sent(page)
        switch.check()
        wait_toast(page, "自律を ON にしました。自律モードのペルソナ (ソラ)")
        settle(page, mark)
        page.wait_for_function("() => document.querySelector('#chat-autonomy input').checked")
        shot(page, "21b_autonomy_on")
        assert running.manager.autonomous  # the world's switch, in the database
    with new_page(browser, running.url) as page:  # a new window shows the world's state
        page.wait_for_function("() => document.querySelector('#chat-autonomy input').checked")
        mark = sent(page)
        page.locator("#chat-autonomy input").uncheck()
        wait_toast(page, "自律を OFF にしました")
        settle(page, mark)
        assert not page.locator("#chat-autonomy input").is_checked()
    assert not running.manager.autonomous


def test_each_persona_says_its_model_and_the_link_opens_settings(running: RunningApp, page: Any) -> None:
    notice = page.locator("#model-notice")
    notice.get_by_text("ミナ: gemini-2.5-flash — キーがないため オフライン").wait_for()
    chip = page.locator("#chat-header .sv-persona[data-persona-id='mina']")
    assert "⚠ オフライン" in chip.inner_text()
    assert "キーがないため" in (chip.get_attribute("title") or "")
    shot(page, "21b_model_line")
    notice.locator(".sv-settings-link").click()
    page.locator("#tab-settings").wait_for(state="visible")
    assert page.locator("#tab-chat").is_hidden()


def test_a_refused_attachment_says_why_in_japanese_and_keeps_the_message(
        running: RunningApp, page: Any, tmp_path: Path) -> None:
    before = len(running.manager.history("library"))
    box = page.locator("#chat-input textarea")
    box.fill("この資料を見て")
    notes = tmp_path / "メモ.txt"
    notes.write_text("ただの文字", encoding="utf-8")
    page.locator("#chat-input input[type='file']").set_input_files(str(notes))
    toast = page.locator("#sv-toast.sv-toast-show")  # the page's own refusal line (ui/attachments.py)
    toast.wait_for()
    assert "「メモ.txt」は添付できません" in toast.inner_text() and "Invalid" not in page.content()
    shot(page, "21b_refused_type")
    big = tmp_path / "大きな絵.png"
    with big.open("wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n")
        fh.truncate(running.manager.settings.max_upload_bytes + 1)
    page.locator("#chat-input input[type='file']").set_input_files(str(big))
    page.locator("#sv-toast.sv-toast-show", has_text="「大きな絵.png」は大きすぎます").wait_for()
    assert "exceed" not in page.content()
    assert box.input_value() == "この資料を見て"  # the message stays in the box, nothing was sent
    assert page.locator("#chat-input img, #chat-input .thumbnail-item").count() == 0
    assert len(running.manager.history("library")) == before


def _dup_ids(page: Any) -> list[str]:
    return page.evaluate("() => { const c = {}; document.querySelectorAll('[id]').forEach(e => {"
                         " if (e.id) c[e.id] = (c[e.id] || 0) + 1; }); return Object.keys(c).filter(k => c[k] > 1); }")


def test_delete_confirmations_have_one_element_each(running: RunningApp, page: Any) -> None:
    open_tab(page, "ワールド")
    pick(page, "world-pick", "アトリエ")
    wait_value(page, "world-name", "アトリエ")
    act(page, page.locator("#world-delete"))
    page.locator("#world-delete-confirm").get_by_text("アトリエ を削除します").wait_for()
    assert page.locator("#world-delete-confirm").count() == 1 and _dup_ids(page) == []
    act(page, page.locator("#world-delete-no"))
    open_tab(page, "ペルソナ")
    pick(page, "persona-pick", "ソラ")
    wait_value(page, "persona-name", "ソラ")
    act(page, page.locator("#persona-delete"))
    page.locator("#persona-delete-confirm").get_by_text("ソラ を削除します").wait_for()
    assert page.locator("#persona-delete-confirm").count() == 1 and _dup_ids(page) == []
