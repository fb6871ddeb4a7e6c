"""The chat controls and the tabs beside チャット, in real Chromium.

One server per module (temp data home, refresh timer at 1 s); each test opens a fresh page in
図書館 (ミナ 📚 is there). Screenshots go to /tmp/saiverse-shots/ (SAIVERSE_SHOTS overrides).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    RunningApp,
    act,
    new_page,
    open_tab,
    pick,
    sent,
    served,
    settle,
    shot,
    start_app,
    textbox,
    wait_toast,
)
from tests.support.models import ScriptedModel, only

pytestmark = pytest.mark.filterwarnings("ignore:::gradio.queueing")
browser_test = pytest.mark.browser

TEA = {
    "name": "tea_time", "display_name": "お茶の時間", "description": "お茶を淹れてひと休みする。",
    "input_schema": [{"name": "input", "description": "ユーザーの発言"}], "router_callable": True,
    "nodes": [{"id": "pour", "type": "say", "action": "🍵 お茶を淹れました。", "next": None}],
    "start_node": "pour",
}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("tabs") / "home", refresh_sec=1.0) as app:
        yield app


def _send(page: Any, text: str) -> None:
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")


@browser_test
def test_stop_cancels_the_running_reply(running: RunningApp, page: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The offline model streaming one chunk every 0.25 s: a reply long enough to stop.
    monkeypatch.setattr(running.manager, "models", only(ScriptedModel(follows_instructions=False, chunk_delay=0.25)))
    before = max([h.id for h in running.manager.history("library", limit=1)], default=0)
    _send(page, "長いお話を聞かせて")
    page.wait_for_function(  # the reply is streaming in the live strip: some text beyond the name
        "() => { const m = [...document.querySelectorAll('#chat-live .sv-live-bot')].pop();"
        " return m && m.innerText.includes('ミナ') && m.innerText.replace(/\\s/g, '').length > 12; }"
    )
    page.locator("#chat-stop").click()
    wait_toast(page, "停止しました")  # first: a toast leaves by itself, the chat line below stays
    page.locator("#chat .message", has_text="ミナ").last.get_by_text("停止しました").wait_for()
    shot(page, "t01_stopped")
    records = [r for r in running.manager.pulses.records if r.building_id == "library"]
    assert records[-1].status == "cancelled"
    # A cancelled pulse writes nothing half-done: the user's line, and what the reply said before the stop
    # as a cut line that can be continued (tests/test_ui_continue.py).
    after = [h for h in running.manager.history("library", limit=10) if h.id > before]
    assert [(h.speaker_kind, h.cut) for h in after] in ([("user", "")], [("user", ""), ("persona", "stopped")])
    assert not running.manager.pulses.busy()


@browser_test
def test_load_earlier_pages_back_through_history(running: RunningApp, page: Any) -> None:
    for i in range(260):
        running.manager.world.add_history("atelier", speaker_kind="user", speaker_id="user",
                                          speaker_name="あなた", content=f"古い行 {i:03d}")
    page.locator("#building-select").get_by_text("アトリエ", exact=True).click()
    chat = page.locator("#chat")
    chat.get_by_text("古い行 259").wait_for()
    assert chat.get_by_text("古い行 010").count() == 0
    more = page.locator("#chat-load-earlier")
    more.click()
    chat.get_by_text("古い行 010").wait_for()
    more.wait_for(state="hidden")  # nothing older is left
    assert chat.get_by_text("古い行 000").count() == 1 and chat.get_by_text("古い行 259").count() == 1


@browser_test
def test_background_changes_appear_without_a_reload(running: RunningApp, page: Any) -> None:
    # What a schedule / autonomous pulse does: a line in the history and a new item.
    running.manager.world.add_history("library", speaker_kind="persona", speaker_id="mina", speaker_name="ミナ",
                                      content="(本棚を整理しました)")
    running.manager.items.create_object("整理された棚札", "背表紙順に並べた札", owner_kind="building",
                                        owner_id="library")
    # A refresh tick (every second here) draws both; under load a tick may take a while to come round.
    page.locator("#chat").get_by_text("本棚を整理しました").wait_for()
    page.locator("#item-list", has_text="整理された棚札").wait_for()


@browser_test
def test_persona_created_in_the_tab_answers_in_chat(running: RunningApp, page: Any) -> None:
    open_tab(page, "ペルソナ")
    textbox(page, "persona-name").fill("ハル")
    textbox(page, "persona-avatar").fill("🐈")
    page.locator("#persona-description textarea").fill("図書館に住みついた猫の司書")
    page.locator("#persona-prompt textarea").fill("あなたはハル。猫の司書で、語尾に「にゃ」をつける。")
    shot(page, "t02_persona_form")
    act(page, page.locator("#persona-save"))
    page.locator("#persona-status .sv-ok", has_text="ハル").wait_for()
    page.locator("#persona-table", has_text="ハル").wait_for()
    hal = next(p for p in running.manager.personas() if p.name == "ハル")
    assert hal.building_id == "library" and hal.avatar == "🐈" and hal.interaction_mode == "user"
    shot(page, "t03_persona_saved")
    open_tab(page, "チャット")
    page.locator("#chat-header", has_text="ハル").wait_for()
    _send(page, "@ハル おすすめの本は？")
    page.locator("#chat .message", has_text="🐈").last.wait_for()
    reply = page.locator("#chat .message", has_text="オフライン").last
    reply.wait_for()
    assert "ハル" in reply.inner_text()
    shot(page, "t04_persona_answers")
    running.manager.admin.update_persona(hal.persona_id, {"interaction_mode": "sleep"})  # quiet for later tests


@browser_test
def test_playbook_imported_in_the_tab_is_selectable_and_runs(
    running: RunningApp, page: Any, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({**TEA, "name": "broken", "nodes": [{**TEA["nodes"][0], "next": "nowhere"}]}))
    good = tmp_path / "tea_time.json"
    good.write_text(json.dumps(TEA, ensure_ascii=False), encoding="utf-8")
    open_tab(page, "プレイブック")
    upload = page.locator("#playbook-upload input[type='file']")
    upload.set_input_files(str(bad))
    error = page.locator("#playbook-status .sv-error")
    error.wait_for()
    assert "nowhere" in error.inner_text() and "pour" in error.inner_text()  # names the node and the target
    act(page, page.locator("#playbook-import"))
    page.locator("#playbook-status .sv-error").wait_for()
    assert running.manager.playbooks.get("broken") is None
    shot(page, "t05_playbook_invalid")
    page.locator("#playbook-upload button[aria-label]").last.click()  # clear the file (the ✕ button)
    page.locator("#playbook-upload", has_text="broken.json").wait_for(state="detached")
    upload.set_input_files(str(good))
    page.locator("#playbook-status .sv-ok").wait_for()
    act(page, page.locator("#playbook-import"))
    page.locator("#playbook-status .sv-ok", has_text="インポートしました").wait_for()
    page.locator("#playbook-table", has_text="tea_time").wait_for()
    page.locator("#playbook-graph svg, #playbook-graph pre").first.wait_for()  # Mermaid drawn (or its text)
    assert running.manager.playbooks.get("tea_time") is not None
    shot(page, "t06_playbook_imported")

    open_tab(page, "チャット")
    pick(page, "meta-select", "プレイブック指定")
    page.locator("#sub-select").wait_for(state="visible")
    pick(page, "sub-select", "お茶の時間", loads=False)  # read when the message is sent
    shot(page, "t07_playbook_chooser")
    _send(page, "ひと休みしよう")
    page.locator("#chat").get_by_text("お茶を淹れました").wait_for()
    page.locator("#chat .message", has_text="オフライン").last.wait_for()
    pulses = [r for r in running.manager.pulses.records if r.building_id == "library"]
    assert pulses[-1].playbook == "meta_user_manual" and pulses[-1].status == "ok"


@browser_test
def test_memory_tab_searches_and_exports(running: RunningApp, page: Any) -> None:
    running.manager.memory.add("mina", "user", "図書館の合言葉はフクロウです", tags=["conversation"])
    running.manager.memory.add("mina", "assistant", "今日は静かな一日だった", tags=["internal"])
    open_tab(page, "メモリ")
    pick(page, "memory-persona", "ミナ")
    page.locator("#memory-table", has_text="静かな一日").wait_for()
    shown = page.locator("#memory-table").inner_text()  # roles and tags in the page's language, not SAIMemory's
    assert "内部メモ" in shown and "ペルソナ" in shown and "assistant" not in shown and "internal" not in shown
    textbox(page, "memory-query").fill("フクロウ")
    act(page, page.locator("#memory-search"))
    table = page.locator("#memory-table")
    table.get_by_text("合言葉はフクロウ").wait_for()
    page.wait_for_function("() => !document.querySelector('#memory-table').innerText.includes('静かな一日')")
    shot(page, "t08_memory_search")
    act(page, page.locator("#memory-export"))
    page.locator("#memory-status .sv-ok").wait_for()
    link = page.locator("#memory-export-file a[href], #memory-export-file a[download]").first
    link.wait_for()
    assert "mina_memory" in page.locator("#memory-export-file").inner_text()
    body = page.request.get(link.get_attribute("href")).text()
    lines = [json.loads(line) for line in body.splitlines()]
    assert len(lines) == running.manager.memory.count("mina")
    assert any("フクロウ" in r["content"] for r in lines)


@browser_test
def test_schedule_and_building_tabs(running: RunningApp, page: Any) -> None:
    open_tab(page, "スケジュール")
    textbox(page, "schedule-time").fill("25:99")
    act(page, page.locator("#schedule-add"))
    page.locator("#schedule-status .sv-error").wait_for()
    textbox(page, "schedule-time").fill("07:30")
    act(page, page.locator("#schedule-add"))
    page.locator("#schedule-status .sv-ok").wait_for()
    page.locator("#schedule-table", has_text="07:30").wait_for()
    assert any(s.time_of_day == "07:30" for s in running.manager.schedules.list())
    shot(page, "t09_schedules")
    open_tab(page, "ワールド")
    textbox(page, "world-name").fill("温室")
    page.locator("#world-description textarea").fill("蘭が咲く温室")
    page.locator("#world-interval input").fill("30")
    act(page, page.locator("#world-save"))
    page.locator("#world-status .sv-error", has_text="auto_interval_sec").wait_for()
    page.locator("#world-interval input").fill("120")
    act(page, page.locator("#world-save"))
    page.locator("#world-status .sv-ok").wait_for()
    mark = sent(page)
    page.locator("#world-autonomous input").check()
    settle(page, mark)  # the switch's event has been answered
    shot(page, "t10_world")
    assert any(b.name == "温室" and b.auto_interval_sec == 120 for b in running.manager.buildings())
    assert running.manager.autonomous
    running.manager.autonomous = False
    open_tab(page, "チャット")
    page.locator("#building-select").get_by_text("温室", exact=True).wait_for()


@browser_test
def test_settings_key_saved_private_and_masked(tmp_path: Path, browser: Any) -> None:
    app = start_app(tmp_path / "home-settings", lang="en")
    key = "AIzaSyTEST-KEY-0000-wxyz"
    try:
        with new_page(browser, app.url) as page:
            for name in ("Personas", "Memory", "Playbooks", "Schedules", "World"):
                assert page.locator("button[role='tab']", has_text=name).count() == 1
            open_tab(page, "Settings")
            page.locator("#settings-gemini-key input").fill(key)
            act(page, page.locator("#settings-save"))
            page.locator("#settings-status .sv-ok").wait_for()
            page.locator("#settings-key-masked", has_text="****wxyz").wait_for()
            assert page.locator("#settings-gemini-key input").input_value() == ""
            assert key not in page.content()
            shot(page, "t11_settings")
            path = app.home / "settings.json"
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert json.loads(path.read_text())["gemini_api_key"] == key
            assert app.manager.settings.gemini_api_key == key
            page.reload()
            open_tab(page, "Settings")
            page.locator("#settings-key-masked", has_text="****wxyz").wait_for()
            assert key not in page.content()
    finally:
        app.close()
