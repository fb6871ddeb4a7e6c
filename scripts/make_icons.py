"""Draw SAIVerse's app icons (a night skyline under a moon) into ui/static/ with Pillow.

`python scripts/make_icons.py` rewrites the PNGs the manifest and the page's head name (ui/page.py);
they are committed, so serving needs nothing drawn. The maskable icon keeps its picture inside the
central 80 % circle a phone's mask may cut to, on a background that fills the whole square.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "ui" / "static"
INDIGO = (79, 70, 229, 255)
"""#4f46e5, the theme's primary colour (ui/app.py `app_theme`, ui/page.py THEME_COLOR)."""
NIGHT = (30, 27, 75, 255)
WHITE = (255, 255, 255, 255)
SCALE = 4
"""Drawn this many times larger, then reduced: smooth edges without anti-aliasing support in ImageDraw."""


def draw(size: int, *, maskable: bool = False) -> Image.Image:
    """The icon at `size`×`size`: rounded corners (transparent) unless `maskable` (full bleed)."""
    big = size * SCALE
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable:
        d.rectangle((0, 0, big, big), fill=INDIGO)
    else:
        d.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=INDIGO)
    inset = 0.2 if maskable else 0.12  # the picture's margin: the maskable safe zone is the central 80 %
    lo, span = big * inset, big * (1 - 2 * inset)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (lo + x0 * span, lo + y0 * span, lo + x1 * span, lo + y1 * span)

    d.ellipse(box(0.62, 0.08, 0.86, 0.32), fill=WHITE)  # the moon
    d.ellipse(box(0.70, 0.05, 0.92, 0.27), fill=INDIGO)  # cut to a crescent
    for x0, top, x1 in ((0.06, 0.55, 0.28), (0.30, 0.34, 0.52), (0.54, 0.47, 0.74), (0.76, 0.62, 0.94)):
        d.rectangle(box(x0, top, x1, 0.92), fill=WHITE)
        for row in range(3):  # lit windows
            y = top + 0.07 + row * 0.09
            if y + 0.04 < 0.88:
                d.rectangle(box(x0 + 0.05, y, x1 - 0.05, y + 0.035), fill=NIGHT)
    return img.resize((size, size), Image.LANCZOS)


ICONS = {"icon-192.png": (192, False), "icon-512.png": (512, False), "icon-maskable-512.png": (512, True),
         "apple-touch-icon.png": (180, True)}
"""File → (size, maskable). iOS rounds the touch icon's corners itself: it gets the full-bleed one."""


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (size, maskable) in ICONS.items():
        draw(size, maskable=maskable).save(OUT / name, format="PNG", optimize=True)
        print(OUT / name)


if __name__ == "__main__":
    main()
