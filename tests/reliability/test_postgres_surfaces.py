"""A city in PostgreSQL through every surface a user touches: the CLI as real processes, every read
command in-process, and the data functions behind the UI's tabs (issue 34: `world --json`, `tracks`,
`building move-on-map` and the city map failed with `KeyError: 'AIID'` — PostgreSQL hands raw rows
back keyed in lower case, database/engine.py `named`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import main as cli_main
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from ui.i18n import Labels

ROOT = Path(__file__).resolve().parents[2]


def _main(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python main.py …` as its own process, on the environment the test set (the PostgreSQL URL)."""
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ), cwd=ROOT)


def _tool(name: str, **args: Any) -> dict[str, Any]:
    done = _main("tool", "--persona", "mina", name, "--args", json.dumps(args, ensure_ascii=False))
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["ok"], said
    return json.loads(said["result"])


def test_the_cli_runs_on_a_postgresql_city(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    done = _main("world", "--json")
    assert done.returncode == 0, done.stderr
    world = json.loads(done.stdout)
    assert {p["persona_id"] for p in world["personas"]} >= {"mina", "sora"}
    assert all("activity_state" in p for p in world["personas"]), world["personas"]

    done = _main("building", "move-on-map", "library", "--map-x", "7", "--map-y", "9", "--json")
    assert done.returncode == 0, done.stderr
    assert (json.loads(done.stdout)["x"], json.loads(done.stdout)["y"]) == (7.0, 9.0)
    positions = {b["building_id"]: b["map_position"] for b in json.loads(_main("world", "--json").stdout)["buildings"]}
    assert positions["library"] == [7.0, 9.0]

    # Tracks and notes written by the tools (saiverse/memory/_track_book.py reads its rows by name too).
    track = _tool("track_create", track_type="autonomous", title="本の整理", activate=True)
    note = _tool("note_create", title="ソラ", note_type="person")
    _tool("note_open", note_id=note["note_id"])
    done = _main("tracks", "--persona", "mina", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [t["track_id"] for t in shown["tracks"]] == [track["track_id"]]
    assert [n["note_id"] for n in shown["tracks"][0]["open_notes"]] == [note["note_id"]]
    done = _main("notes", "--persona", "mina", "--json")
    assert done.returncode == 0 and [n["title"] for n in json.loads(done.stdout)["notes"]] == ["ソラ"], done.stderr
    done = _main("tracks", "--persona", "mina")
    assert done.returncode == 0 and "本の整理" in done.stdout, done.stderr


READS = [
    ["config"], ["world"], ["world", "--json"], ["items", "--building", "library", "--json"],
    ["history", "--building", "library", "--json"], ["memory", "--persona", "mina", "--json"],
    ["memory", "--persona", "mina", "--search", "本"], ["chronicle", "--persona", "mina", "--json"],
    ["memopedia", "--persona", "mina", "--json"], ["tracks", "--persona", "sora"], ["notes", "--persona", "sora"],
    ["playbooks", "--json"], ["production", "list", "--json"], ["mcp", "--persona", "mina", "--json"],
    ["model", "list"], ["building", "move-on-map", "library", "--auto"],
]


def test_every_read_command_answers_on_postgresql(pg_url: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    assert cli_main.main(["chat", "--building", "library", "本を探しています"]) == 0
    for argv in READS:
        capsys.readouterr()
        code = cli_main.main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        assert out.strip() or argv[0] in ("production", "mcp"), argv  # no runs, no servers: JSON lines, none


def test_the_ui_tabs_show_a_postgresql_city(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.city_map import city_map_svg
    from ui.tabs.backups import backups_table
    from ui.tabs.login import login_status_html
    from ui.tabs.memory_tracks import panel_html
    from ui.tabs.personas import persona_table
    from ui.tabs.playbooks import playbook_table
    from ui.tabs.schedules import schedule_table
    from ui.tabs.settings import overridden_html, providers_html
    from ui.tabs.world import building_table

    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    m = SAIVerseManager(load_settings())
    try:
        labels = Labels("ja")
        m.admin.update_building("library", {"map_x": 3, "map_y": 4})
        spots = m.city_map()
        assert {s.building_id for s in spots} >= {"library"} and not next(
            s for s in spots if s.building_id == "library").auto
        assert 'data-map-building="library"' in city_map_svg(spots, "library", labels)
        assert m.world_snapshot()["personas"]
        assert "mina" in persona_table(m, labels) and "library" in building_table(m, labels)
        for html in (playbook_table(m, labels), schedule_table(m, labels), panel_html(m, labels, "mina"),
                     backups_table(m, labels), login_status_html(m, labels), overridden_html(m, labels),
                     providers_html(m, labels)):
            assert isinstance(html, str)
        assert m.tracks_view("mina")["state"]
    finally:
        m.close()
