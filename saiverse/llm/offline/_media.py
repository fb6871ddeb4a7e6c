"""Pixels for the offline model: describe an image from its pixels, draw one from a prompt.

Both are pure functions of their input (no clock, no unseeded randomness), so the offline model
and the tests that use it are deterministic.
"""

from __future__ import annotations

import hashlib
import io
import math
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from words import current, say

# Colour words a prompt may use → the RGB they paint with.
_PROMPT_COLOURS: list[tuple[tuple[str, ...], tuple[int, int, int]]] = [
    (("青", "blue", "あお"), (40, 90, 200)),
    (("赤", "red", "あか"), (200, 40, 50)),
    (("緑", "green", "みどり"), (50, 150, 70)),
    (("黄", "yellow", "きいろ"), (240, 200, 40)),
    (("紫", "purple", "violet"), (130, 60, 170)),
    (("桃", "ピンク", "pink", "桜"), (240, 150, 180)),
    (("橙", "オレンジ", "orange", "夕焼", "夕日"), (240, 130, 40)),
    (("白", "white", "雪"), (245, 245, 245)),
    (("黒", "black"), (20, 20, 25)),
    (("金", "gold"), (215, 175, 55)),
    (("銀", "silver", "灰"), (170, 170, 180)),
    (("茶", "brown"), (120, 75, 40)),
    (("水色", "空色", "cyan"), (120, 200, 235)),
]
COLOURS_EN = {"黒": "black", "白": "white", "灰色": "grey", "茶色": "brown", "赤": "red", "橙": "orange",
              "黄": "yellow", "黄緑": "yellow-green", "緑": "green", "水色": "light blue", "紺": "navy",
              "青": "blue", "紫": "purple", "桃色": "pink"}
"""`_hsv_name`'s colour names in English (SAIVERSE_LANG=en)."""
BRIGHTNESS_EN = {"明るい": "bright", "暗い": "dark", "中くらいの明るさの": "medium-bright"}
SHAPES_EN = {"横長": "landscape", "縦長": "portrait", "正方形": "square"}
_DEFAULT_PALETTE = [(60, 110, 190), (230, 120, 90), (90, 170, 120), (240, 200, 90), (150, 100, 190)]


def _has(prompt: str, *words: str) -> bool:
    low = prompt.lower()
    return any(w.lower() in low for w in words)


@dataclass
class ImageStats:
    """What the offline model can tell about an image from its pixels."""

    width: int
    height: int
    colours: list[tuple[str, int]]
    """Dominant colour names (Japanese) with their share in percent, largest first."""
    brightness: float
    """Mean luminance, 0 (black) to 255 (white)."""

    @property
    def shape(self) -> str:
        """横長, 縦長 or 正方形."""
        if self.width > self.height * 1.1:
            return "横長"
        if self.height > self.width * 1.1:
            return "縦長"
        return "正方形"

    @property
    def brightness_word(self) -> str:
        """明るい, 暗い or 中くらいの明るさの."""
        if self.brightness >= 170:
            return "明るい"
        if self.brightness < 80:
            return "暗い"
        return "中くらいの明るさの"


def _hsv_name(h: int, s: int, v: int) -> str:
    """Colour name from Pillow HSV (each channel 0–255)."""
    if v < 50:
        return "黒"
    if s < 45:
        return "白" if v > 200 else "灰色"
    hue = h * 360 / 255
    if hue < 15 or hue >= 345:
        return "茶色" if v < 110 else "赤"
    if hue < 42:
        return "茶色" if v < 150 else "橙"
    if hue < 70:
        return "黄"
    if hue < 90:
        return "黄緑"
    if hue < 160:
        return "緑"
    if hue < 200:
        return "水色"
    if hue < 255:
        return "紺" if v < 110 else "青"
    if hue < 290:
        return "紫"
    return "桃色"


def _open(source: str | Path | bytes) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(source)) if isinstance(source, bytes) else Image.open(source)
        img.load()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(say("offline_not_an_image", why=exc)) from exc
    return img


def _pixels(img: Image.Image) -> list:
    # Pillow 12 deprecates getdata() in favour of get_flattened_data().
    getter = getattr(img, "get_flattened_data", None) or img.getdata
    return list(getter())


