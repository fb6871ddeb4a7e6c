"""Fresh lists, in real Chromium: what another tab or the CLI changed reaches every list of
buildings, personas and playbooks — on a reload, on opening a tab, and (the chat's building list)
on the window's refresh tick without any click."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, open_tab, served, settle, shot

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[1]
SKETCH = {
    "name": "sketch_walk", "display_name": "スケッチ散歩", "description": "外でスケッチをする。",
    "input_schema": [{"name": "input", "description": "ユーザーの発言"}], "router_callable": True,
    "nodes": [{"id": "draw", "type": "say", "action": "✏️ スケッチしました。", "next": None}],
    "start_node": "draw",
}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("fresh") / "home", refresh_sec=1.0) as app:
        yield app


def cli(running: RunningApp, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a person runs it, in its own process, on the served world's home."""
    env = {**os.environ, "SAIVERSE_HOME": str(running.home), "SAIVERSE_DEFAULT_MODEL": "offline"}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=env, cwd=running.home.parent, timeout=120, check=False)


def options(page: Any, selector: str) -> list[str]:
    """The choices a dropdown offers now (opened, read, closed)."""
    listbox = page.locator("[role=listbox]:visible").first  # the open list (Gradio may portal it)
    page.locator(f"{selector} input").click()  # the tab's refresh has landed (open_tab): nothing re-renders it
    listbox.wait_for()
    texts = [t.strip() for t in listbox.locator("[role=option]").all_inner_texts()]
    page.keyboard.press("Escape")
    return texts


def assert_offered(page: Any, selector: str, text: str) -> None:
    """The dropdown offers `text` now: opening the tab (open_tab waits for its refresh) re-read the world."""
    offered = options(page, selector)
    assert any(text in t for t in offered), f"{text!r} not offered by {selector}: {offered}"


def test_lists_follow_other_tabs_and_the_cli(running: RunningApp, page: Any, tmp_path: Path) -> None:
    manager = running.manager
    # Another window (the same world) makes a building and a persona while this page is open.
    manager.admin.create_building({"name": "温室", "description": "植物の部屋。", "capacity": 4,
                                   "auto_interval_sec": 600, "system_instruction": ""})
    # Without a click: the chat's building list picks it up on the refresh tick.
    page.locator("#building-select label", has_text="温室").wait_for()
    manager.admin.create_persona({"name": "ハナ", "building_id": "library", "avatar": "🌸"})
    # The CLI, in its own process, imports a playbook.
    source = tmp_path / "sketch_walk.json"
    source.write_text(json.dumps(SKETCH, ensure_ascii=False), encoding="utf-8")
    done = cli(running, "import-playbook", str(source))
    assert done.returncode == 0, done.stderr

    open_tab(page, "ワールド")
    assert_offered(page, "#world-pick", "温室")
    open_tab(page, "ペルソナ")
    assert_offered(page, "#persona-pick", "ハナ")
    open_tab(page, "メモリ")
    assert_offered(page, "#memory-persona", "ハナ")
    open_tab(page, "スケジュール")
    assert_offered(page, "#schedule-persona", "ハナ")
    open_tab(page, "プレイブック")
    page.locator("#playbook-table", has_text="sketch_walk").wait_for()
    assert_offered(page, "#playbook-graph-pick", "sketch_walk")
    shot(page, "fresh_playbooks")

    # A reload, then straight to the world tab: the new building is there to edit.
    page.reload()
    page.wait_for_selector("#chat-header [data-building-id]")
    settle(page)  # the reloaded page's load events have landed
    open_tab(page, "ワールド")
    assert_offered(page, "#world-pick", "温室")
    shot(page, "fresh_world_pick")

    # Another window deletes the building (the CLI refuses while the app has the home open): after
    # the tick the chat's list no longer offers it.
    open_tab(page, "チャット")
    manager.admin.delete_building(_bid(running, "温室"), move_to="library")
    page.locator("#building-select label", has_text="温室").wait_for(state="detached")


def _bid(running: RunningApp, name: str) -> str:
    return next(b.building_id for b in running.manager.buildings() if b.name == name)
