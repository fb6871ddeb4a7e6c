"""The city map: the layout (stored positions kept, the others placed on a stable grid), positions
edited through the admin service and the CLI with validation, and the SVG the chat view draws."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import main as cli_main
from saiverse.care import AdminService
from saiverse.errors import USER_ERROR_EXIT
from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from saiverse.world import map_layout
from tests.support.upstream_v03 import small_v03_home
from ui.city_map import NAME_MIN_PX, NAME_PX, city_map_svg, clip_name, grid_cells, name_fit
from ui.i18n import Labels


def _b(bid: str, name: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(building_id=bid, name=name or bid)


def _p(pid: str, where: str | None, avatar: str = "🙂") -> SimpleNamespace:
    return SimpleNamespace(persona_id=pid, name=pid.title(), avatar=avatar, building_id=where)


def test_auto_placement_is_a_stable_grid_and_stored_positions_are_kept() -> None:
    buildings = [_b("a"), _b("b"), _b("c"), _b("d"), _b("e")]
    first = map_layout(buildings, {}, [], "c")
    assert [(s.x, s.y) for s in first] == [(0, 0), (160, 0), (320, 0), (0, 160), (160, 160)]
    assert all(s.auto for s in first) and [s.user_here for s in first] == [False, False, True, False, False]
    assert map_layout(buildings, {}, [], "c") == first  # the same city, the same picture

    # Two stored positions (negative, fractional): kept as they are; the rest go below them, avoiding them.
    positions = {"b": (12.5, -40.0), "d": (-150.0, 415.25), "e": None}
    spots = {s.building_id: s for s in map_layout(buildings, positions, [_p("mina", "d", "📚")], None)}
    assert (spots["b"].x, spots["b"].y, spots["b"].auto) == (12.5, -40.0, False)
    assert (spots["d"].x, spots["d"].y, spots["d"].auto) == (-150.0, 415.25, False)
    assert [(spots[k].x, spots[k].y) for k in "ace"] == [(-150.0, 575.25), (10.0, 575.25), (-150.0, 735.25)]
    assert spots["d"].personas == [{"persona_id": "mina", "name": "Mina", "avatar": "📚"}]
    assert not any(s.user_here for s in spots.values())
    # Setting a position moves no other stored building, and the auto ones stay put while nothing above changes.
    again = {s.building_id: s for s in map_layout(buildings, {**positions, "a": (900.0, 0.0)}, [], None)}
    assert (again["b"].x, again["b"].y, again["d"].x, again["d"].y) == (12.5, -40.0, -150.0, 415.25)
    assert (again["c"].x, again["c"].y) == (-150.0, 575.25)


def test_imported_v03_positions_reach_the_map(tmp_path: Path, saiverse_home: Path) -> None:
    small_v03_home(tmp_path / "upstream")
    import_saiverse(tmp_path / "upstream", load_settings(saiverse_home))
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        spots = {s.building_id: s for s in m.city_map()}
        assert (spots["cafe_city_a"].x, spots["cafe_city_a"].y, spots["cafe_city_a"].auto) == (12.5, -40.0, False)
        assert spots["library_city_a"].auto  # its MAP_X was not a number: placed automatically
        assert sum(s.user_here for s in spots.values()) == 1
        where = {p.persona_id: p.building_id for p in m.personas()}
        for s in spots.values():
            assert {p["persona_id"] for p in s.personas} == {pid for pid, b in where.items() if b == s.building_id}
    finally:
        m.close()


@pytest.mark.parametrize(("spec", "why"), [
    ({"map_x": "nan", "map_y": 1}, "までの数"),
    ({"map_x": float("inf"), "map_y": 1}, "までの数"),
    ({"map_x": 1, "map_y": 1e9}, "map_y は -100000 から 100000 までの数"),
    ({"map_x": "left", "map_y": 1}, "map_x は数か空欄にしてください ('left'"),
    ({"map_x": 5}, "両方書くか"),
    ({"map_x": "", "map_y": 3}, "両方書くか"),
])
def test_admin_refuses_bad_positions_and_writes_nothing(manager: SAIVerseManager, spec: dict[str, Any],
                                                        why: str) -> None:
    before = manager.city_map()
    with pytest.raises(ValueError, match=re.escape(why)):
        manager.admin.update_building("library", spec)
    with pytest.raises(ValueError, match=re.escape(why)):
        manager.admin.create_building({"name": "Park", **spec})
    assert manager.city_map() == before


def test_admin_sets_and_clears_a_position(manager: SAIVerseManager) -> None:
    assert isinstance(manager.admin, AdminService)
    manager.admin.update_building("library", {"map_x": "-20.5", "map_y": 300})
    spot = next(s for s in manager.city_map() if s.building_id == "library")
    assert (spot.x, spot.y, spot.auto) == (-20.5, 300.0, False)
    manager.admin.update_building("library", {"name": "図書館"})  # other fields leave the position alone
    assert next(s for s in manager.city_map() if s.building_id == "library").auto is False
    manager.admin.update_building("library", {"map_x": None, "map_y": ""})  # empty: automatic again
    assert next(s for s in manager.city_map() if s.building_id == "library").auto is True
    park = manager.admin.create_building({"name": "Park", "map_x": 0, "map_y": 0})
    assert next(s for s in manager.city_map() if s.building_id == park.building_id).auto is False


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_places_buildings_on_the_map(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _call(capsys, "building", "create", "--name", "Harbor", "--map-x", "40", "--map-y", "-8", "--json")
    assert code == 0 and json.loads(out)["building_id"] == "harbor"
    code, out, _ = _call(capsys, "building", "move-on-map", "library", "--map-x", "7", "--map-y", "9", "--json")
    assert code == 0 and json.loads(out) | {"personas": []} == {
        "building_id": "library", "name": "図書館", "x": 7.0, "y": 9.0, "auto": False, "personas": [],
        "user_here": json.loads(out)["user_here"]}
    code, out, err = _call(capsys, "building", "move-on-map", "library", "--map-x", "inf", "--map-y", "1")
    assert code == USER_ERROR_EXIT and "map_x は -100000 から" in err and out == ""
    code, _, err = _call(capsys, "building", "move-on-map", "library", "--map-x", "1")
    assert code == USER_ERROR_EXIT and "map_x と map_y は両方書くか" in err
    code, _, err = _call(capsys, "building", "move-on-map", "library", "--auto", "--map-x", "1", "--map-y", "2")
    assert code == USER_ERROR_EXIT and "--map-x X --map-y Y, or --auto (not both)" in err
    code, out, _ = _call(capsys, "world", "--json")
    positions = {b["building_id"]: b["map_position"] for b in json.loads(out)["buildings"]}
    assert positions["library"] == [7.0, 9.0] and positions["harbor"] == [40.0, -8.0]
    code, out, _ = _call(capsys, "building", "move-on-map", "library", "--auto")
    assert code == 0 and "自動で置きました" in out
    code, out, _ = _call(capsys, "world", "--json")
    assert {b["building_id"]: b["map_position"] for b in json.loads(out)["buildings"]}["library"] is None


def test_svg_escapes_names_and_marks_who_is_where() -> None:
    evil = '<script>alert(1)</script>&"'
    spots = map_layout([_b("x<1", evil), _b("home", "家")], {"x<1": (0.0, 0.0)},
                       [_p("a", "x<1", "<b>"), _p("b", "home", "🎨")], "home")
    svg = city_map_svg(spots, "x<1", Labels("ja"))
    assert "<script>" not in svg and "<b>" not in svg and 'data-map-building="x&lt;1"' in svg
    assert "&lt;script&gt;" in svg and "&lt;b&gt;" in svg
    assert svg.count('data-map-building=') == 2 and svg.count("sv-map-shown") == 1
    assert re.search(r'class="sv-map-tile sv-map-here sv-map-auto" data-map-building="home"', svg)
    assert "📍 あなた" in svg and "📍 You" in city_map_svg(spots, None, Labels("en"))
    assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")  # no external asset
    assert "建物がありません" in city_map_svg([], None, Labels("ja"))


def test_tiles_keep_the_arrangement_one_cell_each() -> None:
    assert clip_name("ユーザーの部屋") == "ユーザーの…" and clip_name("Park") == "Park"
    # A name that fits a little smaller is shrunk, not cut (issue 35: 「エントラン…」 with room to spare).
    assert name_fit("図書館") == ("図書館", NAME_PX)
    assert name_fit("エントランス")[0] == "エントランス" and NAME_MIN_PX <= name_fit("エントランス")[1] < NAME_PX
    assert name_fit("ユーザーの部屋")[0] == "ユーザーの部屋"
    assert name_fit("とても長い名前の建物です")[0].endswith("…") and name_fit("とても長い名前の建物です")[1] == NAME_MIN_PX
    spots = map_layout([_b(c) for c in "abcde"], {"a": (500.0, 0.0), "b": (0.0, 0.0), "c": (0.0, 900.0)}, [], None)
    cells, cols, rows = grid_cells(spots)
    assert cols == 2 and len(set(cells)) == 5
    assert cells[0] == (1, 0) and cells[1] == (0, 0) and cells[2][1] > 0  # right, left, below
    assert rows == max(r for _, r in cells) + 1
