"""The 設定 tab's login section in the browser: set the password for other devices (asked twice),
see it stored hashed, remove it. Screenshots in /tmp/saiverse-shots/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from saiverse.care import Gate, read_login
from tests.support.browser import RunningApp, act, open_tab, served, shot, textbox

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("login") / "home") as app:
        yield app


def _fill(page: Any, elem_id: str, text: str) -> None:
    textbox(page, elem_id).fill(text)


def test_the_password_is_set_twice_typed_and_removed_in_the_settings_tab(running: RunningApp, page: Any) -> None:
    open_tab(page, "設定")
    state = page.locator("#login-state")
    state.get_by_text("未設定").wait_for()
    _fill(page, "login-password", PASSWORD)
    _fill(page, "login-again", PASSWORD + "x")
    act(page, page.locator("#login-set"))
    page.locator("#login-status .sv-error", has_text="違います").wait_for()
    assert read_login(running.home) is None
    _fill(page, "login-password", "short")
    _fill(page, "login-again", "short")
    act(page, page.locator("#login-set"))
    page.locator("#login-status .sv-error", has_text="短すぎます").wait_for()
    _fill(page, "login-password", PASSWORD)
    _fill(page, "login-again", PASSWORD)
    act(page, page.locator("#login-set"))
    page.locator("#login-status .sv-ok", has_text="設定しました").wait_for()
    state.get_by_text("設定済み").wait_for()
    # The boxes are emptied: the page keeps no password.
    assert page.locator("#login-password input").input_value() == ""
    shot(page, "l01_login_set")
    stored = (running.home / "login.json").read_text(encoding="utf-8")
    assert PASSWORD not in stored and json.loads(stored)["user"] == "saiverse"
    gate = Gate(lambda: read_login(running.home))
    assert gate("saiverse", PASSWORD) and not gate("saiverse", "wrong")
    act(page, page.locator("#login-clear"))
    page.locator("#login-status .sv-ok", has_text="削除").wait_for()
    state.get_by_text("未設定").wait_for()
    assert not (running.home / "login.json").exists() and not gate("saiverse", PASSWORD)