def image_stats(source: str | Path | bytes) -> ImageStats:
    """Size, dominant colours and brightness of an image (a path or its bytes).

    Raises `ValueError` when the data is not an image Pillow can read.
    """
    img = _open(source)
    width, height = img.size
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        # Transparent pixels count as the white page they are usually shown on.
        rgba = img.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(canvas, rgba)
    small = img.convert("RGB")
    small.thumbnail((48, 48), Image.Resampling.BOX)
    pixels = _pixels(small.convert("HSV"))
    counts = Counter(_hsv_name(*p) for p in pixels)
    total = max(1, len(pixels))
    ranked = [(name, round(n * 100 / total)) for name, n in counts.most_common()]
    colours = [c for c in ranked if c[1] >= 10][:3] or ranked[:1]
    brightness = sum(_pixels(small.convert("L"))) / total
    return ImageStats(width, height, colours, brightness)


def describe_image(source: str | Path | bytes) -> str:
    """A description (≤ 300 characters) of an image from its pixels, in the language in force.

    Raises `ValueError` when the data is not an image Pillow can read.
    """
    st = image_stats(source)
    if current() == "en":
        colours = ", ".join(f"{COLOURS_EN[name]} (about {share}%)" for name, share in st.colours)
        return say("offline_image_described", width=st.width, height=st.height, shape=SHAPES_EN[st.shape],
                   colours=colours, light=BRIGHTNESS_EN[st.brightness_word])[:300]
    colours = "、".join(f"{name}（約{share}%）" for name, share in st.colours)
    text = (f"{st.width}×{st.height}ピクセルの{st.shape}の画像。主な色は{colours}。"
            f"全体に{st.brightness_word}画像です。")
    return text[:300]


