"""Pins and 「この人に見えているもの」 in real Chromium: a chat line's bar pins it (📌) and unpins it, and
the メモリ tab shows what the persona would be given for a message, part by part, with the pin in it.
Desktop and 390 px screenshots go to /tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, open_tab, pick, served, settle, shot, textbox, wait_toast

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]
P = "mina"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("sight") / "home") as app:
        yield app


def _say(page: Any, text: str) -> None:
    replies = page.locator("#chat [data-testid='bot']").filter(has_text="ミナ")
    before = replies.count()
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")
    replies.nth(before).wait_for()
    page.wait_for_function("() => !document.querySelector('#chat-live')?.innerText.trim()")
    settle(page)


def _pinned(app: RunningApp) -> list[str]:
    return [p.content for p in app.manager.sight.persona_pins(P)]


def _show(page: Any, message: str) -> Any:
    open_tab(page, "メモリ")
    pick(page, "memory-persona", "ミナ")
    tab = page.locator("#memory-subtabs button[role='tab']", has_text="見えているもの")
    tab.click()
    page.wait_for_function("el => el.getAttribute('aria-selected') === 'true'", arg=tab.element_handle())
    textbox(page, "sight-message").fill(message)
    act(page, page.locator("#sight-show"))
    view = page.locator("#sight-view")
    view.locator("#sight-parts").wait_for()
    return view


def test_pin_a_line_and_see_it_in_her_prompt(running: RunningApp, browser: Any) -> None:
    # Before anything recalls (recall keeps a persona's message count for a minute, its IDF's N).
    when = datetime.now() - timedelta(days=10)
    memory = running.manager.memory
    memory.add(P, "user", "駅前のさくらクリニックで診てもらったら、寝不足と眼精疲労だって。", tags=["conversation"],
               created_at=when)
    for i in range(450):  # more than a prompt holds verbatim (what it shows is not recalled again)
        memory.add(P, "user" if i % 2 == 0 else "assistant", f"今日は雨だったね。夕ごはんはカレー（{i}）。",
                   tags=["conversation"], created_at=when + timedelta(days=1, minutes=10 * i))
    with new_page(browser, running.url) as page:
        _say(page, "私の猫の名前はモカです")
        page.locator("#chat [data-testid='user']").filter(has_text="私の猫の名前はモカです").last.click()
        bar = page.locator("#sv-line-actions")
        pin = page.locator("#sv-line-pin")
        pin.filter(has_text="ピン留め").wait_for()
        shot(page, "33_pin_bar")
        act(page, pin)
        wait_toast(page, "ミナの記憶にピン留めしました")
        pin.filter(has_text="ピンを外す").wait_for()  # the same button now unpins
        assert _pinned(running) == ["私の猫の名前はモカです"]
        assert bar.is_visible()
        ask = "猫の名前と、眼精疲労のこと、覚えてる？"
        view = _show(page, ask)
        text = view.inner_text()
        assert f"ミナに図書館で「{ask}」と言うと" in text and "予算 8,000 トークン" in text
        recalled = view.locator(".sv-sight-recalled").inner_text()
        assert "さくらクリニック" in recalled and "が一致" in recalled and when.strftime("%Y-%m-%d") in recalled
        for part in ("システムプロンプト", "ピン留め", "ふと思い出したこと", "最近の会話", "このメッセージ"):
            assert part in text
        assert "私の猫の名前はモカです" in view.locator(".sv-sight-pins").inner_text()
        assert "入る" in view.locator(".sv-sight-pins").inner_text()
        pinned_tokens = view.locator("#sight-parts tr[data-part='pinned'] td").nth(1).inner_text()
        assert int(pinned_tokens.replace(",", "")) > 0
        shot(page, "33_sight_desktop")
        view.locator(".sv-sight-pins").scroll_into_view_if_needed()
        shot(page, "33_sight_recalled_desktop")
        view.locator("details.sv-sight-full summary").click()
        view.locator("#sight-system", has_text="いつも覚えておくこと（ピン留め）").wait_for()
        shot(page, "33_sight_full_desktop")
        tab = page.locator("#memory-subtabs button[role='tab']", has_text="メッセージ")
        tab.click()
        page.locator("#memory-table td", has_text="📌").first.wait_for()  # the pinned message is marked


def test_phone_width_view_and_unpin(running: RunningApp, browser: Any) -> None:
    if not _pinned(running):
        mid = running.manager.memory.add(P, "user", "合言葉はしろくま", tags=["conversation"])["id"]
        running.manager.sight.pin(P, mid)
    before = len(_pinned(running))
    with new_page(browser, running.url) as page:
        view = _show(page, "合言葉は？")  # opened on the desktop tab bar (a phone reaches the tabs through its menu)
        page.set_viewport_size({"width": 390, "height": 844})
        settle(page)
        box = view.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        shot(page, "33_sight_390")
        act(page, page.locator("#sight-unpin"))
        wait_toast(page, "ピンを外しました")
        if before == 1:
            page.locator("#sight-view", has_text="ピン留めはありません").wait_for()
        shot(page, "33_unpinned_390")
    assert len(_pinned(running)) == before - 1


def test_the_reflex_switch(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        view = _show(page, "合言葉は？")
        switch = page.locator("#sight-reflex input[type='checkbox']")
        assert switch.is_checked()  # on by default
        act(page, switch)
        wait_toast(page, "反射想起をオフにしました")
        assert not running.manager.sight.reflex_on(P)
        act(page, page.locator("#sight-show"))
        view.filter(has_text="この人の反射想起はオフです").wait_for()
        act(page, switch)
        wait_toast(page, "反射想起をオンにしました")
    assert running.manager.sight.reflex_on(P)


def test_english_labels(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> None:
    with served(tmp_path_factory.mktemp("sight-en") / "home", lang="en") as app, new_page(browser, app.url) as page:
        open_tab(page, "Memory")
        tab = page.locator("#memory-subtabs button[role='tab']", has_text="What they see")
        tab.click()
        page.wait_for_function("el => el.getAttribute('aria-selected') === 'true'", arg=tab.element_handle())
        textbox(page, "sight-message").fill("Do you remember me?")
        act(page, page.locator("#sight-show"))
        view = page.locator("#sight-view")
        view.locator("#sight-parts").wait_for()
        text = view.inner_text()
        assert "budget" in text and "System prompt" in text and "Pinned lines" in text
        shot(page, "33_sight_en")
