"""The メモリ tab's tracks-and-notes panel in real Chromium: a persona's activity state, its tracks (the
running one first, with open notes), notes, SAIMemory notes and judgments (screenshot in /tmp/saiverse-shots/)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, chromium, new_page, open_tab, pick, served, shot

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore:::gradio.queueing")]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("tracks-ui") / "home") as app:
        m = app.manager

        def call(name: str, **args: Any) -> Any:
            return json.loads(m.run_tool(name, "mina", None, args))

        call("track_create", track_type="autonomous", title="本棚の整理", intent="棚を並べ替える")
        talk = call("track_create", track_type="user_conversation", title="ユーザーとの会話", is_persistent=True,
                    activate=True)
        note = call("note_create", title="ユーザー", note_type="person", description="ユーザーとの関係")
        call("note_open", note_id=note["note_id"], track_id=talk["track_id"])
        yield app


def test_tracks_panel_shows_state_tracks_and_notes(running: RunningApp) -> None:
    with chromium() as browser, new_page(browser, running.url) as page:
        open_tab(page, "メモリ")
        pick(page, "memory-persona", "ミナ")
        page.locator("#memory-subtabs button[role='tab']", has_text="トラックとノート").click()
        panel = page.locator("#tracks-panel")
        panel.get_by_text("本棚の整理").wait_for()
        text = panel.inner_text()
        assert "活動状態: 待機" in text
        assert text.index("ユーザーとの会話") < text.index("本棚の整理")  # the running track first
        assert "running" in text and "unstarted" in text and "ユーザーとの関係" in text and "0 / 0" in text
        assert "メモはありません" in text and "メタ判断の記録はありません" in text
        shot(page, "memory_tracks")
