"""Recall's ranking (saiverse/memory/_recall.py, _rank.py, _lexical.py) on real stores: SQLite in the
home and PostgreSQL (tests/support/pg.py) — what issue 33 found wrong, asserted on real outcomes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory import recall
from saiverse.memory._lexical import query_terms
from saiverse.memory._rank import date_window
from saiverse.pulse import ManagerToolContext
from tools import call_tool

pytestmark = [pytest.mark.backends("sqlite", "postgresql"), pytest.mark.chronicle_by_hand]

P = "mina"
SMALL_TALK = ["Did you go to the shop today?", "I think it was the best day, to be honest.",
              "What did you do at the weekend?", "We went to the park and it was nice.",
              "Did they go to the cinema?", "The weather was grey all week.",
              "I had a group call with my cousins.", "Supporting my team at the match was fun."]


def _say(m: SAIVerseManager, lines: Sequence[str], start: datetime, role: str = "user") -> list[int]:
    return [m.memory.add(P, role, t, tags=["conversation"], created_at=start + timedelta(minutes=i))["id"]
            for i, t in enumerate(lines)]


def _first(m: SAIVerseManager, query: str) -> str:
    return recall(m.memory, m.chronicle, m.memopedia, P, query, limit=5)[0]["content"]


def test_stemming_and_stop_words(manager: SAIVerseManager) -> None:
    start = datetime(2025, 3, 1, 10, 0)
    _say(manager, SMALL_TALK * 5, start)
    _say(manager, ["Last Tuesday I went to an LGBTQ support group for the first time."], start - timedelta(days=9))
    # "When did Caroline go to the" are stop words or everywhere; LGBTQ and the stems decide.
    assert "LGBTQ" in _first(manager, "When did Caroline go to the LGBTQ support group?")
    assert "LGBTQ" in _first(manager, "Which supporting groups does she attend?")  # support+group, stemmed


def test_a_fact_that_changed_is_answered_newest_first(manager: SAIVerseManager) -> None:
    old = _say(manager, ["I work as a nurse at St. Mary's hospital."], datetime(2025, 1, 5, 9, 0))[0]
    new = _say(manager, ["I quit the hospital, I work at a pediatric clinic now."], datetime(2025, 3, 20, 9, 0))[0]
    repeated = _say(manager, ["The clinic? I work there on Mondays.", "Oh, you work at the clinic!"],
                    datetime(2025, 3, 21, 9, 0))
    manager.memory.add(P, "user", "Work was busy today.", tags=["conversation"], created_at=datetime(2024, 6, 1))
    hits = recall(manager.memory, manager.chronicle, manager.memopedia, P, "Where does she work at the hospital?")
    ids = [h["id"] for h in hits]
    assert ids.index(new) < ids.index(old) and hits[ids.index(old)].get("older")
    said = {h["id"]: h for h in recall(manager.memory, manager.chronicle, manager.memopedia, P, "clinic work")}
    assert not said[repeated[0]].get("older")  # a reply repeating the words the same day is no change
    shown = call_tool("memory_recall", {"query": "hospital work"}, ManagerToolContext(manager, P, "library"))
    assert shown.index("pediatric clinic") < shown.index("nurse at St. Mary") and "以前" in shown


def test_japanese_grams_synonyms_and_the_reply_a_question_brings(manager: SAIVerseManager) -> None:
    start = datetime(2025, 2, 1, 20, 0)
    _say(manager, ["今日は一日中雨だったね。", "仕事でずっと会議だった。", "猫がキーボードの上で寝てた。",
                   "駅前のさくらクリニックで診てもらったの。", "図書館で本を借りた。"] * 3, start)
    assert "猫" in _first(manager, "猫")  # one kanji, as the gram index always found
    assert "図書" in _first(manager, "図書")
    assert "クリニック" in _first(manager, "医者に行った話")  # 医者 → クリニック, the small synonym table
    q, a = _say(manager, ["こむぎの好きなおやつは何？"], start + timedelta(days=1))[0], \
        _say(manager, ["かつおぶしだよ。"], start + timedelta(days=1, minutes=1), role="assistant")[0]
    hit = next(h for h in recall(manager.memory, manager.chronicle, manager.memopedia, P, "こむぎのおやつ")
               if h["id"] == q)
    assert hit["next"] == "かつおぶしだよ。" and a != q


def test_a_named_month_and_a_dense_scorer_are_fused(manager: SAIVerseManager) -> None:
    now = datetime(2025, 5, 20, 12, 0)
    ids = _say(manager, ["ピアノの練習をした。"], datetime(2025, 4, 10, 9, 0))  # last month
    ids += _say(manager, ["ピアノの練習をした。", "ピアノの練習を一時間した。", "ピアノの練習、楽しかった。"],
                datetime(2025, 5, 19, 9, 0))
    assert date_window("先月のピアノ", now) == (datetime(2025, 4, 1), datetime(2025, 5, 1))
    hits = recall(manager.memory, manager.chronicle, manager.memopedia, P, "先月のピアノ", now=now)
    assert hits[0]["id"] == ids[0]  # the line of April leads, although the May ones are newer

    tuned = _say(manager, ["ピアノの調律をしてもらった。"], datetime(2025, 3, 1, 9, 0))[0]

    def likes_tuning(query: str, texts: Sequence[str]) -> list[float]:
        return [1.0 if "調律" in t else 0.0 for t in texts]  # a scorer's own ranking, fused by RRF
    plain = recall(manager.memory, manager.chronicle, manager.memopedia, P, "ピアノ", now=now)
    fused = recall(manager.memory, manager.chronicle, manager.memopedia, P, "ピアノ", now=now, dense=likes_tuning)
    place = [[h["id"] for h in found].index(tuned) for found in (plain, fused)]
    assert place[1] < place[0]  # the scorer's first rises (RRF: one list does not override the other)


def test_query_terms() -> None:
    keys = [t.key for t in query_terms("When did Caroline go to the LGBTQ support group?")]
    assert "lgbtq" in keys and "support" in keys and "when" not in keys and "the" not in keys
    assert {t.key for t in query_terms("ＳＵＰＰＯＲＴＩＮＧ")} == {"support"}  # full-width made plain
    studies = query_terms("studies")[0]
    assert studies.key == "studi" and studies.probe in "study" and studies.probe in "studies"
