"""Caring for a world in the browser: deleting a persona and a building (asked first), and the 設定 tab's
backups — create with a download, the list, restore into a new folder. Screenshots in /tmp/saiverse-shots/."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, open_tab, pick, served, shot, textbox, wait_value

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("care") / "home") as app:
        yield app


def test_deleting_a_persona_asks_and_says_the_backup_keeps_its_memory(running: RunningApp, page: Any) -> None:
    running.manager.memory.add("sora", "user", "青い絵の具が好き", tags=["conversation"])
    open_tab(page, "ペルソナ")
    act(page, page.locator("#persona-delete"))
    page.locator("#persona-status .sv-error").wait_for()  # nothing picked: nothing happens
    pick(page, "persona-pick", "ソラ")
    wait_value(page, "persona-name", "ソラ")
    act(page, page.locator("#persona-delete"))
    question = page.locator("#persona-delete-text")
    question.get_by_text("バックアップ").wait_for()
    text = question.inner_text()
    assert "ソラ" in text and "記憶" in text and "アトリエ" in text
    shot(page, "k01_persona_delete_question")
    act(page, page.locator("#persona-delete-no"))
    page.locator("#persona-delete-yes").wait_for(state="hidden")
    assert {p.persona_id for p in running.manager.personas()} == {"mina", "sora"}
    act(page, page.locator("#persona-delete"))
    act(page, page.locator("#persona-delete-yes"))
    page.locator("#persona-status .sv-ok", has_text="ソラ").wait_for()
    assert "ソラ" not in page.locator("#persona-table").inner_text()
    shot(page, "k02_persona_deleted")
    assert [p.persona_id for p in running.manager.personas()] == ["mina"]
    backup = next(e for e in running.manager.backups.list() if e.kind == "delete")
    assert "persona_sora" in backup.path.name


def test_deleting_a_building_refuses_while_someone_is_there_and_moves_items(running: RunningApp,
                                                                           page: Any) -> None:
    open_tab(page, "ワールド")
    pick(page, "world-pick", "図書館")
    act(page, page.locator("#world-delete"))
    act(page, page.locator("#world-delete-yes"))
    page.locator("#world-status .sv-error", has_text="ミナ (mina) がいます").wait_for()
    shot(page, "k03_building_refused")
    pick(page, "world-pick", "美術館")
    act(page, page.locator("#world-delete"))
    page.locator("#world-delete-text", has_text="美術館").wait_for()
    pick(page, "world-move-to", "エントランス")
    page.locator("#world-delete-text", has_text="エントランス").wait_for()
    shot(page, "k04_building_delete_question")
    act(page, page.locator("#world-delete-yes"))
    page.locator("#world-status .sv-ok", has_text="美術館").wait_for()
    assert "museum" not in {b.building_id for b in running.manager.buildings()}
    assert any(i.name == "星空の絵" for i in running.manager.items.list_owned("building", "entrance"))


def test_backups_in_the_settings_tab(running: RunningApp, page: Any, tmp_path: Path) -> None:
    open_tab(page, "設定")
    act(page, page.locator("#backup-create"))
    page.locator("#backup-status .sv-ok").wait_for(timeout=60_000)
    link = page.locator("#backup-download a").first
    link.wait_for()
    made = next(e for e in running.manager.backups.list() if e.kind == "manual")
    assert made.path.name in page.locator("#backup-table").inner_text()
    assert stat.S_IMODE(made.path.stat().st_mode) == 0o600
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "downloaded.zip"
    download.value.save_as(saved)
    assert saved.read_bytes() == made.path.read_bytes()
    shot(page, "k05_backup_created")
    target = tmp_path / "restored-world"
    pick(page, "backup-restore-pick", made.path.name, loads=False)  # read when 復元 is pressed
    textbox(page, "backup-restore-target").fill("relative/folder")
    act(page, page.locator("#backup-restore"))
    page.locator("#backup-restore-status .sv-error").wait_for()
    wait_value(page, "backup-restore-target", "relative/folder")  # the refused folder stays to be corrected
    textbox(page, "backup-restore-target").fill(str(target))
    act(page, page.locator("#backup-restore"))
    done = page.locator("#backup-restore-status .sv-ok")
    done.wait_for(timeout=60_000)
    assert f"python main.py --home {target}" in done.inner_text()
    shot(page, "k06_backup_restored")
    with sqlite3.connect(target / "saiverse.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM ai").fetchone()[0] == len(running.manager.personas())
    act(page, page.locator("#backup-restore"))  # the same folder again: it is not empty now
    page.locator("#backup-restore-status .sv-error", has_text="not empty").wait_for()
