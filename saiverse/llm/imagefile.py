"""Image bytes for the online providers: read an attached file and tell its MIME type."""

from __future__ import annotations

from pathlib import Path

from chat import LLMError
from words import say

_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
]


def sniff_mime(data: bytes) -> str:
    """The MIME type of image bytes from their magic number (`application/octet-stream` if unknown)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    return "application/octet-stream"


def read_image(path: str) -> tuple[bytes, str]:
    """Bytes and MIME type of an attached image; `LLMError(kind="bad_request")` if unreadable."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LLMError(say("img_unreadable", name=Path(path).name, why=exc.strerror),
                       kind="bad_request") from exc
    return data, sniff_mime(data)
