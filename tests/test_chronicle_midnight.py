"""A conversation that runs past midnight: the Chronicle cuts it exactly as one within a day (batches
are counted in messages, never bounded by days), names both local dates, and recall ranks its entry
as it ranks the same entry within one day.

Why this file exists: tests/test_memory_tools.py's recall test started "three days ago at this hour";
run after ~18:00 its 70 lines ran past midnight, the entry's text began with two dates
(`…11月22日〜11月23日、`, seven characters more), recall's length normalisation counted them against it,
and it fell from 2nd to 22nd behind twenty identical chat lines. Dates now name the local day, and
do not count in an entry's length for ranking (saiverse/memory/_recall.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory import recall
from saiverse.pulse import ManagerToolContext
from saiverse.settings import load_settings
from tests.support.ltm_helpers import converse
from tools import call_tool
from ui.tabs.memory_chronicle import _period

P = "mina"
DAYTIME = datetime(2026, 1, 3, 9, 0)
LATE = datetime(2026, 1, 3, 21, 30)
"""70 lines 5 minutes apart from 21:30 end at 03:15 the next day; the first 50 (summarised together)
end at 01:35."""


@pytest.fixture
def local_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's zone set to Asia/Tokyo (UTC+9, no daylight saving) for one test, then restored."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _world(home: Path) -> SAIVerseManager:
    m = SAIVerseManager(load_settings(home))
    m.chronicle_worker.stop()  # built when the test says so
    return m


def _summarised(m: SAIVerseManager, start: datetime) -> tuple[list[int], list]:
    ids = converse(m, 70, start=start)
    m.build_chronicle(P)
    return ids, sorted(m.chronicle.entries(P, level=1), key=lambda e: e.start)


def test_a_conversation_past_midnight_is_cut_and_ranked_like_one_within_a_day(tmp_path: Path) -> None:
    ranked = {}
    for name, start in (("day", DAYTIME), ("late", LATE)):
        m = _world(tmp_path / name)
        try:
            ids, entries = _summarised(m, start)
            # The same batches whatever the hour: 50 lines, then the 10 before the verbatim window;
            # every line once, in order, none lost or doubled at midnight.
            assert [[int(s) for s in e.source_ids] for e in entries] == [ids[:50], ids[50:60]]
            assert [e.start for e in entries] == [start, start + timedelta(minutes=250)]
            assert entries[0].end == start + timedelta(minutes=245)
            # The same moment after the talk for both, so only the text can tell them apart.
            hits = recall(m.memory, m.chronicle, m.memopedia, P, "星座", limit=20, now=start + timedelta(days=3))
            place = [i for i, h in enumerate(hits) if h["kind"] == "chronicle"]
            ranked[name] = (place, [h["kind"] for h in hits], hits[place[0]]["score"] if place else None)
            if name == "late":
                assert entries[0].content.startswith("2026年1月3日〜1月4日、ミナはユーザーと「")
                assert entries[1].content.startswith("2026年1月4日、")  # 01:40 to 02:25: the next day alone
                ctx = ManagerToolContext(m, P, "library")
                assert "(あらすじ Lv.1)" in call_tool("memory_recall", {"query": "星座", "limit": 20}, ctx)
            else:
                assert entries[0].content.startswith("2026年1月3日、ミナはユーザーと「")
        finally:
            m.close()
    # Found, in the same place, with the same score: two dates cost the entry nothing.
    assert ranked["late"] == ranked["day"] and ranked["day"][0] == [0]


def test_chronicle_dates_are_the_local_days_not_utcs(tmp_path: Path, local_zone: None) -> None:
    m = _world(tmp_path / "morning")
    try:
        # 23:00 UTC on the 3rd is 08:00 on the 4th in Tokyo: across UTC's midnight, within one local morning.
        _, entries = _summarised(m, datetime(2026, 1, 3, 23, 0))
        first = entries[0]
        assert first.start.date() != first.end.date()  # two days in UTC (23:00 to 03:05)
        assert first.content.startswith("2026年1月4日、ミナは")
        ctx = ManagerToolContext(m, P, "library")
        # The tools show the same local times, and take local days as their date bounds.
        found = call_tool("chronicle_search", {"query": "星座", "start_date": "2026-01-04", "end_date": "2026-01-04"},
                          ctx)
        assert "2026-01-04 08:00 ~ 2026-01-04 12:05" in found and first.entry_id in found
        before = call_tool("chronicle_search", {"query": "星座", "start_date": "2026-01-03", "end_date": "2026-01-03"},
                           ctx)
        assert before.startswith("(Chronicle検索結果なし")
        detail = call_tool("chronicle_read_detail", {"entry_id": first.entry_id, "max_source_messages": 1}, ctx)
        assert "[2026-01-04 08:00:00] [user]: 星座の話をしよう。" in detail
        assert _period(first) == "2026-01-04 08:00 〜 2026-01-04 12:05"  # the memory tab's Chronicle panel
    finally:
        m.close()
    m = _world(tmp_path / "night")
    try:
        # 14:30 UTC is 23:30 in Tokyo: within one UTC day (14:30 to 18:35), across the local midnight.
        _, entries = _summarised(m, datetime(2026, 1, 3, 14, 30))
        first = entries[0]
        assert first.start.date() == first.end.date()
        assert first.content.startswith("2026年1月3日〜1月4日、ミナは")
    finally:
        m.close()
