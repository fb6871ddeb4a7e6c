"""What a newcomer stumbled on in the window (issue 35), measured in real Chromium, light and dark:

- on a phone (390×844) the conversation owns the screen: one head line, the playbook choosers, 自律,
  the model notice and search fold away under ⋯; ■ 停止 and a line's copy / ↻ buttons are 44 px;
- the chat's ↓ scroll button stays under the document modal (its 「保存」 can be clicked);
- a map tile shows a name that fits a little smaller whole (「エントランス」, not 「エントラン…」).

Screenshots go to SAIVERSE_SHOTS (default /tmp/saiverse-shots/) as newcomer_<case>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.browser import TIMEOUT_MS, RunningApp, served, settled_look, shot, watch_events

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
BOX_JS = """
(sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect();
  const s = getComputedStyle(e);
  return {x: r.x, y: r.y, w: r.width, h: r.height, visible: s.display !== 'none' && s.visibility !== 'hidden'
          && r.width > 0 && r.height > 0}; }
"""


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("newcomer") / "home") as app:
        app.manager.move_user("library")
        for n in range(24):  # enough lines that the chat scrolls (and shows its ↓ button)
            app.manager.world.add_history("library", speaker_kind="persona", speaker_id="mina", speaker_name="ミナ",
                                          content=f"{n + 1} 行目のお話です。図書館は今日も静かです。")
        yield app


@contextmanager
def window(browser: Any, running: RunningApp, viewport: dict[str, int], dark: bool) -> Iterator[Any]:
    context = browser.new_context(viewport=viewport, locale="ja-JP", has_touch=viewport == PHONE,
                                  color_scheme="dark" if dark else "light")
    context.set_default_timeout(TIMEOUT_MS)
    page = watch_events(context).new_page()
    running.manager.move_user("library")
    try:
        page.goto(running.url)
        page.wait_for_selector("#chat-header [data-building-id='library']")
        page.wait_for_selector("#item-list [data-item-id]", state="attached")
        settled_look(page)
        yield page
    finally:
        context.close()


def box(page: Any, selector: str) -> dict[str, Any]:
    found = page.evaluate(BOX_JS, selector)
    assert found is not None, selector
    return found


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_on_a_phone_the_conversation_owns_the_screen(running: RunningApp, browser: Any, dark: bool) -> None:
    case = f"phone_{'dark' if dark else 'light'}"
    with window(browser, running, PHONE, dark) as page:
        chat = box(page, "#chat")
        assert chat["h"] >= 0.6 * PHONE["height"], chat  # was 274 of 844
        field = box(page, "#chat-input")
        assert field["y"] + field["h"] <= PHONE["height"] + 1, field  # the message box is on screen
        head = [box(page, s) for s in ("#sv-menu-left", "#chat-header", "#sv-menu-right", "#sv-menu-more",
                                       "#chat-stop")]
        assert len({round(b["y"] + b["h"] / 2) // 12 for b in head}) == 1, head  # one line
        for sel in ("#meta-select", "#chat-autonomy", "#model-notice", "#sv-chat-search"):
            assert not box(page, sel)["visible"], sel
        assert box(page, "#chat-stop")["h"] >= 44 and box(page, ".sv-more-btn")["h"] >= 44
        assert page.locator("#chat-header .sv-persona .sv-name", has_text="ミナ").is_visible()  # the chip keeps the name
        shot(page, f"newcomer_{case}")

        page.locator(".sv-more-btn").click()  # ⋯ unfolds what was folded away
        page.wait_for_function("getComputedStyle(document.querySelector('#model-notice')).display !== 'none'")
        for sel in ("#meta-select", "#chat-autonomy", "#model-notice", "#sv-chat-search"):
            assert box(page, sel)["visible"], sel
        assert page.locator(".sv-more-btn").get_attribute("aria-expanded") == "true"
        shot(page, f"newcomer_{case}_more")
        page.locator(".sv-more-btn").click()
        page.wait_for_function("getComputedStyle(document.querySelector('#model-notice')).display === 'none'")

        # A line's copy and ↻ buttons are fingertip-sized.
        buttons = page.evaluate("""() => [...document.querySelectorAll('#chat button')]
            .filter((b) => b.closest('.message-buttons, .icon-button-wrapper') && b.getClientRects().length)
            .map((b) => { const r = b.getBoundingClientRect(); return [b.getAttribute('aria-label') || b.title, r.width, r.height]; })""")
        assert buttons, "no line buttons found"
        assert all(w >= 44 and h >= 44 for _, w, h in buttons), buttons


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_scroll_button_stays_under_the_document_modal(running: RunningApp, browser: Any, dark: bool) -> None:
    case = f"desktop_{'dark' if dark else 'light'}"
    with window(browser, running, DESKTOP, dark) as page:
        page.evaluate("""() => { const log = document.querySelector('#chat [role="log"]') || document.querySelector('#chat .bubble-wrap');
            const scroller = [log, ...(log ? log.querySelectorAll('*') : [])].find((e) => e && e.scrollHeight > e.clientHeight + 20
                && getComputedStyle(e).overflowY !== 'visible') || log; scroller.scrollTop = 0;
            scroller.dispatchEvent(new Event('scroll')); }""")
        page.locator("#chat .scroll-down-button-container button").wait_for()
        page.locator("#item-list [data-item-id]", has_text="SAIVerse使い方ガイド").click()
        page.locator("#item-modal-save").wait_for()
        settled_look(page)
        save = box(page, "#item-modal-save")
        hit = page.evaluate("""([x, y]) => { const e = document.elementFromPoint(x, y);
            return e ? (e.closest('#item-modal-save') ? 'save' : (e.closest('.scroll-down-button-container') ? 'scroll' : e.tagName)) : null; }""",
                            [save["x"] + save["w"] / 2, save["y"] + save["h"] / 2])
        assert hit == "save", hit
        arrow = box(page, "#chat .scroll-down-button-container button")
        covered = page.evaluate("""([x, y]) => { const e = document.elementFromPoint(x, y);
            return !!(e && !e.closest('.scroll-down-button-container')); }""", [arrow["x"] + arrow["w"] / 2, arrow["y"] + arrow["h"] / 2])
        assert covered  # wherever the ↓ button sits, the modal is above it
        shot(page, f"newcomer_{case}_modal")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_map_tiles_show_a_name_whole_when_it_fits(running: RunningApp, browser: Any, dark: bool) -> None:
    case = f"desktop_{'dark' if dark else 'light'}"
    with window(browser, running, DESKTOP, dark) as page:
        names = page.evaluate("""() => [...document.querySelectorAll('.sv-map-tile')].map((g) => {
            const t = g.querySelector('.sv-map-name'), r = g.querySelector('.sv-map-box');
            return {id: g.dataset.mapBuilding, text: t.textContent, w: t.getComputedTextLength(),
                    x: t.getBBox().x, right: r.getBBox().x + r.getBBox().width}; })""")
        assert {n["text"] for n in names} >= {"エントランス", "ユーザーの部屋", "図書館", "美術館", "アトリエ"}, names
        assert not [n for n in names if "…" in n["text"]], names
        assert all(n["x"] + n["w"] <= n["right"] - 2 for n in names), names  # inside its tile
        page.locator("#sv-left .sv-map").screenshot(path=str(shot(page, f"newcomer_{case}_map").with_name(
            f"newcomer_{case}_map_only.png")))


def test_on_a_phone_two_personas_here_both_show_in_the_head_line(running: RunningApp, browser: Any) -> None:
    """With ソラ and ミナ both in the room, the phone's head line shows both avatars whole, before 🧺
    (their names would be cut there; the 🧺 panel names them)."""
    running.manager.admin.update_persona("sora", {"building_id": "library"})
    try:
        with window(browser, running, PHONE, False) as page:
            page.locator("#chat-header .sv-persona[data-persona-id='sora']").wait_for()
            chips = [box(page, f"#chat-header .sv-persona[data-persona-id='{p}']") for p in ("sora", "mina")]
            drawer = box(page, "#sv-menu-right")
            assert all(c["visible"] and c["x"] + c["w"] <= drawer["x"] for c in chips), (chips, drawer)
            shot(page, "newcomer_phone_two_here")
    finally:
        running.manager.admin.update_persona("sora", {"building_id": "atelier"})
