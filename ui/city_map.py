"""The city map beside the building list (docs/ARCHITECTURE.md, "UI": the city map).

A picture of the city as inline SVG: one tile per building, placed by its map position
(`CityPort.city_map`, saiverse/world/_map.py), with the avatars of who is inside and 📍 where the
user is. Positions are world coordinates of any spread, and the picture must stay readable in a
210 px column and a phone drawer, so the tiles keep the map's arrangement (left of, above) on a
small grid rather than its distances: each building goes to the free cell nearest its scaled
position, in the building list's order, so the same city always draws the same way.

A click (or Enter) on a tile clicks that building in the building list (#building-select), so a
move from the map takes the very path of a move from the list (ui/app.py `on_move`, the window's
own building, ui/session.py) — and on a phone the drawer closes as after a pick in the list
(ui/fit.py). Every name is escaped; nothing is fetched (no external assets). Colours and their dark
counterparts are in ui/style_map.css.
"""

from __future__ import annotations

import math
import unicodedata
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels

MAP_CSS_PATH = Path(__file__).with_name("style_map.css")
"""The map's colours, light and dark (ui/app.py `app_css` appends it)."""
COLUMNS = 2
"""Tiles side by side: two stay readable in the 210 px building column (and large in a phone drawer)."""
CELL_W, CELL_H = 80, 62
"""One grid cell of the picture (SVG units; the SVG scales to the column's width)."""
TILE_W, TILE_H = 75, 57
PAD = 5
NAME_EM = 5.6
"""How many full-width characters a tile's name line holds at the name's full size (half-width ones count half)."""
NAME_PX, NAME_MIN_PX = 12.0, 9.0
"""A name's font size on its tile: full, and the smallest it shrinks to before it is cut short."""
NAME_ROOM = NAME_EM * NAME_PX
"""The width a name line has (SVG units)."""
MAX_AVATARS = 4

MAP_JS = """
// One delegated listener on the component root (it stays while the SVG inside is redrawn).
const go = (ev) => {
  const tile = ev.target.closest && ev.target.closest('[data-map-building]');
  if (!tile || !element.contains(tile)) return false;
  const id = tile.dataset.mapBuilding;
  const input = document.querySelector('#building-select input[type="radio"][value="' + CSS.escape(id) + '"]');
  if (input && !input.checked) input.click();  // the building list's own path (and its drawer closing)
  return true;
};
element.addEventListener('click', go);
element.addEventListener('keydown', (ev) => {
  if ((ev.key === 'Enter' || ev.key === ' ') && go(ev)) ev.preventDefault();
});
"""
"""js_on_load of the map: a tile click picks that building in the building list."""


def _width(ch: str) -> float:
    return 1.0 if unicodedata.east_asian_width(ch) in ("W", "F") or ord(ch) > 0x2E80 else 0.58


def clip_name(name: str, em: float = NAME_EM) -> str:
    """`name` cut to fit a tile's line (full-width characters count 1, others about half), with …."""
    used, out = 0.0, []
    for ch in name:
        w = _width(ch)
        if used + w > em:
            return "".join(out).rstrip() + "…"
        used += w
        out.append(ch)
    return name


def name_fit(name: str) -> tuple[str, float]:
    """A tile's name line and its font size: the whole name at full size when it fits, else the size
    that makes it fit (down to NAME_MIN_PX: `エントランス` is not cut to `エントラン…` with room to spare),
    and only a name too long even then is cut short."""
    width = sum(_width(ch) for ch in name)
    if width * NAME_PX <= NAME_ROOM:
        return name, NAME_PX
    size = max(NAME_MIN_PX, NAME_ROOM / width)
    return clip_name(name, NAME_ROOM / size), round(size, 2)


def grid_cells(spots: list[Any]) -> tuple[list[tuple[int, int]], int, int]:
    """(column, row) of each spot, and the grid's columns and rows: buildings with a stored position
    keep the map's arrangement (each in the free cell nearest its scaled place), then the
    automatically placed ones fill the free cells in list order; every tile has a cell of its own."""
    n = len(spots)
    cols = COLUMNS
    rows = max(1, math.ceil(n / cols))
    stored = [s for s in spots if not s.auto]
    xs, ys = [s.x for s in stored], [s.y for s in stored]
    span_x, span_y = (max(xs) - min(xs)) if xs else 0, (max(ys) - min(ys)) if ys else 0
    taken: dict[int, tuple[int, int]] = {}
    candidates = [(c, r) for r in range(rows + n) for c in range(cols)]
    for i, s in enumerate(spots):
        if s.auto:
            continue
        u = (s.x - min(xs)) / span_x * (cols - 1) if span_x else 0.0
        v = (s.y - min(ys)) / span_y * (rows - 1) if span_y else 0.0
        used = set(taken.values())
        taken[i] = min((c for c in candidates if c not in used),
                       key=lambda c: ((c[0] - u) ** 2 + (c[1] - v) ** 2, c[1], c[0]))
    free = iter(c for c in candidates if c not in set(taken.values()))
    out = [taken[i] if i in taken else next(free) for i in range(n)]
    used_rows = max((r for _, r in out), default=0) + 1
    return out, cols, used_rows


