"""Continuing a reply that stopped, in real Chromium: the person stops a long reply with ■停止, the
bubble says it can be continued, a click on it offers ▶ 続きを生成, and the continuation joins that same
bubble and line (history and memory)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, served, settle, shot, wait_toast
from tests.support.models import CuttingModel

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]

MODEL = CuttingModel(follows_instructions=False, chunk_delay=0.08)
LONG = "むかしむかし、ある山に小さな天文台がありました。" * 8


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("continue") / "home", model=MODEL) as app:
        yield app


def test_stop_a_reply_then_continue_it(running: RunningApp, browser: Any) -> None:
    MODEL.enqueue(data={"playbook": "basic_chat", "args": {}})  # the router's choice
    MODEL.enqueue(LONG, when="お話をして")
    with new_page(browser, running.url) as page:
        box = page.locator("#chat-input textarea")
        box.fill("お話をして")
        box.press("Enter")
        page.locator("#chat-live").get_by_text("天文台", exact=False).first.wait_for()
        page.locator("#chat-stop").click()
        bubble = page.locator("#chat [data-testid='bot']").filter(has_text="続きを生成")
        bubble.last.wait_for()
        page.wait_for_function("() => !document.querySelector('#chat-live')?.innerText.trim()")
        settle(page)
        assert page.locator("#chat [data-testid='bot']").filter(has_text="停止しました").count() == 1
        line = running.manager.history("library", limit=1)[-1]
        assert line.cut == "stopped" and LONG.startswith(line.content) and line.content != LONG
        MODEL.chunk_delay = 0.0
        MODEL.enqueue("天文台には星の好きな猫が住んでいました。", when="途切れた")
        bubble.last.click()
        go_on = page.locator("#sv-line-continue")
        go_on.wait_for()
        shot(page, "35_continue_offered")
        act(page, go_on)
        wait_toast(page, "続きを書きました。")
        whole = line.content + "天文台には星の好きな猫が住んでいました。"
        page.locator("#chat [data-testid='bot']").filter(has_text="星の好きな猫").last.wait_for()
        shot(page, "35_continued")
        bots = page.locator("#chat [data-testid='bot']").filter(has_text="小さな天文台")
        assert bots.count() == 1 and "続きを生成" not in bots.first.inner_text()
    after = running.manager.history("library", limit=1)[-1]
    assert (after.id, after.content, after.cut) == (line.id, whole, "")
    memory = running.manager.memory_messages("mina", limit=5)
    assert (memory[-1]["role"], memory[-1]["content"]) == ("assistant", whole)
