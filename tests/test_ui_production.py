"""A production in the browser: the live plan panel, artifacts appearing as items, and an
instruction sent from the chat mid-run patching the plan."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saiverse.pulse._production import RunPorts
from tests.support.browser import RunningApp, chromium, new_page, served, shot

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[RunningApp]:
    with served(tmp_path / "home") as app:
        app.manager.world.move_persona("sora", "atelier")
        app.manager.move_user("atelier")
        yield app


def test_plan_panel_items_and_mid_run_instruction(running: RunningApp, monkeypatch: pytest.MonkeyPatch) -> None:
    original = RunPorts.create_document

    def slow_document(self: RunPorts, *args: Any, **kwargs: Any) -> dict[str, Any]:
        time.sleep(0.8)  # a writer working at the pace of a real model
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RunPorts, "create_document", slow_document)
    with chromium() as browser, new_page(browser, running.url) as page:
        page.wait_for_selector("#chat-header :text('アトリエ')")
        box = page.locator("#chat-input textarea")
        box.fill("絵本を作って: 猫の冒険")
        box.press("Enter")
        page.locator("#plan-panel .sv-step").nth(4).wait_for(timeout=60_000)
        assert page.locator("#plan-panel .sv-step").count() == 5
        box.fill("最後にあとがきも追加して")
        box.press("Enter")
        page.get_by_text("制作中の計画に指示を追加しました").first.wait_for(timeout=60_000)
        page.wait_for_function(
            "() => document.querySelectorAll('#plan-panel .sv-step').length === 6 &&"
            " document.querySelectorAll('#plan-panel .sv-step-completed').length === 6", timeout=120_000)
        page.locator("#item-list .sv-item", has_text="猫の冒険 — 本文").wait_for()
        page.locator("#item-list .sv-item", has_text="猫の冒険 — 挿絵 1").wait_for()
        page.locator("#chat .message", has_text="頼まれたものを作").last.wait_for()  # told in words
        shot(page, "p01_production_done")
    steps = running.manager.production.current_plan("atelier")["plan"]
    assert steps[-1]["title"] == "あとがき" and steps[-1]["status"] == "completed"
