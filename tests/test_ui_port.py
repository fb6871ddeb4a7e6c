"""The UI on its port (saiverse/port.py): handlers are plain functions over `CityPort`, tested here in
process with a fake city that implements only what each one uses; the real manager implements all of it.
Chromium keeps the flows a person clicks through (tests/test_ui_*.py)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from saiverse.port import CityPort
from ui.autonomy import autonomy_message
from ui.i18n import Labels
from ui.session import first_building, still_there
from ui.stream import ChatView
from ui.tabs.memory_tracks import panel_html


@dataclass
class _Building:
    building_id: str
    name: str


@dataclass
class FakeCity:
    """The parts of a city these handlers read; anything else would fail loudly (AttributeError)."""

    buildings_now: list[str] = field(default_factory=lambda: ["library", "atelier"])
    user_at: str = "library"
    autonomy: dict[str, Any] = field(default_factory=lambda: {"on": False, "personas": [], "minutes": 10})
    tracks: dict[str, Any] = field(default_factory=dict)

    def buildings(self) -> list[_Building]:
        return [_Building(b, b.title()) for b in self.buildings_now]

    def user_building(self) -> str:
        return self.user_at

    def autonomy_status(self) -> dict[str, Any]:
        return self.autonomy

    def tracks_view(self, persona_id: str) -> dict[str, Any]:
        return self.tracks[persona_id]


def test_a_window_keeps_its_building_and_leaves_a_deleted_one() -> None:
    city = FakeCity()
    view = ChatView(building_id="atelier")
    assert first_building(city, view, stored=None) == "atelier"  # type: ignore[arg-type]
    assert first_building(city, ChatView(), stored="atelier") == "atelier"  # type: ignore[arg-type]
    assert first_building(city, ChatView(), stored="gone") == "library"  # type: ignore[arg-type]
    assert still_there(city, view) is None  # type: ignore[arg-type]
    city.buildings_now.remove("atelier")
    assert still_there(city, view) == "library"  # type: ignore[arg-type]


def test_the_autonomy_toast_says_who_acts() -> None:
    city = FakeCity()
    labels = Labels("ja")
    assert autonomy_message(city, labels) == labels("autonomy_off")  # type: ignore[arg-type]
    city.autonomy = {"on": True, "personas": [], "minutes": 10}
    assert autonomy_message(city, labels) == labels("autonomy_on_nobody")  # type: ignore[arg-type]
    city.autonomy = {"on": True, "personas": ["ミナ", "ソラ"], "minutes": 5}
    said = autonomy_message(city, labels)  # type: ignore[arg-type]
    assert "ミナ、ソラ" in said and "5" in said


def test_the_tracks_panel_escapes_what_personas_wrote() -> None:
    city = FakeCity(tracks={"mina": {
        "state": "Active",
        "tracks": [{"status": "running", "title": "<b>星図</b>", "track_type": "project", "open_notes": [], "log": []}],
        "notes": [], "memory_notes": [], "judgments": [],
    }})
    html = panel_html(city, Labels("ja"), "mina")  # type: ignore[arg-type]
    assert "&lt;b&gt;星図&lt;/b&gt;" in html and "<b>星図</b>" not in html
    assert panel_html(city, Labels("ja"), None)  # no persona picked: the empty table, no call  # type: ignore[arg-type]


def test_the_manager_implements_the_port(manager: Any) -> None:
    """Every attribute and method `CityPort` declares exists on the real manager, methods with the
    port's parameters."""
    declared = set(getattr(CityPort, "__annotations__", {}))
    methods = {n: f for n, f in vars(CityPort).items() if inspect.isfunction(f) and not n.startswith("_")}
    missing = [n for n in declared | set(methods) if not hasattr(manager, n)]
    assert not missing, f"SAIVerseManager lacks {missing}"
    for name, func in methods.items():
        want = list(inspect.signature(func).parameters)[1:]
        have = list(inspect.signature(getattr(manager, name)).parameters)
        assert have == want, f"{name}: the port says {want}, the manager takes {have}"