def _gradient(size: int, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> Image.Image:
    mask = Image.linear_gradient("L").resize((size, size))
    return Image.composite(Image.new("RGB", (size, size), bottom), Image.new("RGB", (size, size), top), mask)


def _shade(c: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(max(0, min(255, int(v * f))) for v in c)  # type: ignore[return-value]


def _mix(c: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    """`amount` of colour `c` over white."""
    return tuple(int(255 + (v - 255) * amount) for v in c)  # type: ignore[return-value]


def _star(draw: ImageDraw.ImageDraw, x: float, y: float, r: float, fill: tuple[int, ...]) -> None:
    points = []
    for i in range(10):
        ang = -math.pi / 2 + i * math.pi / 5
        rad = r if i % 2 == 0 else r * 0.45
        points.append((x + rad * math.cos(ang), y + rad * math.sin(ang)))
    draw.polygon(points, fill=fill)


def procedural_image(prompt: str, size: int = 512) -> bytes:
    """A PNG drawn from `prompt`: colours from its colour words, motifs from its nouns
    (夜/星/月/太陽/空/海/山/花/木/猫), shapes placed by a generator seeded with the prompt's hash."""
    seed = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "big")
    rng = random.Random(seed)
    colours = [rgb for words, rgb in _PROMPT_COLOURS if _has(prompt, *words)]
    palette = colours or [rng.choice(_DEFAULT_PALETTE), rng.choice(_DEFAULT_PALETTE)]
    night = _has(prompt, "夜", "night", "宇宙", "space")
    if night:
        top, bottom = (8, 12, 40), _shade(palette[0], 0.45) if colours else (45, 35, 95)
    elif _has(prompt, "空", "sky"):
        top, bottom = (110, 170, 245), (225, 240, 255)
    elif len(colours) == 1:
        # One colour word: a pale wash of it, so motifs painted in that colour still stand out.
        top, bottom = _mix(palette[0], 0.25), _mix(palette[0], 0.55)
    else:
        top, bottom = _shade(palette[0], 1.15), _shade(palette[-1] if len(palette) > 1 else palette[0], 0.6)
    img = _gradient(size, top, bottom).convert("RGBA")
    layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    s = size / 512
    motif = False
    if night or _has(prompt, "星", "star"):
        motif = True
        for _ in range(70):
            x, y, r = rng.uniform(0, size), rng.uniform(0, size * 0.7), rng.uniform(0.8, 2.6) * s
            draw.ellipse((x - r, y - r, x + r, y + r), fill=(255, 250, 220, rng.randint(150, 255)))
        for _ in range(5 if _has(prompt, "星", "star") else 1):
            _star(draw, rng.uniform(40, size - 40), rng.uniform(30, size * 0.5), rng.uniform(10, 22) * s,
                  (255, 230, 120, 240))
    if _has(prompt, "月", "moon"):
        motif = True
        cx, cy, r = size * 0.75, size * 0.2, 45 * s
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(250, 240, 190, 255))
        draw.ellipse((cx - r + 22 * s, cy - r - 8 * s, cx + r + 22 * s, cy + r - 8 * s), fill=(0, 0, 0, 0))
    if _has(prompt, "太陽", "sun", "晴"):
        motif = True
        cx, cy, r = size * 0.25, size * 0.22, 50 * s
        for i in range(12):
            a = i * math.pi / 6
            draw.line((cx + r * 1.2 * math.cos(a), cy + r * 1.2 * math.sin(a),
                       cx + r * 1.6 * math.cos(a), cy + r * 1.6 * math.sin(a)), fill=(255, 200, 60, 255),
                      width=max(1, int(6 * s)))
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 210, 70, 255))
    if _has(prompt, "山", "mountain"):
        motif = True
        for i in range(3):
            peak = rng.uniform(0.2, 0.8) * size
            h = rng.uniform(0.35, 0.6) * size
            shade = _shade(palette[i % len(palette)], 0.5 + 0.15 * i)
            draw.polygon([(peak - h, size), (peak, size - h), (peak + h, size)], fill=(*shade, 230))
    if _has(prompt, "海", "sea", "ocean", "波", "wave"):
        motif = True
        for band in range(5):
            y0 = size * (0.62 + band * 0.08)
            phase = band + rng.random()
            pts = [(x, y0 + 8 * s * math.sin(x / (30 * s) + phase)) for x in range(0, size + 8, 8)]
            draw.polygon([*pts, (size, size), (0, size)], fill=(30, 90 + band * 20, 170 + band * 12, 120))
    if _has(prompt, "木", "森", "tree", "forest"):
        motif = True
        for _ in range(4):
            x, base = rng.uniform(40, size - 40), size * rng.uniform(0.85, 0.98)
            draw.rectangle((x - 6 * s, base - 70 * s, x + 6 * s, base), fill=(100, 65, 35, 255))
            draw.ellipse((x - 40 * s, base - 140 * s, x + 40 * s, base - 55 * s), fill=(40, 130, 60, 235))
    if _has(prompt, "花", "flower", "桜"):
        motif = True
        petal = palette[0] if colours else (240, 150, 180)
        for _ in range(5):
            x, y, r = rng.uniform(60, size - 60), rng.uniform(size * 0.5, size - 50), rng.uniform(14, 26) * s
            for k in range(5):
                a = k * 2 * math.pi / 5
                px, py = x + r * math.cos(a), y + r * math.sin(a)
                draw.ellipse((px - r * 0.7, py - r * 0.7, px + r * 0.7, py + r * 0.7), fill=(*petal, 235))
            draw.ellipse((x - r * 0.45, y - r * 0.45, x + r * 0.45, y + r * 0.45), fill=(250, 220, 80, 255))
    if _has(prompt, "猫", "ねこ", "ネコ", "cat"):
        motif = True
        body = (30, 30, 35) if night or not colours else _shade(palette[0], 0.6)
        cx, base = size * 0.5, size * 0.9
        draw.ellipse((cx - 95 * s, base - 150 * s, cx + 95 * s, base), fill=(*body, 255))
        draw.ellipse((cx - 60 * s, base - 250 * s, cx + 60 * s, base - 135 * s), fill=(*body, 255))
        for side in (-1, 1):
            draw.polygon([(cx + side * 55 * s, base - 215 * s), (cx + side * 50 * s, base - 290 * s),
                          (cx + side * 12 * s, base - 245 * s)], fill=(*body, 255))
            ex = cx + side * 24 * s
            draw.ellipse((ex - 9 * s, base - 205 * s, ex + 9 * s, base - 187 * s), fill=(240, 220, 80, 255))
        draw.arc((cx + 40 * s, base - 130 * s, cx + 190 * s, base + 10 * s), 200, 330, fill=(*body, 255),
                 width=max(2, int(16 * s)))
    if not motif:
        for _ in range(rng.randint(7, 12)):
            c = rng.choice(palette + [_shade(palette[0], 1.4)])
            x, y, r = rng.uniform(0, size), rng.uniform(0, size), rng.uniform(30, 140) * s
            shape = rng.choice(("circle", "rect"))
            box = (x - r, y - r, x + r, y + r)
            if shape == "circle":
                draw.ellipse(box, fill=(*c, rng.randint(90, 180)))
            else:
                draw.rectangle(box, fill=(*c, rng.randint(70, 150)))
    img = Image.alpha_composite(img, layer).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
