"""One building per window, in real Chromium: the building a window shows, the one its header
names, the one checked in its list and the one its messages go to are always the same — through
building switches, reloads, refused attachments and sends — and a second tab may stand elsewhere.

Each building's history carries a marker line (〔id〕), so the chat shown can be matched to a building.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, new_context, served, settle, shot

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

BUILDINGS = {"entrance": "エントランス", "library": "図書館", "museum": "美術館", "atelier": "アトリエ"}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("session") / "home") as app:
        for bid in BUILDINGS:
            app.manager.world.add_history(bid, speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                          content=f"〔{bid}〕")
        yield app


def open_window(context: Any, url: str) -> Any:
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#chat-header [data-building-id]")
    return page


def settled(page: Any, bid: str) -> None:
    """Wait until the page shows `bid` and its load/move events are over."""
    page.wait_for_selector(f"#chat-header [data-building-id='{bid}']")
    page.locator("#chat", has_text=f"〔{bid}〕").wait_for()
    settle(page)


def agree(page: Any) -> str:
    """The header, the checked building and the chat name one building; returns it."""
    bid = page.locator("#chat-header [data-building-id]").get_attribute("data-building-id")
    assert bid in BUILDINGS
    assert BUILDINGS[bid] in page.locator("#chat-header").inner_text()
    assert page.locator("#building-select input:checked").get_attribute("value") == bid
    chat = page.locator("#chat").inner_text()
    assert f"〔{bid}〕" in chat, (bid, chat[-300:])
    others = [o for o in BUILDINGS if o != bid and f"〔{o}〕" in chat]
    assert not others, (bid, others)
    return str(bid)


def where_said(running: RunningApp, text: str) -> list[str]:
    """The buildings whose history has a user line with `text`."""
    return [bid for bid in BUILDINGS
            if any(e.content.startswith(text) for e in running.manager.history(bid, limit=50)
                   if e.speaker_kind == "user")]


def send(page: Any, text: str) -> None:
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")
    page.locator("#chat", has_text=text).wait_for()


def test_switch_reload_refused_file_and_send_never_disagree(running: RunningApp, browser: Any,
                                                            tmp_path: Path) -> None:
    refused = tmp_path / "memo.txt"
    refused.write_text("not an image", encoding="utf-8")
    rng = random.Random(21)
    context = new_context(browser)
    try:
        running.manager.move_user("library")
        page = open_window(context, running.url)
        settled(page, "library")
        for i in range(12):
            target = rng.choice([b for b in BUILDINGS if b != agree(page)])
            page.locator("#building-select label", has_text=BUILDINGS[target]).click()
            settled(page, target)
            assert agree(page) == target
            if i % 3 == 1:
                page.reload()
                page.wait_for_selector("#chat-header [data-building-id]")
                settled(page, target)
                assert agree(page) == target  # this tab keeps its building across a reload
            if i % 3 == 2:
                page.locator("#chat-input input[type='file']").set_input_files(str(refused))
                settle(page)  # the refusal is the page's own: nothing was sent, nothing moved
                assert agree(page) == target
            text = f"確認{i}番"
            send(page, text)
            assert agree(page) == target
            assert where_said(running, text) == [target], (i, target)
            assert running.manager.user_building() == target  # the person is where they spoke
        shot(page, "session_after_switches")
    finally:
        context.close()


def test_a_click_while_the_page_loads_is_never_undone(running: RunningApp, browser: Any) -> None:
    """The issue's failure: the server moved the person, then the page went back to where it
    loaded. A click that reached the server must be what the page shows; one that came before the
    page could take it is simply not taken — either way the page agrees with itself."""
    context = new_context(browser)
    try:
        for n, target in enumerate(["atelier", "museum", "entrance", "atelier", "museum"]):
            running.manager.move_user("library")
            page = context.new_page()
            page.goto(running.url, wait_until="commit")
            page.locator("#building-select label", has_text=BUILDINGS[target]).click()
            page.wait_for_selector("#chat-header [data-building-id]")
            settle(page)  # anything still in flight from the load lands now
            shown = agree(page)
            moved = running.manager.user_building()
            assert shown == moved, (n, target, shown, moved)
            assert shown in (target, "library")
            send(page, f"早押し{n}")
            assert where_said(running, f"早押し{n}") == [shown]
            page.close()
    finally:
        context.close()


def test_two_tabs_stand_in_two_buildings(running: RunningApp, browser: Any) -> None:
    context = new_context(browser)
    try:
        running.manager.move_user("library")
        a = open_window(context, running.url)
        settled(a, "library")
        a.locator("#building-select label", has_text="美術館").click()
        settled(a, "museum")
        b = open_window(context, running.url)  # a new tab opens where the person last was
        settled(b, "museum")
        b.locator("#building-select label", has_text="アトリエ").click()
        settled(b, "atelier")

        send(a, "タブAから")
        send(b, "タブBから")
        assert where_said(running, "タブAから") == ["museum"]
        assert where_said(running, "タブBから") == ["atelier"]
        a.wait_for_timeout(6_000)  # a refresh tick of each window passes: neither is pulled along
        settle(a)
        settle(b)
        assert agree(a) == "museum" and agree(b) == "atelier"
        shot(a, "session_tab_a")
        shot(b, "session_tab_b")

        a.reload()
        settled(a, "museum")
        b.reload()
        settled(b, "atelier")
        assert agree(a) == "museum" and agree(b) == "atelier"
        send(a, "再読込後のA")
        assert where_said(running, "再読込後のA") == ["museum"]
    finally:
        context.close()
