"""Tabs built on their first opening (ui/lazy_tab.py), in real Chromium: the page starts without
their contents, a tab's first opening shows the world as it is then (not as it was at start), a
half-filled form stays while the person looks at another tab, a later opening refreshes the lists,
and every window builds its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saiverse.errors import UserError
from tests.support.browser import RunningApp, act, new_page, open_tab, served, shot, textbox, wait_value
from ui.i18n import Labels
from ui.lazy_tab import failure_reason

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



def test_a_tab_that_cannot_be_built_says_why_and_opens_again(
        running: RunningApp, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> Any:
        raise RuntimeError("a bug in the tab's builder")

    with new_page(browser, running.url) as page:
        # The メモリ tab's builder lists the personas first; here that fails, as a bug would.
        monkeypatch.setattr(running.manager, "personas", broken)
        open_tab(page, "メモリ")
        failed = page.locator("#tab-memory-failed")
        failed.wait_for()
        assert "このタブを開けませんでした" in failed.inner_text()
        assert "RuntimeError" in failed.inner_text()
        assert "a bug in" not in failed.inner_text()  # a bug's details go to the log, not the page
        shot(page, "lazy_tab_failed")
        monkeypatch.undo()
        act(page, page.locator("#tab-memory-retry"))
        page.locator("#memory-persona").wait_for()
        assert page.locator("#tab-memory-failed").count() == 0
        # Built once it worked: another tab and back keeps it as built, not built again.
        open_tab(page, "ワールド")
        open_tab(page, "メモリ")
        page.locator("#memory-persona").wait_for()
        assert page.locator("#memory-persona").count() == 1


def test_a_locked_database_is_told_in_the_persons_words(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # another program writing
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            writer.execute("INSERT INTO t VALUES (1)")
    finally:
        writer.close()
        holder.close()
    ja, en = Labels("ja"), Labels("en")
    assert "ロックされています" in failure_reason(caught.value, ja)
    assert "locked by another program" in failure_reason(caught.value, en)
    assert failure_reason(UserError("ペルソナ「x」は見つかりません"), ja) == "ペルソナ「x」は見つかりません"
    assert failure_reason(KeyError("k"), en) == "an internal error (KeyError); the app's log has the details"


def test_every_side_tab_names_a_builder_that_exists() -> None:
    from importlib import import_module

    from ui.app import TABS

    for _key, _tab_id, where in TABS:
        module, _, name = where.partition(":")
        assert callable(getattr(import_module(module), name, None)), where
