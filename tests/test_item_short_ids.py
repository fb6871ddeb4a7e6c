"""Items' short ids (`item:N`, the item's slot in its container, as upstream numbers them) and the room
modal's edits through `AdminService`: numbered oldest first, taken by the tools, renamed and described
with clear refusals, deleted after a backup."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from saiverse.care import AdminError
from saiverse.manager import SAIVerseManager
from tools import ToolError


def test_items_are_numbered_oldest_first_and_tools_take_the_short_id(manager: SAIVerseManager) -> None:
    with manager.db.session() as s:  # items from before slots: numbered the first time their room is listed
        s.execute(text("UPDATE item_location SET SLOT_NUMBER = NULL"))
    old = manager.items.list_owned("building", "library")
    assert [i.slot_number for i in old] == list(range(1, len(old) + 1))
    new = manager.items.create_object("木の箱", "小さな箱", owner_kind="building", owner_id="library")
    assert new.slot_number == len(old) + 1
    listed = manager.run_tool("item_list", "mina", "library", {})
    assert f"item:{new.slot_number} / {new.item_id} 「木の箱」" in listed
    renamed = json.loads(manager.run_tool("item_change_name", "mina", "library",
                                          {"item_id": f"item:{new.slot_number}", "name": "杉の箱"}))
    assert renamed == {"item_id": new.item_id, "name": "杉の箱"}
    moved = json.loads(manager.run_tool("item_move", "mina", "library",
                                        {"item_ids": f"item：{new.slot_number}", "destination_type": "persona"}))
    assert moved["moved"][0]["item_id"] == new.item_id and moved["moved"][0]["slot_number"] == 1
    with pytest.raises(ToolError, match="item:99 はここにも手元にもありません"):
        manager.run_tool("item_change_name", "mina", "library", {"item_id": "item:99", "name": "x"})


def test_edit_and_delete_an_item_as_the_modal_does(manager: SAIVerseManager) -> None:
    doc = manager.items.create_document("メモ", "本文", owner_kind="building", owner_id="library", description="短い")
    with pytest.raises(AdminError, match="アイテム名が空です"):
        manager.admin.edit_item(doc.item_id, "  ", "説明")
    with pytest.raises(AdminError, match="説明が長すぎます"):
        manager.admin.edit_item(doc.item_id, "メモ", "あ" * 301)
    assert manager.items.get(doc.item_id).name == "メモ"  # a refusal changes nothing
    done = manager.admin.edit_item(doc.item_id, "買い物メモ", "牛乳とパン")
    assert (done.name, done.description) == ("買い物メモ", "牛乳とパン")
    path = manager.items.file_of(done)
    report = manager.admin.delete_item(doc.item_id)
    assert report.backup is not None and report.backup.is_file() and report.name == "買い物メモ"
    assert not path.exists()
    with pytest.raises(LookupError):
        manager.items.get(doc.item_id)
