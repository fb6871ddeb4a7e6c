"""The window at a phone's and a desktop's size, light and dark, in real Chromium.

Each case measures the page itself: where the building list, the chat and the panel are, whether
anything scrolls sideways, and the contrast of the main texts computed from their colours and
the backgrounds they are drawn on (WCAG relative luminance; ≥ 4.5:1). Screenshots go to
SAIVERSE_SHOTS (default /tmp/saiverse-shots/) as fit_<case>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.browser import TIMEOUT_MS, RunningApp, open_tab, served, settled_look, shot, watch_events

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
MAIN_TEXTS = (
    ".sv-header-title", "#sv-tabs [role='tab']", "#building-panel .sv-building-title",
    "#building-panel .sv-building-desc", "#building-panel .sv-section", ".sv-persona .sv-name",
    ".sv-item-name", ".sv-item-kind", "#item-list .sv-section", "#building-select label",
)

CONTRAST_JS = """
(selectors) => {
  const parse = (c) => {
    let m = c.match(/^rgba?\\(([^)]+)\\)/);
    if (m) {
      const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
      return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
    }
    m = c.match(/^color\\(srgb ([^)]+)\\)/);
    if (m) {
      const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number);
      return {r: p[0] * 255, g: p[1] * 255, b: p[2] * 255, a: p.length > 3 ? p[3] : 1};
    }
    return null;
  };
  const over = (top, base) => ({
    r: top.r * top.a + base.r * (1 - top.a), g: top.g * top.a + base.g * (1 - top.a),
    b: top.b * top.a + base.b * (1 - top.a), a: 1,
  });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = {r: 255, g: 255, b: 255, a: 1};
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const out = [];
  for (const sel of selectors) {
    const els = [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length && e.innerText.trim());
    for (const el of els.slice(0, 4)) {
      const bg = background(el);
      const raw = parse(getComputedStyle(el).color);
      if (!raw) { out.push({sel, text: el.innerText.trim(), ratio: 0, why: getComputedStyle(el).color}); continue; }
      const fg = over(raw, bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out.push({sel, text: el.innerText.trim().slice(0, 20), ratio: (a + 0.05) / (b + 0.05),
                fg: getComputedStyle(el).color, bg: `rgb(${bg.r|0},${bg.g|0},${bg.b|0})`});
    }
  }
  return out;
}
"""

BOX_JS = """
(sel) => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
  return {x: r.x, y: r.y, w: r.width, h: r.height, visible: s.visibility !== 'hidden' && s.display !== 'none'
          && r.width > 0 && r.right > 0 && r.left < innerWidth}; }
"""


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("fit") / "home") as app:
        app.manager.move_user("library")  # ミナ and two items: chips and item names to measure
        yield app


@contextmanager
def window(browser: Any, running: RunningApp, viewport: dict[str, int], *, dark: str = "") -> Iterator[Any]:
    """A page at `viewport`; dark='system' sets the browser's colour scheme, 'query' uses ?__theme=dark."""
    context = browser.new_context(viewport=viewport, locale="ja-JP", has_touch=viewport == PHONE,
                                  color_scheme="dark" if dark == "system" else "light")
    context.set_default_timeout(TIMEOUT_MS)
    page = watch_events(context).new_page()
    running.manager.move_user("library")  # a new tab opens where the person is
    try:
        page.goto(running.url + ("?__theme=dark" if dark == "query" else ""))
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


PANEL_TEXTS = (".sv-item-name", ".sv-persona .sv-name", "#building-panel .sv-building-title")


def assert_readable(page: Any, case: str, required: tuple[str, ...]) -> None:
    """Every main text shown has a contrast ≥ 4.5:1, and each of `required` was found and measured."""
    results = page.evaluate(CONTRAST_JS, list(MAIN_TEXTS))
    measured = {r["sel"] for r in results}
    for sel in required:
        assert sel in measured, f"{case}: nothing measured for {sel}"
    poor = [r for r in results if r["ratio"] < 4.5]
    assert not poor, f"{case}: contrast below 4.5:1: {poor}"


def assert_opens_at_the_top_with_the_input_on_screen(page: Any) -> None:
    """A page opens at its top (tabs in view), and the message box is on screen without scrolling."""
    assert page.evaluate("scrollY") == 0
    field = box(page, "#chat-input")
    assert field["visible"] and field["y"] + field["h"] <= page.viewport_size["height"] + 1, field


