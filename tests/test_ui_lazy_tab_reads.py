"""A side tab's first opening reads its contents once (ui/lazy_tab.py, `TabRefresh.drawn`), in real
Chromium: the builders draw what is current, so the refresh that used to run once the contents were
on the page read every list a second time. Each tab's own reader is counted (a SAIMemory, catalog,
schedule or settings read of the domain, or the tab's table function where the port's readers are
shared with the chat): the first opening reads as much as any later one, what changed before the
first opening shows, and what changes afterwards shows at the next opening."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from saiverse.pulse import PlaybookCatalog
from tests.support.browser import RunningApp, new_page, open_tab, served, settle, wait_value
from ui.tabs import personas as personas_tab
from ui.tabs import world as world_tab

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


def _playbook(name: str, display: str) -> str:
    return json.dumps({
        "name": name, "display_name": display, "description": "ひと休みする。",
        "input_schema": [{"name": "input", "description": "ユーザーの発言"}], "router_callable": False,
        "nodes": [{"id": "pour", "type": "say", "action": "🍵", "next": None}], "start_node": "pour",
    }, ensure_ascii=False)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("reads") / "home") as app:
        yield app


class Reads:
    """Calls of the wrapped readers, by name."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: Counter[str] = Counter()
        self.monkeypatch = monkeypatch

    def count(self, owner: Any, name: str) -> None:
        real = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return real(*args, **kwargs)

        self.monkeypatch.setattr(owner, name, counted)

    def during(self, action: Callable[..., None], *args: Any) -> Counter[str]:
        """The calls `action(*args)` made."""
        before = self.calls.copy()
        action(*args)
        return self.calls - before


def test_first_opening_reads_once_and_later_openings_refresh(
        running: RunningApp, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    m = running.manager
    reads = Reads(monkeypatch)
    reads.count(m.memory, "list_messages")
    reads.count(m, "tracks_view")  # the メモリ tab's トラックとノート panel: not drawn by the builder, filled once it is shown
    reads.count(m.playbooks, "graph_mermaid")
    reads.count(m.schedules, "list")
    reads.count(m.admin, "settings_view")
    reads.count(personas_tab, "persona_table")  # manager.personas() is read by the chat as well
    reads.count(world_tab, "building_table")
    mina = m.personas()[0].persona_id

    # What changed after the start and before the first opening: the builders draw it, nothing is stale.
    m.memory.add(mina, "user", "開く前のメモ", tags=["conversation"])
    m.admin.create_persona({"name": "ツバメ", "avatar": "🐦", "building_id": "library"})
    m.add_schedule(mina, {"kind": "periodic", "days_of_week": "daily", "time_of_day": "06:15",
                          "meta_playbook": "meta_auto"})
    m.admin.create_building({"name": "灯台"})
    m.admin.save_settings({"vision_model": "offline"})

    def shows(selector: str) -> Callable[[Any], None]:
        return lambda page: page.locator(selector).first.wait_for()

    # (tab, its readers' calls in one opening, what the first opening shows, a change, what then shows)
    tabs: list[tuple[str, dict[str, int], Callable[[Any], None], Callable[[], Any], Callable[[Any], None]]] = [
        ("メモリ", {"list_messages": 1, "tracks_view": 1}, shows("#memory-table:has-text('開く前のメモ')"),
         lambda: m.memory.add(mina, "user", "開いた後のメモ", tags=["conversation"]),
         shows("#memory-table:has-text('開いた後のメモ')")),
        ("プレイブック", {"graph_mermaid": 1}, shows("#playbook-table:has-text('cli_tea')"),
         lambda: m.playbooks.store(m.playbooks.check_text(_playbook("tea_two", "二杯目"), source="x")),
         shows("#playbook-table:has-text('tea_two')")),
        ("ペルソナ", {"persona_table": 1}, shows("#persona-table:has-text('ツバメ')"),
         lambda: m.admin.create_persona({"name": "カモメ", "avatar": "🐤", "building_id": "library"}),
         shows("#persona-table:has-text('カモメ')")),
        ("スケジュール", {"list": 2}, shows("#schedule-table:has-text('06:15')"),  # the table and the delete chooser
         lambda: m.add_schedule(mina, {"kind": "periodic", "days_of_week": "daily", "time_of_day": "21:45",
                                       "meta_playbook": "meta_auto"}),
         shows("#schedule-table:has-text('21:45')")),
        ("ワールド", {"building_table": 1}, shows("#building-table:has-text('灯台')"),
         lambda: m.admin.create_building({"name": "風車小屋"}), shows("#building-table:has-text('風車小屋')")),
        ("設定", {"settings_view": 4},  # the settings the model boxes show, and the three masked keys
         lambda page: wait_value(page, "settings-vision-model", "offline"),
         lambda: m.admin.save_settings({"default_lightweight_model": "offline"}),
         lambda page: wait_value(page, "settings-default-lightweight-model", "offline")),
    ]
    with new_page(browser, running.url) as page:
        def opening(name: str, shown: Callable[[Any], None]) -> None:
            open_tab(page, name)
            shown(page)
            settle(page)

        for name, once, drawn, change, changed in tabs:
            if name == "プレイブック":
                # The CLI imports a playbook into the database (not through this catalog) after the chat
                # looked at the catalog: the tab's builder reloads it, as its refresh does.
                cli = PlaybookCatalog(m.db)
                cli.store(cli.check_text(_playbook("cli_tea", "CLIのお茶"), source="cli"))
            first = reads.during(opening, name, drawn)
            assert dict(first) == once, (name, "first opening", first)
            open_tab(page, "チャット")
            change()
            later = reads.during(opening, name, changed)
            assert dict(later) == once, (name, "later opening", later)  # refreshed: the change shows
