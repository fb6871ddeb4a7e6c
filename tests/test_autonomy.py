"""The 自律 switch (issue 21): kept in the world's database, so it is as it was left after a
restart; it says who acts and how often; the chat view's switch and the ワールド tab agree."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from saiverse.manager import SAIVerseManager
from ui.autonomy import autonomy_message
from ui.i18n import Labels


def test_the_switch_survives_a_restart(make_manager: Callable[..., SAIVerseManager], saiverse_home: Path) -> None:
    first = make_manager()
    assert first.autonomous is False  # a new world starts with it off
    first.autonomous = True
    first.close()
    with sqlite3.connect(saiverse_home / "saiverse.db") as conn:  # in the world, not in memory
        assert conn.execute("SELECT VALUE FROM world_setting WHERE KEY = 'autonomous'").fetchone() == ("1",)
    second = make_manager()
    assert second.autonomous is True
    ticks = second.ticker(interval=3600)
    second.admin.update_persona("sora", {"interaction_mode": "auto"})
    assert [h.record.persona_id for h in ticks.tick()] == ["sora"]  # and it acts without a click
    second.autonomous = False
    assert make_manager().autonomous is False


def test_two_windows_switching_at_once_leave_one_clear_state(manager: SAIVerseManager) -> None:
    def flip(on: bool) -> None:
        for _ in range(20):
            manager.autonomous = on

    threads = [threading.Thread(target=flip, args=(n % 2 == 0,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert manager.autonomous in (True, False)
    with manager.db.session() as s:
        from database.models import WorldSetting

        assert len(s.query(WorldSetting).all()) == 1


def test_the_switch_says_who_acts_and_how_often(manager: SAIVerseManager) -> None:
    labels = Labels("ja")
    manager.autonomous = True
    assert "自律モードのペルソナがいません" in autonomy_message(manager, labels)
    manager.admin.update_persona("sora", {"interaction_mode": "auto"})
    assert manager.autonomy_status() == {"on": True, "personas": ["ソラ"], "minutes": 10}
    assert autonomy_message(manager, labels) == (
        "自律を ON にしました。自律モードのペルソナ (ソラ) が 10 分ごとに自分から動きます。")
    manager.autonomous = False
    assert autonomy_message(manager, labels).startswith("自律を OFF")
