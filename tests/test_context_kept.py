"""A kept snapshot brought up to date (saiverse/memory/_context_source.py) equals one read in full, on
SQLite and on PostgreSQL: the newest id and the new lines come from one statement.
"""

from __future__ import annotations

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory._context_source import MAX_APPEND

pytestmark = pytest.mark.backends("sqlite", "postgresql")

P = "mina"


def _lines(m: SAIVerseManager, pulse_id: str | None = None) -> list[tuple[str, str, str | None]]:
    return [(h.role, h.content, h.pulse_id) for h in m.context.snapshot(P, pulse_id).history]


def _fresh(m: SAIVerseManager, pulse_id: str | None = None) -> list[tuple[str, str, str | None]]:
    m.context.forget(P)
    return _lines(m, pulse_id)


def test_appended_snapshot_equals_a_full_read(manager: SAIVerseManager) -> None:
    m = manager
    for i in range(5):
        m.memory.add(P, "user", f"はじめの話 {i}", tags=["conversation"], pulse_id=f"a{i}")
    assert _lines(m) == _fresh(m)  # kept from here on
    m.memory.add(P, "user", "新しい話", tags=["conversation"], pulse_id="b1")
    m.memory.add(P, "assistant", "内緒のメモ", tags=["internal"], pulse_id="b1")  # not conversation
    m.memory.add(P, "assistant", "下書き", tags=["conversation"], pulse_id="b1", line={"scope": "discardable"})
    m.memory.add(P, "assistant", "答え", tags=["conversation"], pulse_id="b1")
    kept = _lines(m, "b2")
    assert kept[-2:] == [("user", "新しい話", "b1"), ("assistant", "答え", "b1")]
    assert kept == _fresh(m, "b2")
    assert _lines(m) == _lines(m)  # nothing new: the kept snapshot as it is
    # Many new lines at once: read in full rather than appended, with the same result.
    for i in range(MAX_APPEND + 5):
        m.memory.add(P, "user", f"たくさん {i}", tags=["conversation"], pulse_id="c")
    many = _lines(m)
    assert many[-1] == ("user", f"たくさん {MAX_APPEND + 4}", "c") and many == _fresh(m)
    # The newest line gone (another process deleted it): read in full again.
    newest = max(r["id"] for r in m.memory.list_messages(P, limit=1))
    m.memory.delete(P, newest)
    assert _lines(m)[-1] == ("user", f"たくさん {MAX_APPEND + 3}", "c")


def test_protocol_checks_are_per_class_unless_a_class_answers_attributes_itself() -> None:
    from chat import TokenCounter
    from saiverse.llm.offline import OfflineModel, estimate_tokens
    from saiverse.memory._context import conforms, token_counter

    class Counting(OfflineModel):
        def count_tokens(self, text: str) -> int:
            return len(text)

    class Proxy:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    assert token_counter(Counting())("abc") == 3 and token_counter(OfflineModel()) is estimate_tokens
    assert token_counter(Counting())("abcd") == 4  # asked again: the kept answer
    assert conforms(Proxy(Counting()), TokenCounter) and not conforms(Proxy(OfflineModel()), TokenCounter)


