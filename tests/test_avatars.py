"""Persona avatar pictures (saiverse/world/_avatars.py): checked like picture uploads, kept under
<home>/icons/, drawn from there; a refused file changes nothing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from saiverse.errors import UserError
from saiverse.manager import SAIVerseManager
from saiverse.world import UnknownIdError


def _png(color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (32, 32), color).save(buf, "PNG")
    return buf.getvalue()


def test_an_uploaded_avatar_is_kept_under_icons_and_named(manager: SAIVerseManager, saiverse_home: Path) -> None:
    p = manager.set_avatar_image("mina", _png())
    assert p.avatar_image is not None and p.avatar_image.startswith("icons/mina-") and p.avatar_image.endswith(".png")
    path = Path(manager.avatar_files()["mina"])
    assert path.is_file() and path.parent == (saiverse_home / "icons").resolve() and path.read_bytes() == _png()
    assert "sora" not in manager.avatar_files()
    manager.clear_avatar_image("mina")
    assert manager.world.persona("mina").avatar_image is None and "mina" not in manager.avatar_files()


def test_a_refused_avatar_changes_nothing(manager: SAIVerseManager, saiverse_home: Path) -> None:
    with pytest.raises(UserError):
        manager.set_avatar_image("mina", b"not a picture")
    with pytest.raises(UnknownIdError):
        manager.set_avatar_image("nobody", _png())
    assert manager.world.persona("mina").avatar_image is None
    assert not (saiverse_home / "icons").exists() or not any((saiverse_home / "icons").iterdir())


def test_an_avatar_outside_the_home_or_missing_is_not_drawn(manager: SAIVerseManager, tmp_path: Path) -> None:
    decoy = tmp_path / "decoy.png"
    decoy.write_bytes(_png())
    manager.world.set_persona_extra("mina", "x", None)  # the persona exists
    from database.models import Persona

    with manager.db.session() as s:
        s.get(Persona, "mina").avatar_image = str(decoy)
        s.get(Persona, "sora").avatar_image = "icons/gone.png"
    assert manager.avatar_files() == {}
