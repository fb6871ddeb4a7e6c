"""The city map in the chat view, in real Chromium: a click on a building goes there by the building
list's own path (header, panel and chat follow), who is inside follows the world, it sits in the ☰
drawer on a phone, its labels measure ≥ 4.5:1 in light and dark, and the ワールド tab edits positions.
Screenshots go to SAIVERSE_SHOTS (default /tmp/saiverse-shots/) as map_<case>.png."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.browser import (
    TIMEOUT_MS,
    RunningApp,
    act,
    open_tab,
    served,
    settled_look,
    shot,
    textbox,
    wait_value,
    watch_events,
)

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
MUSEUM_LINE = "美術館に新しい星空の絵が飾られました"

LABEL_CONTRAST_JS = """
() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const out = [];
  for (const t of document.querySelectorAll('#city-map text')) {
    const box = t.closest('g').querySelector('.sv-map-box');
    const [a, b] = [lum(rgb(getComputedStyle(t).fill)), lum(rgb(getComputedStyle(box).fill))].sort((x, y) => y - x);
    out.push({text: t.textContent, cls: t.getAttribute('class'), fg: getComputedStyle(t).fill,
              bg: getComputedStyle(box).fill, ratio: (a + 0.05) / (b + 0.05)});
  }
  const title = document.querySelector('#city-map .sv-map-title');
  let e = title, bg = null;
  while (e && !bg) { const c = getComputedStyle(e).backgroundColor; if (c && !c.endsWith(', 0)') && c !== 'transparent') bg = c; e = e.parentElement; }
  const [a, b] = [lum(rgb(getComputedStyle(title).color)), lum(rgb(bg))].sort((x, y) => y - x);
  out.push({text: title.textContent, cls: 'title', fg: getComputedStyle(title).color, bg, ratio: (a + 0.05) / (b + 0.05)});
  return out;
}
"""


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("map") / "home", refresh_sec=1.0) as app:
        m = app.manager
        m.admin.update_building("entrance", {"map_x": 0, "map_y": 0})
        m.admin.update_building("library", {"map_x": 300, "map_y": 10})
        m.admin.update_building("museum", {"map_x": 20, "map_y": 240})  # user_room and atelier: placed automatically
        m.world.add_history("museum", speaker_kind="persona", speaker_id="sora", speaker_name="ソラ",
                            content=MUSEUM_LINE)
        yield app


@contextmanager
def window(browser: Any, running: RunningApp, viewport: dict[str, int], *, dark: bool = False) -> Iterator[Any]:
    context = browser.new_context(viewport=viewport, locale="ja-JP", color_scheme="dark" if dark else "light")
    context.set_default_timeout(TIMEOUT_MS)
    page = watch_events(context).new_page()
    running.manager.move_user("library")
    try:
        page.goto(running.url)
        page.wait_for_selector("#chat-header [data-building-id='library']")
        page.wait_for_selector("#city-map .sv-map-here[data-map-building='library']", state="attached")
        settled_look(page)
        yield page
    finally:
        context.close()


def tile(building_id: str) -> str:
    return f"#city-map [data-map-building='{building_id}']"


def test_a_click_on_the_map_goes_there_like_the_list(running: RunningApp, browser: Any) -> None:
    m = running.manager
    with window(browser, running, DESKTOP) as page:
        ids = page.eval_on_selector_all("#city-map [data-map-building]", "els => els.map(e => e.dataset.mapBuilding)")
        assert ids == [b.building_id for b in m.buildings()]
        assert page.locator(tile("library") + " .sv-map-you").count() == 1
        assert "📚" in (page.locator(tile("library")).text_content() or "")  # ミナ is in the library
        page.locator(tile("museum")).click()
        page.wait_for_selector("#chat-header [data-building-id='museum']")
        page.locator("#building-panel .sv-building-title", has_text="美術館").wait_for()
        page.locator("#chat", has_text=MUSEUM_LINE).wait_for()
        assert page.locator("#building-select input[value='museum']").is_checked()
        assert m.user_building() == "museum"
        page.wait_for_selector(tile("museum") + ".sv-map-here.sv-map-shown")
        assert page.locator("#city-map .sv-map-you").count() == 1
        # Who is inside follows the world (the window's refresh timer).
        m.world.move_persona("sora", "museum")
        try:
            page.locator(tile("museum"), has_text="🎨").wait_for()
            page.locator(tile("museum")).focus()  # the keyboard works too
            page.locator(tile("library")).focus()
            page.keyboard.press("Enter")
            page.wait_for_selector("#chat-header [data-building-id='library']")
            assert m.user_building() == "library"
        finally:
            m.world.move_persona("sora", "atelier")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_desktop_map_is_readable(running: RunningApp, browser: Any, dark: bool) -> None:
    case = f"desktop_{'dark' if dark else 'light'}"
    with window(browser, running, DESKTOP, dark=dark) as page:
        assert page.evaluate("document.querySelector('.dark') !== null") == dark
        svg = page.locator("#city-map svg").bounding_box()
        assert svg and svg["width"] >= 150 and svg["x"] < 260  # in the building column
        labels = page.evaluate(LABEL_CONTRAST_JS)
        assert {r["cls"] for r in labels} >= {"sv-map-name", "sv-map-people", "sv-map-you", "title"}
        assert all(r["ratio"] >= 4.5 for r in labels), labels
        shot(page, f"map_{case}")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_phone_map_in_the_drawer(running: RunningApp, browser: Any, dark: bool) -> None:
    case = f"phone_{'dark' if dark else 'light'}"
    with window(browser, running, PHONE, dark=dark) as page:
        page.locator("[data-sv-drawer='left']").click()
        page.wait_for_function("document.querySelector('#sv-left').getBoundingClientRect().left >= -1")
        page.locator("#city-map svg").scroll_into_view_if_needed()
        svg = page.locator("#city-map svg").bounding_box()
        assert svg and svg["x"] >= 0 and svg["x"] + svg["width"] <= PHONE["width"] and svg["width"] >= 250
        labels = page.evaluate(LABEL_CONTRAST_JS)
        assert all(r["ratio"] >= 4.5 for r in labels), labels
        shot(page, f"map_{case}")
        page.locator(tile("museum")).click()
        page.wait_for_selector("#chat-header [data-building-id='museum']")
        page.wait_for_function("document.querySelector('#sv-left').getBoundingClientRect().right <= 0")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")


def test_world_tab_edits_the_position(running: RunningApp, browser: Any) -> None:
    m = running.manager
    with window(browser, running, DESKTOP) as page:
        open_tab(page, "ワールド")
        textbox(page, "world-name").fill("港")
        textbox(page, "world-map-x").fill("-75.5")
        act(page, page.locator("#world-save"))
        page.locator("#world-status", has_text="両方書くか").wait_for()  # only X: refused, nothing made
        assert "港" not in [b.name for b in m.buildings()]
        wait_value(page, "world-name", "港")  # the refused form keeps what was typed
        textbox(page, "world-map-y").fill("120")
        act(page, page.locator("#world-save"))
        page.locator("#world-status .sv-ok").wait_for()
        [spot] = [s for s in m.city_map() if s.name == "港"]
        assert (spot.x, spot.y, spot.auto) == (-75.5, 120.0, False)
        page.locator("#building-table tr", has_text="港").filter(has_text="(-75.5, 120)").wait_for()
        assert page.locator("#building-table tr", has_text="図書館").filter(has_text="(300, 10)").count() == 1
        assert page.locator("#building-table tr", has_text="アトリエ").filter(has_text="自動配置").count() == 1
        shot(page, "map_world_tab")
        open_tab(page, "チャット")
        page.wait_for_selector(tile(spot.building_id), state="attached")
        m.admin.update_building(spot.building_id, {"map_x": "", "map_y": ""})
        assert [s for s in m.city_map() if s.name == "港"][0].auto
