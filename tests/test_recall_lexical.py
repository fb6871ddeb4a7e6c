"""Recall's lexical side on a real SQLite home: the everyday thesaurus (saiverse/memory/_thesaurus.py), a
line said again being one memory, the turn that completes a hit (saiverse/memory/_follow.py) and how
memory_recall packs its budget (tools/defs/memory_recall.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory import recall
from saiverse.memory._feedback import feedback_terms
from saiverse.memory._lexical import MAX_EXPANSIONS, SYNONYM_WEIGHT, UNIGRAM_WEIGHT, query_terms
from saiverse.memory._timely import named_window, time_bias
from saiverse.pulse import ManagerToolContext
from tools import call_tool
from tools.defs.memory_recall import snippet

P = "mina"
TALK_JA = ["今日は一日中雨だったね。", "仕事でずっと会議だった。", "駅前のパン屋に行った。", "週末は掃除をしたい。"]


pytestmark = pytest.mark.chronicle_by_hand


def _say(m: SAIVerseManager, lines: Sequence[tuple[str, str]], start: datetime) -> list[int]:
    return [m.memory.add(P, role, t, tags=["conversation"], created_at=start + timedelta(minutes=i))["id"]
            for i, (role, t) in enumerate(lines)]


def _contents(m: SAIVerseManager, query: str, limit: int = 5) -> list[str]:
    return [h["content"] for h in recall(m.memory, m.chronicle, m.memopedia, P, query, limit=limit)]


def test_the_thesaurus_adds_whole_words_at_half_weight() -> None:
    terms = {t.key: t.weight for t in query_terms("咳で医者に何と言われた？")}
    assert terms["医者"] == 1.0 and terms["内科"] == SYNONYM_WEIGHT and terms["クリニック"] == SYNONYM_WEIGHT
    assert "母" not in {t.key for t in query_terms("家に帰った")}  # 家 is no family word, and no 1-kanji inside a run
    assert "引っ越" in {t.key for t in query_terms("どこに住んでいる？")}  # 住 alone is a whole run
    assert "vet" in {t.key for t in query_terms("Why did the cat go to the animal doctor?")}  # a phrase key
    assert len([t for t in query_terms("楽器とペットと家族と仕事") if t.weight == SYNONYM_WEIGHT]) <= MAX_EXPANSIONS


def test_a_question_worded_apart_finds_its_evidence(manager: SAIVerseManager) -> None:
    start = datetime(2025, 1, 10, 20, 0)
    _say(manager, [("user", t) for t in TALK_JA * 4], start)
    _say(manager, [("user", "週末にギターを習い始めた。"), ("user", "中古の軽自動車で通ってる。")], start + timedelta(days=3))
    _say(manager, [("user", "Pickle had two teeth pulled at the vet on Friday.")] +
         [("user", "My cat knocked a glass off the table, on purpose.")] * 3, start + timedelta(days=4))
    assert "ギター" in _contents(manager, "楽器は何を習っている？")[0]
    assert "軽自動車" in _contents(manager, "乗り物は何？")[0]
    assert any("vet" in c for c in _contents(manager, "Why did the cat go to the animal doctor?", 2))


def test_a_line_said_again_is_one_memory(manager: SAIVerseManager) -> None:
    start = datetime(2025, 2, 1, 9, 0)
    _say(manager, [("user", "歯医者の予約を忘れてた。")] * 6 + [("user", "駅前の内科で咳を診てもらった。")], start)
    found = _contents(manager, "医者に何と言われた？", 10)
    assert found.count("歯医者の予約を忘れてた。") == 1 and "駅前の内科で咳を診てもらった。" in found


def test_a_statement_brings_the_turn_that_completes_it(manager: SAIVerseManager) -> None:
    start = datetime(2025, 3, 1, 21, 0)
    _say(manager, [("user", "先週、母が階段で転んで手首を骨折した。"), ("assistant", "えっ、大丈夫？"),
                   ("user", "手術は成功。一週間実家にいた。")], start)
    _say(manager, [("user", "本屋のバイト、辞めることにした。"), ("user", "代わりに塾で国語を教えることになった。")],
         start + timedelta(days=5))
    _say(manager, [("user", "ギターの弦を替えた。")], start + timedelta(days=9))  # another day: no follow-up
    hits = {h["content"]: h for h in recall(manager.memory, manager.chronicle, manager.memopedia, P, "手首の骨折")}
    assert hits["先週、母が階段で転んで手首を骨折した。"]["next"] == "手術は成功。一週間実家にいた。"
    hits = {h["content"]: h for h in recall(manager.memory, manager.chronicle, manager.memopedia, P, "バイト")}
    assert hits["本屋のバイト、辞めることにした。"]["next"].startswith("代わりに塾で")
    shown = call_tool("memory_recall", {"query": "バイト"}, ManagerToolContext(manager, P, "library"))
    assert "→ 代わりに塾で国語を教えることになった。" in shown
    # Brought whole as the completing turn, it is not shown again as a hit of its own; an old line
    # says its day without the minute (it is long past: "this morning" needs the hour, March does not).
    shown = call_tool("memory_recall", {"query": "バイト 塾", "topk": 10}, ManagerToolContext(manager, P, "library"))
    assert shown.count("代わりに塾で国語を教えることになった。") == 1 and "- [2025-03-06] (相手) 本屋のバイト" in shown


def test_the_budget_holds_more_distinct_memories(manager: SAIVerseManager) -> None:
    start = datetime(2025, 4, 1, 9, 0)
    long_tail = "、".join(["とても長い話だった"] * 30)
    _say(manager, [("user", f"灯台の話{i}。{long_tail}") for i in range(12)], start)
    shown = call_tool("memory_recall", {"query": "灯台", "topk": 12, "max_chars": 2000},
                      ManagerToolContext(manager, P, "library"))
    assert len(shown) <= 2000 + 40 and shown.count("灯台の話") >= 10  # 240 characters each would fit 7
    assert snippet("I went out. " + "Nothing much. " * 30 + "Then the LGBTQ group met.", ["lgbtq"], 120) \
        .startswith("I went out.") and "LGBTQ group" in snippet(
            "I went out. " + "Nothing much. " * 30 + "Then the LGBTQ group met.", ["lgbtq"], 120)


def test_when_and_now_questions(manager: SAIVerseManager) -> None:
    def hits() -> list[dict[str, Any]]:
        return [{"content": "ジムでベンチプレスの話をした。", "score": 2.0, "created_at": "2025-05-01T20:00:00"},
                {"content": "昨日、ジムでベンチプレスを上げた。", "score": 1.7, "created_at": "2025-05-02T20:00:00"},
                {"content": "今はヨガに通ってる。", "score": 1.8, "created_at": "2025-09-01T20:00:00"}]
    asked = hits()
    time_bias("ベンチプレスを上げたのはいつ？", asked)  # the turn saying a time rises above the other
    assert asked[1]["score"] > asked[0]["score"] and asked[2]["score"] == 1.8
    asked = hits()
    time_bias("今はどこに通ってる？", asked)  # the newest keeps its score, the older ones fade
    assert asked[2]["score"] == 1.8 and asked[0]["score"] < 1.4 and asked[1]["score"] < 1.2
    asked = hits()
    time_bias("以前はどこに通ってた？", asked)  # about before: the oldest keeps its score, the newer fade
    assert asked[0]["score"] == 2.0 and asked[2]["score"] < 1.3
    unchanged = hits()
    time_bias("ベンチプレスの話", unchanged)
    assert unchanged == hits()
    start = datetime(2025, 5, 1, 20, 0)
    _say(manager, [("user", "ジムに通ってる。筋トレが楽しい。")], start)
    _say(manager, [("user", "ジムはやめて、今はヨガ教室に通ってる。")], start + timedelta(days=120))
    assert "ヨガ" in _contents(manager, "今はジムに通ってる？", 1)[0]  # the newer value of a fact
    window = named_window("2025年5月のジムの話", datetime(2026, 1, 1))
    assert window == (datetime(2025, 5, 1), datetime(2025, 6, 1))
    assert named_window("May I ask about the gym?", datetime(2026, 1, 1)) is None  # "May" as a verb
    assert named_window("What happened in April?", datetime(2026, 1, 1)) == (datetime(2025, 4, 1), datetime(2025, 5, 1))


def test_kept_lookups_see_new_and_deleted_messages(manager: SAIVerseManager) -> None:
    start = datetime(2025, 6, 1, 9, 0)
    first = _say(manager, [("user", "灯台守の祖父の話。")], start)[0]
    assert _contents(manager, "灯台守") == ["灯台守の祖父の話。"]
    assert _contents(manager, "灯台守") == ["灯台守の祖父の話。"]  # kept: no newer message, no lookup
    _say(manager, [("user", "灯台守の仕事は夜が長い。")], start + timedelta(days=1))  # newer than the kept lookup
    assert set(_contents(manager, "灯台守")) == {"灯台守の祖父の話。", "灯台守の仕事は夜が長い。"}
    assert manager.memory.delete(P, first)
    assert _contents(manager, "灯台守") == ["灯台守の仕事は夜が長い。"]


def test_a_name_used_to_address_someone_weighs_little(manager: SAIVerseManager) -> None:
    start = datetime(2025, 7, 1, 18, 0)
    greetings = ["Hey Caroline!", "Thanks, Caroline.", "Hi Caroline, good to see you!", "Bye Caroline!"]
    _say(manager, [("user", f"The weather was grey again, day {i} of the rain.") for i in range(60)], start)
    _say(manager, [("assistant", g) for g in greetings], start + timedelta(days=1))
    _say(manager, [("user", "The adoption agencies I called were all very kind to me."),
                   ("user", "I spent the whole week reading about how agencies work, their rules and their forms.")],
         start + timedelta(days=2))
    found = _contents(manager, "What did Caroline say about adoption agencies?", 3)
    assert found[0].startswith("The adoption agencies") and found[1].startswith("I spent the whole week")
    terms = {t.key: t for t in query_terms("What did Caroline say about adoption agencies?")}
    assert terms["carolin"].name and not terms["adopt"].name
    assert query_terms("Which races has Priya's dog run?")[1].name  # a possessive is the name too


def test_a_kanji_shared_finds_a_word_worded_apart(manager: SAIVerseManager) -> None:
    start = datetime(2025, 8, 1, 19, 0)
    _say(manager, [("user", t) for t in TALK_JA * 4], start)
    _say(manager, [("user", "改装は地元の大工さんにお願いした。")], start + timedelta(days=1))
    terms = {t.key: t.weight for t in query_terms("店の改修工事は誰に頼んだ？")}
    assert terms["改修"] == 1.0 and terms["改"] == UNIGRAM_WEIGHT and "誰" not in terms  # 誰 names no topic
    assert _contents(manager, "店の改修工事は誰に頼んだ？")[0] == "改装は地元の大工さんにお願いした。"


def test_the_best_hits_words_find_what_the_question_does_not_say(manager: SAIVerseManager) -> None:
    start = datetime(2025, 9, 1, 19, 0)
    _say(manager, [("user", f"The weather was grey again, day {i} of the rain.") for i in range(40)], start)
    _say(manager, [("user", "I won the contest! First prize for my sourdough at the county fair.")],
         start + timedelta(days=3))
    _say(manager, [("user", "Blue ribbon again at the county fair on Sunday, for the rye sourdough this time.")],
         start + timedelta(days=90))
    def found(feedback: bool) -> list[str]:
        return [h["content"] for h in recall(manager.memory, manager.chronicle, manager.memopedia, P,
                                             "Which contests has she entered?", limit=5, thorough=feedback)]
    assert not any(c.startswith("Blue ribbon") for c in found(False))  # it says neither "contest" nor "enter"
    assert found(True)[0].startswith("I won the contest") and any(c.startswith("Blue ribbon") for c in found(True))
    assert not any(t.latin is False for t in feedback_terms(query_terms("家族の話"), [
        {"kind": "message", "content": "家族で旅行に行った。"}]))  # Japanese grams bring no feedback