def assert_no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")


@pytest.mark.parametrize("dark", ["", "system"], ids=["light", "dark"])
def test_phone_folds_the_list_and_panel_away(running: RunningApp, browser: Any, dark: str) -> None:
    case = f"phone_{'dark' if dark else 'light'}"
    with window(browser, running, PHONE, dark=dark) as page:
        assert page.evaluate("document.querySelector('.dark') !== null") == bool(dark)
        assert not box(page, "#sv-left")["visible"] and not box(page, "#sv-right")["visible"]
        chat = box(page, "#chat")
        assert chat["w"] >= PHONE["width"] - 50, chat  # the chat takes the width
        assert_opens_at_the_top_with_the_input_on_screen(page)
        # No focus on a phone: it would pop the keyboard up over the chat.
        assert page.evaluate("document.activeElement === document.body")
        assert_no_sideways_scroll(page)
        assert_readable(page, case, (".sv-header-title", "#sv-tabs [role='tab']"))
        shot(page, f"fit_{case}")

        page.locator("[data-sv-drawer='right']").click()
        page.wait_for_function("document.querySelector('#sv-right').getBoundingClientRect().right <= innerWidth + 1")
        right = box(page, "#sv-right")
        assert right["visible"] and right["x"] > 0, right
        assert_readable(page, f"{case}_panel", PANEL_TEXTS)
        shot(page, f"fit_{case}_panel")
        page.locator("#item-list [data-item-id]", has_text="SAIVerse使い方ガイド").click()
        page.locator("#item-modal-title", has_text="SAIVerse使い方ガイド").wait_for()
        card = box(page, "#item-modal .sv-modal-card")
        assert card["w"] >= PHONE["width"] - 2 and card["x"] <= 1, card  # the item opens full-screen
        shot(page, f"fit_{case}_item")
        page.locator("#item-modal-close").click()
        page.locator("#item-modal").wait_for(state="detached")
        page.wait_for_function("document.querySelector('#sv-right').getBoundingClientRect().left >= innerWidth")

        page.locator("[data-sv-drawer='left']").click()
        page.wait_for_function("document.querySelector('#sv-left').getBoundingClientRect().left >= -1")
        left = box(page, "#sv-left")
        assert left["visible"] and left["w"] <= PHONE["width"]
        assert_readable(page, f"{case}_buildings", ("#building-select label",))
        shot(page, f"fit_{case}_buildings")
        page.locator("#building-select label", has_text="美術館").click()
        page.wait_for_selector("#chat-header [data-building-id='museum']")
        page.wait_for_function("document.querySelector('#sv-left').getBoundingClientRect().right <= 0")
        assert box(page, "#chat")["w"] >= PHONE["width"] - 50


@pytest.mark.parametrize("dark", ["", "query"], ids=["light", "dark"])
def test_desktop_keeps_three_panes(running: RunningApp, browser: Any, dark: str) -> None:
    case = f"desktop_{'dark' if dark else 'light'}"
    with window(browser, running, DESKTOP, dark=dark) as page:
        assert page.evaluate("document.querySelector('.dark') !== null") == bool(dark)
        left, center, right = box(page, "#sv-left"), box(page, "#sv-center"), box(page, "#sv-right")
        assert left["visible"] and center["visible"] and right["visible"]
        assert left["x"] < center["x"] < right["x"]
        assert 200 <= left["w"] <= 260 and center["w"] >= 700 and right["w"] >= 260
        assert not box(page, "#sv-menu-left")["visible"]
        assert_opens_at_the_top_with_the_input_on_screen(page)
        page.wait_for_function("document.activeElement === document.querySelector('#chat-input textarea')")
        assert_no_sideways_scroll(page)
        assert_readable(page, case, (".sv-header-title", "#sv-tabs [role='tab']", "#building-select label",
                                     *PANEL_TEXTS))
        shot(page, f"fit_{case}")
        open_tab(page, "ワールド")
        page.wait_for_selector("#building-table table")
        rows = page.evaluate(CONTRAST_JS, ["table.sv-table td", "table.sv-table th"])
        assert rows and all(r["ratio"] >= 4.5 for r in rows), rows
        shot(page, f"fit_{case}_world")
