"""Upstream v0.3's chronicle_context_up / _down on an imported home: from an entry to its parent and siblings,
and down to its messages or child entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.upstream_small import small_home
from tools import ToolError


def test_walk_up_and_down_the_chronicle(tmp_path: Path, saiverse_home: Path) -> None:
    small_home(tmp_path / "upstream")
    import_saiverse(tmp_path / "upstream", load_settings(saiverse_home))
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        def run(name: str, entry_id: str) -> str:
            return str(manager.run_tool(name, "air_city_a", None, {"entry_id": entry_id}))

        down = run("chronicle_context_down", "a-1")
        assert "エアはユーザーと猫の本について話した。" in down
        assert "図書館に猫の本はある？" in down and "二階に猫の写真集がありますよ。" in down  # its raw messages
        top = run("chronicle_context_down", "a-2")
        assert "エアの最初の日々。" in top and "[a-1] Lv.1" in top
        with pytest.raises(ToolError, match="上のまとめがありません"):
            run("chronicle_context_up", "a-2")
        assert manager.chronicle.get("air_city_a", "a-1").parent_id is None  # found by what summarises it
        up = run("chronicle_context_up", "a-1")
        assert "エアの最初の日々。" in up and "[a-1] Lv.1" in up and "← これ" in up
        with pytest.raises(ToolError):
            run("chronicle_context_down", "nope")
    finally:
        manager.close()