def test_fit_with_shared_running_costs_is_fit_without() -> None:
    from dataclasses import replace
    from datetime import datetime, timedelta

    from saiverse.llm.offline import estimate_tokens
    from saiverse.memory._context import MESSAGE_OVERHEAD, Line, Snapshot, fit

    start = datetime(2026, 1, 1)
    history = [Line("user" if i % 2 else "assistant", f"{i}番目の話。" + "猫の本" * (i % 7) * 20,
                    start + timedelta(minutes=i)) for i in range(120)]
    sums: dict = {}
    shown: dict = {}  # the history's messages, made once and shared by every prompt below
    for budget in (400, 1500, 3000, 20000):
        snap = Snapshot(budget=budget, history=history)
        for own in ([], [{"role": "user", "content": "こんにちは" * 50}]):
            alone = fit(snap, "あなたはミナです。", own, estimate_tokens)
            shared = fit(snap, "あなたはミナです。", own, estimate_tokens, {}, sums)
            # Each line's cost as the snapshot's reader worked it out: summed, not counted again.
            known = fit(replace(snap, costs=[estimate_tokens(h.content) + MESSAGE_OVERHEAD for h in history]), "あなたはミナです。",
                        own, estimate_tokens, {}, {}, shown)
            made = fit(replace(snap, shown=[{"role": h.role, "content": h.content} for h in history]),
                       "あなたはミナです。", own, estimate_tokens)
            assert made.messages == alone.messages and made.input_tokens == alone.input_tokens
            assert (alone.messages, alone.system, alone.input_tokens, alone.verbatim, alone.shortened) == \
                (shared.messages, shared.system, shared.input_tokens, shared.verbatim, shared.shortened) == \
                (known.messages, known.system, known.input_tokens, known.verbatim, known.shortened)
    assert len(sums) == 1 and len(shown) == 1  # one history list: its running costs and messages made once


def test_a_pulses_own_lines_are_left_out_and_each_lines_cost_follows_it(manager: SAIVerseManager) -> None:
    from saiverse.llm.offline import estimate_tokens
    from saiverse.memory import MESSAGE_OVERHEAD

    m = manager
    m.memory.add(P, "user", "まえの話", tags=["conversation"], pulse_id="old")
    assert _lines(m) == _fresh(m)  # kept from here on
    m.memory.add(P, "user", "猫の話をしよう", tags=["conversation"], pulse_id="p")
    m.memory.add(P, "assistant", "ほかのパルスの声", tags=["conversation"], pulse_id="q")  # between p's lines
    m.memory.add(P, "assistant", "いいですね" * 30, tags=["conversation"], pulse_id="p")
    for pulse in ("p", "q", "old", "none", None):
        snap = m.context.snapshot(P, pulse)
        assert [(h.role, h.content, h.pulse_id) for h in snap.history] == _fresh(m, pulse)
        assert pulse is None or all(h.pulse_id != pulse for h in snap.history)
        assert snap.costs == [estimate_tokens(h.content) + MESSAGE_OVERHEAD for h in snap.history]
        assert snap.shown == [{"role": h.role, "content": h.content} for h in snap.history]
    assert [h.content for h in m.context.snapshot(P, "p").history] == ["まえの話", "ほかのパルスの声"]


def test_lines_trimmed_from_a_kept_snapshot_leave_its_counts_right(manager: SAIVerseManager) -> None:
    from saiverse.memory._context_source import MAX_HISTORY

    m = manager
    m.memory.add(P, "user", "いちばん古い話", tags=["conversation"], pulse_id="first")
    m.memory.add(P, "assistant", "古い返事", tags=["conversation"], pulse_id="first")
    _lines(m)
    for chunk in range(0, MAX_HISTORY, MAX_APPEND):  # appended a chunk at a time, the oldest trimmed
        for i in range(chunk, chunk + MAX_APPEND):
            m.memory.add(P, "user", f"話 {i}", tags=["conversation"], pulse_id=f"n{i // 2}")
        _lines(m)
    kept = m.context._kept[P]
    assert len(kept.snap.history) == MAX_HISTORY and "first" not in kept.pulses
    assert kept.pulses == {p: sum(h.pulse_id == p for h in kept.snap.history)
                           for p in {h.pulse_id for h in kept.snap.history}}
    assert _lines(m, "first") == _fresh(m, "first")
    assert [msg["content"] for msg in m.context.snapshot(P).shown or []] == [h.content for h in kept.snap.history]
    assert _lines(m, f"n{(MAX_HISTORY - 1) // 2}") == _fresh(m, f"n{(MAX_HISTORY - 1) // 2}")