def _tile(spot: Any, col: int, row: int, shown: str | None, labels: Labels) -> str:
    x, y = PAD + col * CELL_W, PAD + row * CELL_H
    classes = ["sv-map-tile"]
    if spot.user_here:
        classes.append("sv-map-here")
    if spot.building_id == shown:
        classes.append("sv-map-shown")
    if spot.auto:
        classes.append("sv-map-auto")
    people = [f'{p["avatar"]} {p["name"]}' for p in spot.personas]
    title = [spot.name, *(people or [labels("map_nobody")])]
    if spot.user_here:
        title.append(labels("map_here_title"))
    if spot.auto:
        title.append(f"({labels('map_auto')})")
    avatars = " ".join(p["avatar"] for p in spot.personas[:MAX_AVATARS])
    if len(spot.personas) > MAX_AVATARS:
        avatars += f" +{len(spot.personas) - MAX_AVATARS}"
    name, size = name_fit(spot.name)
    fitted = f' style="font-size:{size}px"' if size != NAME_PX else ""
    lines = [f'<text class="sv-map-name" x="{x + 6}" y="{y + 17}"{fitted}>{escape(name)}</text>']
    if avatars:
        lines.append(f'<text class="sv-map-people" x="{x + 6}" y="{y + 35}">{escape(avatars)}</text>')
    if spot.user_here:
        lines.append(f'<text class="sv-map-you" x="{x + 6}" y="{y + 51}">{escape(labels("map_you"))}</text>')
    return (
        f'<g class="{" ".join(classes)}" data-map-building="{escape(spot.building_id)}" role="button" tabindex="0" '
        f'aria-label="{escape(labels("map_go", name=spot.name))}">'
        f'<title>{escape(chr(10).join(title))}</title>'
        f'<rect class="sv-map-box" x="{x}" y="{y}" width="{TILE_W}" height="{TILE_H}" rx="8"/>'
        + "".join(lines) + "</g>"
    )


def city_map_svg(spots: list[Any], shown: str | None, labels: Labels) -> str:
    """The map as an inline SVG (in a titled wrapper): `spots` from `CityPort.city_map`, `shown`
    the building this window shows (outlined)."""
    head = f'<div class="sv-map" data-testid="city-map"><div class="sv-map-title">{escape(labels("map_title"))}</div>'
    if not spots:
        return head + f'<p class="sv-muted">{escape(labels("map_empty"))}</p></div>'
    cells, cols, rows = grid_cells(spots)
    width, height = 2 * PAD + cols * CELL_W - (CELL_W - TILE_W), 2 * PAD + rows * CELL_H - (CELL_H - TILE_H)
    tiles = "".join(_tile(s, c, r, shown, labels) for s, (c, r) in zip(spots, cells, strict=True))
    return (head + f'<svg class="sv-map-svg" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" '
            f'role="group" aria-label="{escape(labels("map_title"))}">'
            f'<rect class="sv-map-ground" x="0" y="0" width="{width}" height="{height}" rx="10"/>{tiles}</svg></div>')


class CityMap:
    """The map under the building list: its picture, what this session drew, and its refresh timer."""

    def __init__(self, manager: CityPort, labels: Labels, refresh_sec: float) -> None:
        self.manager, self.labels = manager, labels
        self.html = gr.HTML("", elem_id="city-map", js_on_load=MAP_JS)
        self.drawn = gr.State("")
        self.timer = gr.Timer(refresh_sec)

    def draw(self, bid: str | None, last: str) -> list[Any]:
        """The map with `bid` (this window's building) outlined; nothing sent when it did not change."""
        try:
            svg = city_map_svg(self.manager.city_map(), bid or None, self.labels)
        except Exception:  # noqa: BLE001 - a busy database: the old picture stays until the next tick
            return [gr.skip(), gr.skip()]
        return [gr.skip(), gr.skip()] if svg == last else [svg, svg]

    def follow(self, shown: gr.Textbox) -> None:
        """Redraw when the window's building changes — `shown` is set in the same render as the chat
        header, after the move (a load, a pick in the list or on the map) — and on the timer when
        someone moved elsewhere."""
        shown.change(self.draw, [shown, self.drawn], [self.html, self.drawn], show_progress="hidden")
        self.timer.tick(self.draw, [shown, self.drawn], [self.html, self.drawn], show_progress="hidden")


def with_city_map(manager: CityPort, labels: Labels, refresh_sec: float,
                  building: gr.Radio) -> tuple[gr.Radio, CityMap]:
    """Put the map under the building list `building` (call it where the list is made, wrapping the
    list's creation); wire it with `CityMap.follow` once the window's `shown` building exists.

    Returns:
        (`building`, the map)."""
    return building, CityMap(manager, labels, refresh_sec)
