"""The メモリ tab's Chronicle and Memopedia panels, in real Chromium (screenshots in /tmp/saiverse-shots/)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, chromium, new_page, open_tab, pick, served, shot, textbox, wait_value
from tests.support.ltm_helpers import converse

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore:::gradio.queueing")]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("memory-ui") / "home") as app:
        app.manager.chronicle_worker.stop()  # the test presses the build button itself
        yield app


@pytest.fixture
def page(running: RunningApp) -> Iterator[Any]:
    with chromium() as browser, new_page(browser, running.url) as p:
        open_tab(p, "メモリ")
        pick(p, "memory-persona", "ミナ")
        yield p


def _subtab(page: Any, name: str) -> None:
    tab = page.locator("#memory-subtabs button[role='tab']", has_text=name)
    tab.click()
    page.wait_for_function("el => el.getAttribute('aria-selected') === 'true'", arg=tab.element_handle())


def test_chronicle_panel_builds_and_browses_by_level(running: RunningApp, page: Any) -> None:
    converse(running.manager, 130, start=datetime(2026, 1, 3, 9))
    _subtab(page, "Chronicle")
    act(page, page.locator("#chronicle-build"))
    page.locator("#chronicle-status", has_text="あらすじを 3 件書きました").wait_for()
    table = page.locator("#chronicle-table")
    table.get_by_text("「星座」「図書館」").first.wait_for()
    assert "Lv.1 3" in table.inner_text()
    pick(page, "chronicle-pick", "2026-01-03 09:00")
    page.locator("#chronicle-detail", has_text="星座の話をしよう。").first.wait_for()
    shot(page, "memory_chronicle")
    textbox(page, "chronicle-until").fill("2025-12-31")
    act(page, page.locator("#chronicle-show"))
    page.locator("#chronicle-table", has_text="あらすじはまだありません").wait_for()
    textbox(page, "chronicle-until").fill("1月3日")
    act(page, page.locator("#chronicle-show"))
    page.locator("#chronicle-status .sv-error", has_text="YYYY-MM-DD").wait_for()
    wait_value(page, "chronicle-until", "1月3日")  # the refused date stays in the box to be corrected


def test_memopedia_panel_edits_with_history_and_refuses_bad_input(running: RunningApp, page: Any) -> None:
    if running.manager.chronicle.count("mina") == 0:  # the export below holds all three kinds
        converse(running.manager, 70, start=datetime(2026, 1, 3, 9))
        running.manager.build_chronicle("mina")
    store = running.manager.memopedia
    store.create("mina", "ユーザー", summary="紅茶が好きな常連さん。", content="朝に来る。", category="people")
    _subtab(page, "Memopedia")
    pick(page, "memory-persona", "ミナ")  # re-pick so the panel reads the new page
    page.locator("#memopedia-tree", has_text="ユーザー").wait_for()
    pick(page, "memopedia-pick", "ユーザー")
    wait_value(page, "memopedia-content", "朝に来る。")
    content = textbox(page, "memopedia-content")
    content.fill("朝に来る。\n誕生日は三月。")
    act(page, page.locator("#memopedia-save"))
    page.locator("#memopedia-status .sv-ok", has_text="「ユーザー」を保存しました").wait_for()
    page.locator("#memopedia-history", has_text="+誕生日は三月。").wait_for()
    assert store.find("mina", title="ユーザー").content == "朝に来る。\n誕生日は三月。"
    shot(page, "memory_memopedia")
    act(page, page.locator("#memopedia-new"))
    wait_value(page, "memopedia-title", "")  # the form is a blank page now: typing cannot be reset under it
    wait_value(page, "memopedia-content", "")
    textbox(page, "memopedia-title").fill("大長編")
    content.fill("あ" * 20_001)
    act(page, page.locator("#memopedia-save"))
    page.locator("#memopedia-status .sv-error", has_text="本文が長すぎます").wait_for()
    assert store.by_title("mina", "大長編") is None
    wait_value(page, "memopedia-title", "大長編")  # nothing typed is lost: the refused page stays to be cut
    assert len(content.input_value()) == 20_001

    act(page, page.locator("#memory-export"))
    page.locator("#memory-status .sv-ok", has_text="ページ").wait_for()
    link = page.locator("#memory-export-file a[href], #memory-export-file a[download]").first
    link.wait_for()
    lines = [json.loads(line) for line in page.request.get(link.get_attribute("href")).text().splitlines()]
    kinds = {line.get("kind", "message") for line in lines}
    assert kinds == {"message", "chronicle", "memopedia"}
    page_line = next(line for line in lines if line.get("kind") == "memopedia" and line["title"] == "ユーザー")
    assert [h["edit_type"] for h in page_line["history"]] == ["update", "create"]
