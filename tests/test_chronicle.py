"""Chronicle on real SQLite: incremental level-1 batches, consolidation, checkpoints, imported rows."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

import saiverse.memory._chronicle_build as cb
from chat import ChatRequest, ChatResult
from saiverse.llm.offline import OfflineModel
from saiverse.manager import SAIVerseManager
from saiverse.memory._common import LongTermMemoryError, utc_now
from tests.support.ltm_helpers import converse, insert_entry, insert_external_message
from tools import ToolError, call_tool

pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.chronicle_by_hand]

P = "mina"
ROOT = Path(__file__).resolve().parents[1]


def _entries(m: SAIVerseManager, level: int | None = None) -> list:
    return sorted(m.chronicle.entries(P, level=level, limit=10_000), key=lambda e: e.start or datetime.min)


def _progress(m: SAIVerseManager) -> str | None:
    with m.db.engine.connect() as c:
        return c.execute(text("SELECT LAST_MESSAGE_ID FROM chronicle_progress WHERE PERSONA_ID = :p"),
                         {"p": P}).scalar()


def test_messages_out_of_the_window_become_level1_entries_once(manager: SAIVerseManager) -> None:
    ids = converse(manager, 130)
    report = manager.build_chronicle(P)
    entries = _entries(manager, 1)
    # 130 - KEEP_RECENT(10) = 120 eligible: 50 + 50 + a 20-message batch flushed because it is old.
    assert [e.message_count for e in entries] == [50, 50, 20] and report["messages"] == 120
    summarised = [int(s) for e in entries for s in e.source_ids]
    assert summarised == ids[:120]  # each message once, in order, none twice
    first = entries[0]
    assert first.start == datetime(2026, 1, 3, 9, 0) and first.end == datetime(2026, 1, 3, 9, 0) + timedelta(minutes=245)
    assert first.source_count == 50 and not first.is_consolidated
    assert _progress(manager) == str(ids[119])
    assert manager.build_chronicle(P)["created"] == []  # nothing is summarised twice
    converse(manager, 60, start=datetime(2026, 1, 4, 9, 0))
    again = manager.build_chronicle(P)
    assert again["messages"] == 60 and len(_entries(manager, 1)) == 5


def test_offline_summaries_say_who_talked_about_what(manager: SAIVerseManager) -> None:
    converse(manager, 70)
    manager.build_chronicle(P)
    first = _entries(manager, 1)[0]
    assert first.content.startswith("2026年1月3日、ミナはユーザーと「")
    assert "「星座」" in first.content and "「図書館」" in first.content and "について話した（50件）" in first.content
    assert "ユーザーの「星座の話をしよう。」に始まり" in first.content
    # Composed, not cut out of a message: no message begins the summary.
    assert not any(first.content.startswith(r["content"][:10]) for r in manager.memory.list_messages(P, limit=100))


def test_summaries_are_deterministic(saiverse_home: Path, tmp_path: Path) -> None:
    from saiverse.settings import load_settings

    contents = []
    for name in ("a", "b"):
        m = SAIVerseManager(load_settings(tmp_path / name))
        converse(m, 70)
        m.build_chronicle(P)
        contents.append([e.content for e in _entries(m)])
        m.close()
    assert contents[0] == contents[1] and contents[0]


def test_long_messages_make_smaller_batches(manager: SAIVerseManager) -> None:
    converse(manager, 40, length=1300)  # the 1,300-character turns
    manager.build_chronicle(P)
    counts = [e.message_count for e in _entries(manager, 1)]
    assert counts and max(counts) <= cb.BATCH_TOKENS // 1300 + 1 and sum(counts) == 30


def test_entries_consolidate_level_by_level(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cb, "BATCH_MESSAGES", 4)
    monkeypatch.setattr(cb, "GROUP_SIZE", 3)
    converse(manager, 10 + 4 * 10)
    manager.build_chronicle(P)
    level1, level2, level3 = _entries(manager, 1), _entries(manager, 2), _entries(manager, 3)
    assert len(level1) == 10 and len(level2) == 3 and len(level3) == 1
    assert sum(e.is_consolidated for e in level1) == 9  # the newest stays open until two more join it
    parent = level2[0]
    children = [e for e in level1 if e.parent_id == parent.entry_id]
    assert parent.source_ids == [c.entry_id for c in children] and len(children) == 3
    assert parent.message_count == 12 and parent.start == children[0].start and parent.end == children[-1].end
    assert "語り合った（あらすじ3件、会話12件のまとめ）" in parent.content
    assert level3[0].message_count == 36 and level3[0].source_ids == [e.entry_id for e in level2]


def test_a_crash_neither_loses_nor_repeats(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = converse(manager, 130)
    real_insert = cb.ChronicleBuilder._insert
    calls = {"n": 0}

    def crash_on_second(self: cb.ChronicleBuilder, s: object, persona_id: str, entry: object) -> None:
        calls["n"] += 1
        real_insert(self, s, persona_id, entry)
        if calls["n"] == 2:
            raise RuntimeError("killed mid-transaction")

    monkeypatch.setattr(cb.ChronicleBuilder, "_insert", crash_on_second)
    with pytest.raises(RuntimeError):
        manager.build_chronicle(P)
    assert len(_entries(manager)) == 1 and _progress(manager) == str(ids[49])  # the first entry, whole
    monkeypatch.setattr(cb.ChronicleBuilder, "_insert", real_insert)
    manager.build_chronicle(P)
    summarised = [int(s) for e in _entries(manager, 1) for s in e.source_ids]
    assert summarised == ids[:120]


def test_a_second_builder_racing_does_not_duplicate(manager: SAIVerseManager) -> None:
    converse(manager, 70)
    builder = manager.chronicle_builder
    mark, after = builder.progress(P)
    batch = builder._next_batch(P, after, utc_now())
    assert batch
    manager.build_chronicle(P)  # someone else wrote the batch meanwhile
    with pytest.raises(cb._Moved):
        builder._write_level1(P, mark, batch, "重複")
    assert all(e.content != "重複" for e in _entries(manager))


# Imported rows in SQLite's loose types (epoch numbers in time columns, text in integer ones) exist
# only in SQLite: PostgreSQL's typed columns refuse them on the way in.
@pytest.mark.backends("sqlite")
def test_imported_entries_and_progress_are_used_as_they_are(manager: SAIVerseManager) -> None:
    base = datetime(2025, 12, 1, 10)
    uuids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(30)]
    for i, u in enumerate(uuids):
        insert_external_message(manager, P, u, "user" if i % 2 == 0 else "assistant", f"古い話その{i}",
                                base + timedelta(minutes=i))
    insert_entry(manager, P, "imported-1", content="ミナはユーザーと古い話をした（前半）。", source_ids=uuids[:20],
                 start=int((base - datetime(1970, 1, 1)).total_seconds()), end="2025-12-01 10:19:00",
                 message_count=20)
    with manager.db.session() as s:
        s.execute(text("INSERT INTO chronicle_progress (PERSONA_ID, LAST_MESSAGE_ID) VALUES (:p, :m)"),
                  {"p": P, "m": uuids[19]})
    converse(manager, 60, start=datetime(2026, 1, 3))
    manager.build_chronicle(P)
    new = [e for e in _entries(manager, 1) if e.entry_id != "imported-1"]
    summarised = [int(s) for e in new for s in e.source_ids]
    assert summarised[0] == 20 + 1 and len(summarised) == len(set(summarised)) == 10 + 50  # after the import
    imported = manager.chronicle.get(P, "imported-1")
    assert imported.start == base and imported.end == datetime(2025, 12, 1, 10, 19) and imported.problem is None
    sources = manager.chronicle.source_messages(P, imported, 5)
    assert [m["content"] for m in sources] == [f"古い話その{i}" for i in range(5)]


# Imported rows in SQLite's loose types (epoch numbers in time columns, text in integer ones) exist
# only in SQLite: PostgreSQL's typed columns refuse them on the way in.
@pytest.mark.backends("sqlite")
def test_malformed_imported_entries_get_clear_errors_and_change_nothing(manager: SAIVerseManager) -> None:
    insert_entry(manager, P, "broken-ids", content="壊れた", source_ids="not json", end="2026-01-01 00:00:00")
    insert_entry(manager, P, "broken-level", level="x", content="レベルなし", end="2026-01-01 00:00:00")
    insert_entry(manager, P, "empty", content="", end="2026-01-01 00:00:00")
    problems = {e.entry_id: e.problem for e in manager.chronicle.entries(P)}
    assert "SOURCE_IDS" in problems["broken-ids"] and "LEVEL" in problems["broken-level"]
    assert "CONTENT" in problems["empty"]
    ctx = manager_ctx(manager)
    with pytest.raises(ToolError, match="broken-ids.*SOURCE_IDS"):
        call_tool("chronicle_read_detail", {"entry_id": "broken-ids"}, ctx)
    with pytest.raises(ToolError, match="'missing'"):
        call_tool("chronicle_read_detail", {"entry_id": "missing"}, ctx)
    assert manager.chronicle.context_candidates(P) == []
    converse(manager, 70)
    manager.build_chronicle(P)  # broken rows never stop a build nor get consolidated
    assert {e.entry_id for e in manager.chronicle.entries(P) if e.problem} == {"broken-ids", "broken-level", "empty"}
    with pytest.raises(LongTermMemoryError, match="2026/01/01"):
        from saiverse.memory import parse_day

        parse_day("2026/01/01", "start_date")


def manager_ctx(m: SAIVerseManager):  # type: ignore[no-untyped-def]
    from saiverse.pulse import ManagerToolContext

    return ManagerToolContext(m, P, "library")


def test_chronicle_tools_search_and_read(manager: SAIVerseManager) -> None:
    converse(manager, 70)
    manager.build_chronicle(P)
    ctx = manager_ctx(manager)
    found = call_tool("chronicle_search", {"query": "図書館"}, ctx)
    entry = _entries(manager, 1)[0]
    assert found.startswith("Chronicle検索結果 (1件)") and f"({entry.entry_id}) Lv.1 | 2026-01-03 09:00" in found
    assert "(Chronicle検索結果なし" in call_tool("chronicle_search", {"query": "宇宙船"}, ctx)
    assert "(1件)" in call_tool("chronicle_search", {"start_date": "2026-01-03", "end_date": "2026-01-03",
                                                      "level": 1, "max_results": 1}, ctx)
    assert "なし" in call_tool("chronicle_search", {"start_date": "2026-02-01", "level": 0}, ctx)
    with pytest.raises(ToolError, match="YYYY-MM-DD"):
        call_tool("chronicle_search", {"start_date": "きのう"}, ctx)
    with pytest.raises(ToolError, match="どれか"):
        call_tool("chronicle_search", {}, ctx)
    detail = call_tool("chronicle_read_detail", {"entry_id": entry.entry_id, "max_source_messages": 3}, ctx)
    assert detail.startswith(f"【Chronicle Entry】{entry.entry_id}") and "Level: 1" in detail
    assert "--- 元のメッセージ (50件, 最大3件表示) ---" in detail and "[user]: 星座の話をしよう。" in detail
    assert detail.count("\n[") == 3


class _Blocking(OfflineModel):
    provider = "test"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()

    def generate(self, request: ChatRequest) -> ChatResult:
        self.entered.set()
        self.release.wait(30)
        return ChatResult(text="ミナはユーザーと星座について話した。", model="test")


def test_the_worker_builds_in_the_background_and_pulses_never_wait(manager: SAIVerseManager) -> None:
    converse(manager, 70)
    slow = _Blocking()
    manager.chronicle_builder.model_for = lambda pid: slow
    manager.chronicle_worker.interval = 0.05
    manager.chronicle_worker.start()
    manager.chronicle_worker.wake()
    assert slow.entered.wait(10), "the worker did not start a build"
    events = list(manager.handle_user_input("library", "こんにちは", persona_id=P))  # while a summary is pending
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok"
    assert manager.chronicle.count(P) == 0
    slow.release.set()
    deadline = datetime.now() + timedelta(seconds=10)
    while manager.chronicle.count(P) < 1 and datetime.now() < deadline:
        threading.Event().wait(0.05)
    assert _entries(manager, 1)[0].content == "ミナはユーザーと星座について話した。"


def test_chronicle_cli_builds_and_lists(saiverse_home: Path) -> None:
    from saiverse.settings import load_settings

    m = SAIVerseManager(load_settings(saiverse_home))
    converse(m, 70)
    m.close()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), *args, "--home", str(saiverse_home)],
                              capture_output=True, text=True, timeout=120)

    out = cli("chronicle", "--persona", P, "--build", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["built"]["created"]) == 2 and data["levels"] == {"1": 2}
    assert data["entries"][0]["message_count"] == 10 and data["entries"][0]["content"].startswith("2026年1月3日")
    bad = cli("chronicle", "--persona", "nobody")
    assert bad.returncode == 2 and "nobody" in bad.stderr



def test_a_pulse_takes_the_chronicle_into_its_context(manager: SAIVerseManager) -> None:
    """On both stores: PostgreSQL has no json_valid, and every pulse of a persona with a Chronicle failed
    there (found by tests/reliability/test_worker_kill_campaign.py)."""
    converse(manager, 70)
    manager.build_chronicle(P)
    insert_entry(manager, P, "broken-ids", content="壊れた", source_ids="not json", end=datetime(2026, 2, 1))
    candidates = manager.chronicle.context_candidates(P)
    assert candidates and "broken-ids" not in {e.entry_id for e in candidates}
    events = list(manager.handle_user_input("library", "こんにちは", persona_id=P))
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok", [e for e in events if e["type"] == "error"]
