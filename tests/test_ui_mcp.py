"""The ペルソナ tab's MCP panel in real Chromium: a server saved (env kept, shown masked) and checked live."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, open_tab, pick, served, wait_value

pytestmark = pytest.mark.filterwarnings("ignore:::gradio.queueing")
SERVER = Path(__file__).parent / "support" / "mcp_server.py"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("mcp") / "home", refresh_sec=5.0) as app:
        yield app


@pytest.mark.browser
def test_persona_mcp_servers_saved_masked_and_checked(running: RunningApp, page: Any) -> None:
    open_tab(page, "ペルソナ")
    pick(page, "persona-pick", "ミナ")
    wait_value(page, "persona-name", "ミナ")  # the pick has loaded the persona whose servers are edited
    page.locator("#persona-mcp").get_by_text("MCP サーバー").first.click()
    box = page.locator("#persona-mcp-json textarea")
    box.wait_for()
    box.fill("[{]")
    act(page, page.locator("#persona-mcp-save"))
    page.locator("#persona-mcp-status .sv-error", has_text="JSON").wait_for()
    assert box.input_value() == "[{]"  # the refused text stays to be corrected
    servers = [{"name": "calc", "command": [sys.executable, str(SERVER)], "env": {"MCP_TEST_SECRET": "s3cr3t-value"}}]
    box.fill(json.dumps(servers))
    act(page, page.locator("#persona-mcp-save"))
    page.locator("#persona-mcp-status .sv-ok").wait_for()
    assert "s3cr3t-value" not in box.input_value() and "****" in box.input_value()
    act(page, page.locator("#persona-mcp-save"))  # saved back masked: the stored value is kept
    page.locator("#persona-mcp-status .sv-ok").wait_for()
    stored = json.loads((running.manager.settings.home / "settings.json").read_text(encoding="utf-8"))
    assert stored["mcp_servers"]["mina"][0]["env"] == {"MCP_TEST_SECRET": "s3cr3t-value"}
    page.locator("#persona-mcp-check").click()
    page.locator("#persona-mcp-status .sv-ok", has_text="calc__add").wait_for(timeout=60000)
