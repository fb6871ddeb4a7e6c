"""The context builder: prompts within the token budget, newest first, nothing dropped silently."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from chat import Message
from saiverse.llm.offline import OfflineModel, estimate_tokens
from saiverse.manager import SAIVerseManager
from saiverse.memory import Entry
from saiverse.memory._context import (
    DEFAULT_CONTEXT_TOKENS,
    Line,
    Snapshot,
    fit,
    shorten,
    token_counter,
)
from saiverse.settings import load_settings
from tests.support.ltm_helpers import RecordingModel, converse

pytestmark = pytest.mark.chronicle_by_hand

P = "mina"


def _record(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> RecordingModel:
    model = RecordingModel()
    monkeypatch.setattr(manager, "models", lambda persona, kind: (model, None))
    return model


def test_shorten_keeps_head_and_tail_with_a_visible_marker() -> None:
    text_ = "はじまり。" + "あいうえお" * 2000 + "おわり。"
    short = shorten(text_, 300, estimate_tokens)
    assert estimate_tokens(short) <= 300 and short.startswith("はじまり。") and short.endswith("おわり。")
    assert "…（長いため約" in short and "字を省略）…" in short
    assert shorten("短い", 300, estimate_tokens) == "短い"


def test_fit_keeps_the_newest_within_the_budget() -> None:
    history = [Line("user" if i % 2 == 0 else "assistant", f"{i}番目の話。" + "猫" * 200,
                    datetime(2026, 1, 1) + timedelta(minutes=i)) for i in range(100)]
    snap = Snapshot(budget=2000, history=history)
    own = [Message(role="user", content="いま話したいこと")]
    out = fit(snap, "あなたはミナです。", own, estimate_tokens)
    assert out.input_tokens <= 2000
    assert out.messages[-1]["content"] == "いま話したいこと"
    kept = [m["content"].split("番目")[0] for m in out.messages[:-1]]
    assert kept == [str(i) for i in range(100 - len(kept), 100)] and 3 <= len(kept) < 100  # the newest, in order
    assert "これより前の会話は長さの都合で省いています" in out.system  # said, not silently dropped


def test_an_over_long_message_is_shortened_not_dropped() -> None:
    huge = "長い話。" + "星" * 30_000 + "最後の一文。"
    out = fit(Snapshot(budget=DEFAULT_CONTEXT_TOKENS), "あなたはミナです。", [Message(role="user", content=huge)],
              estimate_tokens)
    assert out.input_tokens <= DEFAULT_CONTEXT_TOKENS and out.shortened == 1
    body = out.messages[-1]["content"]
    assert body.startswith("長い話。") and body.endswith("最後の一文。") and "長いため約" in body
    history = [Line("user", "前の話。" + "月" * 20_000, datetime(2026, 1, 1))]
    out = fit(Snapshot(budget=3000, history=history), "sys", [Message(role="user", content="やあ")], estimate_tokens)
    assert out.verbatim == 1 and "長いため約" in out.messages[0]["content"] and out.input_tokens <= 3000


def test_old_messages_of_the_pulse_that_cannot_fit_are_named() -> None:
    own = [Message(role="user", content="結果" + "文" * 3000) for _ in range(6)] + [Message(role="user", content="最後")]
    out = fit(Snapshot(budget=2000), "sys", own, estimate_tokens)
    assert out.input_tokens <= 2000 and out.omitted_own > 0
    assert "件のメッセージは長さの都合で省きました" in out.messages[0]["content"]
    assert out.messages[-1]["content"] == "最後"


def test_chronicle_covers_what_is_no_longer_verbatim_and_the_gap_is_said() -> None:
    base = datetime(2026, 1, 1)
    history = [Line("user", "新しい話" + "あ" * 300, base + timedelta(days=10, minutes=i)) for i in range(40)]
    old = Entry("e-old", 1, "ミナはユーザーと「星座」について話した（50件）。", start=base, end=base + timedelta(days=1))
    newer = Entry("e-new", 1, "ミナはユーザーと「紅茶」について話した（50件）。", start=base + timedelta(days=2),
                  end=base + timedelta(days=3))
    overlapping = Entry("e-recent", 1, "最近のあらすじ。", start=base + timedelta(days=10, minutes=39),
                        end=base + timedelta(days=11))
    snap = Snapshot(budget=4000, history=history, chronicle=[overlapping, newer, old])
    out = fit(snap, "あなたはミナです。", [Message(role="user", content="こんにちは")], estimate_tokens)
    assert out.input_tokens <= 4000 and 0 < out.verbatim < 40
    assert out.chronicle_ids == ["e-old", "e-new"]  # oldest first; the one still verbatim is left out
    assert out.system.index("「星座」") < out.system.index("「紅茶」")
    assert "まだまとめていない会話があります" in out.system  # days 3..10 are in neither
    assert "## これまでのあらすじ（Chronicle）" in out.system


def test_token_counter_prefers_the_models_tokenizer() -> None:
    class Counting(OfflineModel):
        def count_tokens(self, text_: str) -> int:
            return len(text_) * 3

    assert token_counter(Counting())("あい") == 6
    assert token_counter(OfflineModel())("あいう") == 3 and token_counter(None)("abcd") == 1


def test_budget_is_persona_then_env_then_default(saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert m.context.budget(P) == DEFAULT_CONTEXT_TOKENS
        with m.db.session() as s:
            s.execute(text("UPDATE ai SET CONTEXT_TOKENS = 3000 WHERE AIID = :p"), {"p": P})
        assert m.context.budget(P) == 3000 and m.context.budget("sora") == DEFAULT_CONTEXT_TOKENS
    finally:
        m.close()
    monkeypatch.setenv("SAIVERSE_CONTEXT_TOKENS", "12000")
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert m.context.budget("sora") == 12000 and m.context.budget(P) == 3000
    finally:
        m.close()
    monkeypatch.setenv("SAIVERSE_CONTEXT_TOKENS", "500")
    with pytest.raises(ValueError, match="SAIVERSE_CONTEXT_TOKENS must be at least 1000"):
        load_settings(saiverse_home)
    monkeypatch.setenv("SAIVERSE_CONTEXT_TOKENS", "たくさん")
    with pytest.raises(ValueError, match="SAIVERSE_CONTEXT_TOKENS must be an integer"):
        load_settings(saiverse_home)


def _pulse(manager: SAIVerseManager, text_: str) -> list[dict[str, Any]]:
    return list(manager.handle_user_input("library", text_, persona_id=P))


def test_long_chats_stay_within_the_budget_and_pulse_end_says_so(manager: SAIVerseManager,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = _record(manager, monkeypatch)
    turn = "今日の出来事を話すね。" + "図書館で星の本を読んで、帰りに紅茶を飲んだ。" * 60  # ~1,300 characters
    for i in range(25):
        before = len(model.requests)
        events = _pulse(manager, f"{i}回目: {turn}")
        end = events[-1]
        assert end["type"] == "pulse_end" and end["status"] == "ok"
        calls = len(model.requests) - before
        assert calls >= 1 and 0 < end["usage"]["input_tokens"] <= DEFAULT_CONTEXT_TOKENS * calls
    for request in model.requests[-6:]:
        tokens = estimate_tokens(request.system or "") + sum(estimate_tokens(m["content"]) + 4 for m in request.messages)
        assert tokens <= DEFAULT_CONTEXT_TOKENS  # the 25 turns sent 29,453 tokens before
    last = model.requests[-1]
    assert last.messages[-1]["content"].startswith("24回目") or any(
        m["content"].startswith("24回目") for m in last.messages)


def test_the_model_sees_memopedia_and_chronicle(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    manager.memopedia.create(P, "ユーザー", summary="紅茶が好きな常連さん。", category="people")
    page = manager.memopedia.create(P, "合言葉", summary="図書館の合言葉。", content="合言葉はフクロウ。")
    manager.memopedia.set_open(P, page.page_id, True)
    converse(manager, 400, length=120)
    manager.build_chronicle(P)
    assert manager.chronicle.count(P) > 0
    model = _record(manager, monkeypatch)
    _pulse(manager, "こんにちは、覚えてる？")
    request = model.requests[-1]
    assert "## 覚えていること（Memopedia）" in request.system and "紅茶が好きな常連さん。" in request.system
    assert "### 開いているページ「合言葉」" in request.system and "合言葉はフクロウ。" in request.system
    assert "## これまでのあらすじ（Chronicle）" in request.system and "ミナはユーザーと「" in request.system
    assert request.messages[-2]["content"] == "こんにちは、覚えてる？" or any(
        m["content"] == "こんにちは、覚えてる？" for m in request.messages)


def test_snapshots_follow_new_messages_and_memory_writes(manager: SAIVerseManager) -> None:
    with manager.db.session() as s:
        s.execute(text("UPDATE ai SET CONTEXT_TOKENS = 1000 WHERE AIID = :p"), {"p": P})
    converse(manager, 40, length=200)
    source = manager.context
    first = source.snapshot(P)
    assert first.older is not None and 3 < len(first.history) < 40
    talk = "新しい話題: 天体望遠鏡" + "。星がよく見える" * 40
    newest = manager.memory.add(P, "user", talk, tags=["conversation"], pulse_id="p-now")
    second = source.snapshot(P)
    assert second.history[-1].content == talk
    assert second.history[0].created > first.history[0].created  # the oldest line left to keep the budget
    assert all(h.content != newest["content"] for h in source.snapshot(P, "p-now").history)  # the pulse's own
    assert second.core == ""
    manager.memopedia.create(P, "望遠鏡", summary="屋上にある。")
    assert "望遠鏡: 屋上にある。" in source.snapshot(P).core
    converse(manager, 30, length=50, start=datetime(2026, 2, 1))
    manager.build_chronicle(P)
    assert source.snapshot(P).chronicle  # the entries just written are offered at once
