"""Aspect ratios for drawn pictures: upstream's `generate_image(aspect_ratio="16:9")`, for any model.

Image models here draw at their own size; the picture is then centre-cropped to the ratio asked for,
so a playbook's aspect ratio is honoured whichever provider drew it.
"""

from __future__ import annotations

import io
import re

from PIL import Image

_RATIO = re.compile(r"^\s*(\d{1,2})\s*:\s*(\d{1,2})\s*$")


def parse_ratio(ratio: str) -> tuple[int, int]:
    """`"16:9"` → (16, 9); anything else is a ValueError naming it."""
    m = _RATIO.match(ratio or "")
    if not m or int(m.group(1)) == 0 or int(m.group(2)) == 0:
        raise ValueError(f"aspect_ratio must look like '16:9', got {ratio!r}")
    return int(m.group(1)), int(m.group(2))


def crop_to_ratio(data: bytes, ratio: str) -> bytes:
    """The image centre-cropped to `ratio` (same format); unchanged when it already fits."""
    w_ratio, h_ratio = parse_ratio(ratio)
    with Image.open(io.BytesIO(data)) as img:
        fmt = img.format or "PNG"
        width, height = img.size
        target_w = min(width, round(height * w_ratio / h_ratio))
        target_h = min(height, round(width * h_ratio / w_ratio))
        if (target_w, target_h) == (width, height) or min(target_w, target_h) < 1:
            return data
        left, top = (width - target_w) // 2, (height - target_h) // 2
        cropped = img.crop((left, top, left + target_w, top + target_h))
        out = io.BytesIO()
        cropped.save(out, format=fmt)
        return out.getvalue()
