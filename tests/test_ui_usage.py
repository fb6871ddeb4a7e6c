"""Cost in sight, in real Chromium: after a chat the 設定 tab's 💰 利用量 shows the persona's tokens and
their price; the person edits the price table and gives the persona a daily budget; once it is used up her
next answer comes from the local model, with a notice in the chat that says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, open_tab, pick, served, shot, textbox
from tests.support.models import ScriptedModel

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

MODEL = ScriptedModel(follows_instructions=False)
MODEL.name = "gpt-4.1"  # type: ignore[misc]  # a priced cloud model


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("usage") / "home", model=MODEL) as app:
        yield app


def _say(page: Any, text: str) -> None:
    replies = page.locator("#chat [data-testid='bot']").filter(has_text="ミナ")
    before = replies.count()
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")
    replies.nth(before).wait_for()
    page.wait_for_function("() => !document.querySelector('#chat-live')?.innerText.trim()")


def test_usage_prices_and_a_budget(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _say(page, "こんにちは")
        open_tab(page, "設定")
        table = page.locator("#usage-table")
        table.get_by_text("gpt-4.1").first.wait_for()
        assert "ミナ" in table.inner_text() and "$0.0" in table.inner_text()
        # The price table is the person's: double gpt-4.1's output price and save it.
        pick(page, "usage-price-model", "gpt-4.1")
        page.wait_for_function("() => document.querySelector('#usage-price-out input').value === '8'")
        textbox(page, "usage-price-out").fill("16")
        act(page, page.locator("#usage-prices-save"))
        page.locator("#usage-prices-status", has_text="料金表の gpt-4.1 を保存しました").wait_for()
        page.locator("#usage-prices", has_text="$16").wait_for()
        assert running.manager.costs.price_of("gpt-4.1").output == 16.0  # type: ignore[union-attr]
        # A budget already used up today.
        pick(page, "usage-budget-persona", "ミナ")
        textbox(page, "usage-budget-usd").fill("0.000001")
        act(page, page.locator("#usage-budget-save"))
        page.locator("#usage-budget-status", has_text="ミナ の予算を保存しました").wait_for()
        page.locator("#usage-table", has_text="予算超過").wait_for()
        shot(page, "35_usage_panel")
        open_tab(page, "チャット")
        asked = len(MODEL.history)
        _say(page, "もう少し話そう")
        page.locator("#chat").get_by_text("今日の予算", exact=False).first.wait_for()
        shot(page, "35_usage_budget_notice")
    assert len(MODEL.history) == asked  # the priced model was not asked again
    assert running.manager.costs.budgets() == {"mina": 0.000001}
