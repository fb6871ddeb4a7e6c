"""Media files under the data home: naming, safe path resolution, atomic writes, image checks.

Every `FILE_PATH` goes through `resolve_in_home`; nothing outside `SAIVERSE_HOME` is ever read or
written, whatever a model, a playbook or an old database row says.
"""

from __future__ import annotations

import io
import os
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from saiverse.disk import UnsafePathError as UnsafePathError  # the world's face names them (saiverse/disk.py)
from saiverse.disk import atomic_write as atomic_write
from saiverse.disk import commit_staged as commit_staged
from saiverse.disk import relative_to_home as relative_to_home
from saiverse.disk import resolve_in_home as resolve_in_home
from saiverse.disk import stage_write as stage_write
from saiverse.errors import UserError
from words import say

SUMMARY_SUFFIX = ".summary.txt"
IMAGE_FORMATS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}
IMAGE_MIME = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}


class InvalidImageError(UserError, ValueError):
    """Bytes that are not an acceptable image; the message says why."""


def new_file_name(ext: str, now: datetime | None = None) -> str:
    """`YYYYMMDD_HHMMSS_<uuid>.<ext>` (docs/ARCHITECTURE.md, "Storage")."""
    stamp = (now or datetime.now()).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{uuid.uuid4().hex}.{ext.lstrip('.')}"


def staged_name(path: Path, version: int) -> Path:
    """`.<file>.v<N>.tmp`: the staged version N of `path` (start-up repair reads the version back)."""
    return path.with_name(f".{path.name}.v{version}.tmp")


def stage_versioned(path: Path, data: bytes | str, version: int) -> tuple[Path, Path]:
    """Like `stage_write`, but under the deterministic name `staged_name(path, version)`."""
    tmp, final = stage_write(path, data)
    target = staged_name(path, version)
    os.replace(tmp, target)
    return target, final


def summary_path(path: Path) -> Path:
    """`<file>.summary.txt` sidecar of a media file."""
    return path.with_name(path.name + SUMMARY_SUFFIX)


def remove_quietly(*paths: Path) -> None:
    for p in paths:
        try:
            p.unlink(missing_ok=True)
        except OSError:
            pass


@dataclass(frozen=True)
class CheckedImage:
    """An image that passed the checks: its bytes, extension, MIME type and size."""

    data: bytes
    ext: str
    mime: str
    width: int
    height: int


def check_image(data: bytes, *, max_bytes: int, max_pixels: int) -> CheckedImage:
    """Judge an upload by its content (not its name): format, byte size, pixel count, integrity."""
    if not data:
        raise InvalidImageError(say("img_empty"))
    if len(data) > max_bytes:
        raise InvalidImageError(
            say("img_too_big", mb=len(data) / 1_048_576, limit=max_bytes / 1_048_576)
        )
    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format or ""
            width, height = img.size
            if fmt not in IMAGE_FORMATS:
                raise InvalidImageError(
                    say("img_format", fmt=fmt or say("img_format_unknown"))
                )
            if width * height > max_pixels:
                raise InvalidImageError(
                    say("img_pixels", w=width, h=height, mp=width * height / 1e6, limit=max_pixels / 1e6)
                )
            img.verify()
        with Image.open(io.BytesIO(data)) as img:
            img.load()  # verify() does not decode pixel data; a truncated file fails here
    except InvalidImageError:
        raise
    except Image.DecompressionBombError as exc:
        raise InvalidImageError(
            say("img_bomb", limit=max_pixels / 1e6)
        ) from exc
    except UnidentifiedImageError as exc:
        raise InvalidImageError(say("img_not_image")) from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise InvalidImageError(say("img_broken", detail=exc)) from exc
    ext = IMAGE_FORMATS[fmt]
    return CheckedImage(data=data, ext=ext, mime=IMAGE_MIME[ext], width=width, height=height)
