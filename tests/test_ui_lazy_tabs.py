"""Tabs built on their first opening (ui/lazy_tab.py), in real Chromium: the page starts without
their contents, a tab's first opening shows the world as it is then (not as it was at start), a
half-filled form stays while the person looks at another tab, a later opening refreshes the lists,
and every window builds its own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import RunningApp, new_page, open_tab, served, shot, textbox, wait_value

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("lazy") / "home") as app:
        yield app


def test_tab_is_built_on_opening_and_keeps_what_was_typed(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        # Nothing of the persona form is in the page before its tab is opened.
        assert page.locator("#persona-name").count() == 0
        # Made after the app started, before the tab opened: the first opening shows it.
        running.manager.admin.create_persona({"name": "ツバメ", "avatar": "🐦", "building_id": "library"})
        open_tab(page, "ペルソナ")
        page.locator("#persona-table", has_text="ツバメ").wait_for()
        # The 🙂 avatar box comes with a value and is still editable (interactive as at start).
        assert textbox(page, "persona-avatar").is_enabled()
        textbox(page, "persona-name").fill("書きかけ")
        textbox(page, "persona-avatar").fill("🦉")
        open_tab(page, "ワールド")
        page.locator("#building-table table").wait_for()
        running.manager.admin.create_persona({"name": "カモメ", "avatar": "🐤", "building_id": "library"})
        open_tab(page, "ペルソナ")
        # Not rebuilt: what was typed stays; refreshed: the persona made meanwhile is listed.
        page.locator("#persona-table", has_text="カモメ").wait_for()
        wait_value(page, "persona-name", "書きかけ")
        wait_value(page, "persona-avatar", "🦉")
        assert page.locator("#persona-name").count() == 1
        shot(page, "lazy_persona_kept")
        # Another window builds its own tab, with an empty form.
        with new_page(browser, running.url) as other:
            open_tab(other, "ペルソナ")
            other.locator("#persona-table", has_text="カモメ").wait_for()
            wait_value(other, "persona-name", "")
