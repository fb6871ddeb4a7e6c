"""Upstream v0.3's item_change_name and item_write_description, with upstream's argument names, on a real home."""

from __future__ import annotations

import json

import pytest

from saiverse.manager import SAIVerseManager
from tests.support.compat import compat_v03_path
from tools import TOOL_REGISTRY, ToolError


def test_rename_and_describe_an_item_here(manager: SAIVerseManager) -> None:
    item = manager.items.list_owned("building", "library")[0]
    renamed = json.loads(manager.run_tool("item_change_name", "mina", "library",
                                          {"item_id": item.item_id, "name": "  新しい\n名前  "}))
    assert renamed == {"item_id": item.item_id, "name": "新しい 名前"}
    assert manager.items.get(item.item_id).name == "新しい 名前"
    described = json.loads(manager.run_tool("item_write_description", "mina", "library",
                                            {"item_id": item.item_id, "description": "窓辺に置かれた本"}))
    assert described["description"] == "窓辺に置かれた本" == manager.items.get(item.item_id).description
    with pytest.raises(ToolError, match="アイテム名が空です"):
        manager.run_tool("item_change_name", "mina", "library", {"item_id": item.item_id, "name": "  "})
    assert manager.items.get(item.item_id).name == "新しい 名前"  # a refused rename changes nothing
    with pytest.raises(ToolError, match="存在しません"):
        manager.run_tool("item_change_name", "mina", "library", {"item_id": "nope", "name": "x"})
    elsewhere = next(i for b in ("atelier", "museum", "entrance") for i in manager.items.list_owned("building", b))
    with pytest.raises(ToolError, match="ここにはありません"):
        manager.run_tool("item_change_name", "mina", "library", {"item_id": elsewhere.item_id, "name": "x"})


def test_upstream_argument_names() -> None:
    upstream = json.loads(compat_v03_path("tool-arguments.json").read_text(encoding="utf-8"))
    for name in ("item_change_name", "item_write_description"):
        assert TOOL_REGISTRY[name].parameters["properties"].keys() == upstream[name]["properties"].keys()
        assert set(TOOL_REGISTRY[name].parameters["required"]) == set(upstream[name]["required"])
