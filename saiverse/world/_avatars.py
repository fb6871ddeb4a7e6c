"""Persona avatar pictures: stored under `<home>/icons/` (where an import copies upstream's), checked
like any picture upload, named by persona and content so a browser never shows a stale one."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from database import Database
from database.models import Persona
from saiverse.world._media import CheckedImage, atomic_write, resolve_in_home
from saiverse.world._world import UnknownIdError
from words import say

ICONS_DIR = "icons"
"""Avatar pictures, relative to the data home."""


def store_avatar(db: Database, home: Path, persona_id: str, image: CheckedImage) -> str:
    """Write `image` as the persona's avatar and point the persona at it.

    Returns:
        The picture's path relative to the home (`icons/<persona>-<hash>.<ext>`).

    Raises:
        UnknownIdError: no such persona (nothing is written)."""
    with db.session() as s:
        if s.get(Persona, persona_id) is None:
            raise UnknownIdError(say("no_persona", id=persona_id))
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", persona_id)[:40] or "persona"
    rel = f"{ICONS_DIR}/{stem}-{hashlib.sha256(image.data).hexdigest()[:12]}.{image.ext}"
    path = resolve_in_home(home, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, image.data)  # the file first: a row never names a picture that is not there
    with db.session() as s:
        persona = s.get(Persona, persona_id)
        if persona is None:
            raise UnknownIdError(say("no_persona", id=persona_id))
        persona.avatar_image = rel
    return rel


def clear_avatar(db: Database, persona_id: str) -> None:
    """The persona shows its emoji again (its picture file stays: a backup may name it)."""
    with db.session() as s:
        persona = s.get(Persona, persona_id)
        if persona is None:
            raise UnknownIdError(say("no_persona", id=persona_id))
        persona.avatar_image = None


def avatar_path(home: Path, rel: str | None) -> Path | None:
    """The avatar picture's absolute path when it exists inside the home; else None (the emoji)."""
    if not rel:
        return None
    try:
        path = resolve_in_home(home, rel)
    except ValueError:
        return None
    return path if path.is_file() else None
