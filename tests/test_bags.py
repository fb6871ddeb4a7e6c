"""Bags (upstream v0.3's containers): an item that holds items. A persona puts items in (item_move to a
bag, by id or short id), lists them (item_list), takes them out; refusals say why; deleting a bag puts its
contents where it was; `python main.py bag` makes one and `items` shows what it holds — as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from tools import ToolError

ROOT = Path(__file__).resolve().parents[1]


def test_put_in_list_take_out(manager: SAIVerseManager) -> None:
    bag = manager.items.create_object("革の袋", "旅の袋", owner_kind="building", owner_id="library", kind="bag")
    coin = manager.items.create_object("銀貨", "古い銀貨", owner_kind="building", owner_id="library")
    moved = json.loads(manager.run_tool("item_move", "mina", "library", {
        "item_ids": f"item:{coin.slot_number}", "destination_type": "bag", "destination_id": f"item:{bag.slot_number}"}))
    assert moved["moved"] == [{"item_id": coin.item_id, "name": "銀貨", "owner_kind": "bag", "owner_id": bag.item_id,
                               "slot_number": 1}]
    listed = manager.run_tool("item_list", "mina", "library", {})
    assert "「革の袋」 袋" in listed and f"- {coin.item_id} 「銀貨」 オブジェクト (袋「革の袋」の中)" in listed
    assert [i.item_id for i in manager.building_view("library")["items"]].count(coin.item_id) == 0  # inside it
    # Carried along: the bag in her hands, the coin still in it and within her reach.
    manager.run_tool("item_move", "mina", "library", {"item_ids": bag.item_id, "destination_type": "persona"})
    where = "library"
    out = json.loads(manager.run_tool("item_move", "mina", where, {"item_ids": coin.item_id,
                                                                   "destination_type": "building"}))
    assert out["moved"][0]["owner_kind"] == "building" and manager.items.list_owned("bag", bag.item_id) == []

    with pytest.raises(ToolError, match="袋ではない"):
        manager.run_tool("item_move", "mina", where, {"item_ids": bag.item_id, "destination_type": "bag",
                                                      "destination_id": coin.item_id})
    with pytest.raises(ToolError, match="それ自身"):
        manager.run_tool("item_move", "mina", where, {"item_ids": bag.item_id, "destination_type": "bag",
                                                      "destination_id": bag.item_id})
    with pytest.raises(ToolError, match="destination_id に袋の id"):
        manager.run_tool("item_move", "mina", where, {"item_ids": coin.item_id, "destination_type": "bag"})


def test_a_bag_inside_a_bag_and_deleting_one(manager: SAIVerseManager) -> None:
    outer = manager.items.create_object("大きな袋", "", owner_kind="building", owner_id="library", kind="bag")
    inner = manager.items.create_object("小さな袋", "", owner_kind="building", owner_id="library", kind="bag")
    pen = manager.items.create_object("ペン", "", owner_kind="building", owner_id="library")
    manager.items.move(inner.item_id, "bag", outer.item_id)
    manager.items.move(pen.item_id, "bag", inner.item_id)
    with pytest.raises(ValueError, match="それ自身かその中の袋"):
        manager.items.move(outer.item_id, "bag", inner.item_id)  # never a cycle
    assert "「ペン」 オブジェクト (袋「小さな袋」の中)" in manager.run_tool("item_list", "mina", "library", {})
    report = manager.admin.delete_item(outer.item_id)  # what it held is put where it was
    assert report.items_moved == 1 and report.backup is not None
    assert manager.items.get(inner.item_id).owner_id == "library"
    assert manager.items.get(pen.item_id).owner_id == inner.item_id


def test_bags_from_the_cli(manager: SAIVerseManager, saiverse_home: Path) -> None:
    manager.close()
    run = [sys.executable, str(ROOT / "main.py"), "--home", str(saiverse_home)]
    made = subprocess.run([*run, "bag", "--building", "library", "--name", "道具袋", "--json"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    bag = json.loads(made.stdout)
    assert bag["type"] == "bag" and bag["owner_id"] == "library"
    lines = subprocess.run([*run, "items", "--building", "library", "--json"], capture_output=True, text=True,
                           timeout=120, cwd=ROOT).stdout.splitlines()
    key = next(i for i in map(json.loads, lines) if i["name"] == "古い鍵")
    moved = subprocess.run([*run, "tool", "item_move", "--persona", "mina", "--args",
                            json.dumps({"item_ids": key["item_id"], "destination_type": "bag",
                                        "destination_id": bag["item_id"]})],
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert moved.returncode == 0, moved.stderr
    shown = subprocess.run([*run, "items", "--building", "library"], capture_output=True, text=True, timeout=120,
                           cwd=ROOT)
    assert "[bag] 道具袋" in shown.stdout and "袋の中: item:1" in shown.stdout and "古い鍵" in shown.stdout
    refused = subprocess.run([*run, "bag", "--building", "nowhere", "--name", "x"], capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
    assert refused.returncode == 2 and "nowhere" in refused.stderr and "Traceback" not in refused.stderr
