"""How a batch of messages (or of entries) becomes Chronicle text.

With a real model the persona's lightweight model writes it from a transcript. With the offline
model the summary is composed, deterministically, from what the batch is about: who spoke, the
words they used most (runs of kanji, katakana or latin letters, minus common ones and the
speakers' names), the time span, and the opening and closing lines in brief — so it reads as a
summary ("ミナはユーザーと「星座」「図書館」について話した…"), never as a cut-off transcript.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from chat import ChatModel, ChatRequest, Message
from saiverse.memory._chronicle import Entry
from saiverse.memory._common import local_time, parse_time

_WORDS = re.compile(r"[\u4e00-\u9fff々]{2,}|(?<![\u4e00-\u9fff々])[\u4e00-\u9fff](?=[のはがをにとも])"
                    r"|[\u30a1-\u30faー]{2,}|[A-Za-z][A-Za-z0-9]{2,}")
"""Content words: kanji compounds, a single kanji used as a noun (猫の, 猫は), katakana words, latin words."""
_NOISE = re.compile(r"<system>.*?</system>|<[^>]+>|（[^（）]*）|\([^()]*\)", re.S)
_STOP = frozenset(
    "今日 明日 昨日 今回 自分 本当 時間 大丈夫 一緒 場合 感じ 何か 少し 質問 言葉 気持 今度 最近 全部 結果 "
    "お願い ありがとう よろしく 了解 オフライン モデル 応答 ユーザー the and you for with that this are was "
    "私 僕 俺 君 何 話 前 後 時 事 物 方 人 今 次 気 中 上 下 先 所 他 例 度 数 回 分 点 頃 件 日 年 月".split()
)
"""Words too common to say what a conversation was about."""
QUOTE_CHARS = 24
TRANSCRIPT_CHARS = 400
"""Characters of each message a model summary is shown (the rest is elided)."""


def topic_words(texts: Iterable[str], *, exclude: Iterable[str] = (), limit: int = 4) -> list[str]:
    """The most used content words of `texts`, most frequent first (ties: first seen first)."""
    skip = {w.lower() for w in exclude if w}
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for body in texts:
        for word in _WORDS.findall(_NOISE.sub(" ", body or "")):
            if word.lower() in _STOP or word.lower() in skip or any(s and s in word for s in skip):
                continue
            counts[word] += 1
            first.setdefault(word, len(first))
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    # A word inside a more frequent one (図書 in 図書館) adds nothing.
    chosen: list[str] = []
    for word in ranked:
        if not any(word in c or c in word for c in chosen):
            chosen.append(word)
        if len(chosen) == limit:
            break
    return chosen


def _quote(text: str) -> str:
    body = " ".join(_NOISE.sub(" ", text or "").split())
    sentence = re.split(r"(?<=[。！？!?])", body, maxsplit=1)[0].strip()
    return sentence if len(sentence) <= QUOTE_CHARS else sentence[: QUOTE_CHARS - 1] + "…"


def span(start: datetime | None, end: datetime | None) -> str:
    """`2026年1月3日` or `2026年1月3日〜1月5日`: the local dates of a batch given in naive UTC (a talk
    from 08:00 to 10:00 in Tokyo is one day, though it crosses midnight in UTC)."""
    if start is None and end is None:
        return "ある日"
    first_utc, last_utc = start or end, end or start
    assert first_utc is not None and last_utc is not None
    start, end = local_time(first_utc), local_time(last_utc)
    first = f"{start.year}年{start.month}月{start.day}日"
    if start.date() == end.date():
        return first
    last = f"{end.month}月{end.day}日" if start.year == end.year else f"{end.year}年{end.month}月{end.day}日"
    return f"{first}〜{last}"


DATE_HEADER = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日(?:〜(?:\d{4}年)?\d{1,2}月\d{1,2}日)?、")
"""The `span(...)、` an offline summary begins with."""


def date_header(content: str) -> str:
    """The dates a summary begins with (`2026年1月3日〜1月4日、`), or "" when it begins otherwise."""
    found = DATE_HEADER.match(content or "")
    return found.group(0) if found else ""


def _topics_phrase(words: Sequence[str]) -> str:
    return "".join(f"「{w}」" for w in words)


def summarize_messages(persona: str, user: str, messages: Sequence[dict[str, Any]]) -> str:
    """A deterministic level-1 summary of `messages` (dicts with role, content, created_at)."""
    times = [t for t in (parse_time(m.get("created_at")) for m in messages) if t]
    when = span(min(times, default=None), max(times, default=None))
    words = topic_words((m.get("content", "") for m in messages), exclude=(persona, user))
    users = [m for m in messages if m.get("role") == "user"]
    mine = [m for m in messages if m.get("role") == "assistant"]
    partner = f"{user}と" if users else ""
    about = f"{_topics_phrase(words)}について" if words else "他愛のないことを"
    verb = "話した" if users and mine else ("語った" if mine else "聞いた")
    out = f"{when}、{persona}は{partner}{about}{verb}（{len(messages)}件）。"
    opening = _quote(users[0]["content"]) if users else ""
    closing = _quote(mine[-1]["content"]) if mine else ""
    if opening and closing:
        out += f"{user}の「{opening}」に始まり、{persona}は「{closing}」と返した。"
    elif opening:
        out += f"{user}は「{opening}」と話した。"
    return out


def summarize_entries(persona: str, user: str, entries: Sequence[Entry]) -> str:
    """A deterministic level-n summary of lower-level entries."""
    start = min((e.start or e.end for e in entries if e.start or e.end), default=None)
    end = max((e.end or e.start for e in entries if e.end or e.start), default=None)
    words = topic_words((e.content for e in entries), exclude=(persona, user), limit=6)
    messages = sum(e.message_count for e in entries)
    about = f"{_topics_phrase(words)}などについて" if words else "さまざまなことを"
    return (f"{span(start, end)}、{persona}は{user}と{about}語り合った"
            f"（あらすじ{len(entries)}件、会話{messages}件のまとめ）。")


def _clip(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def model_summary_messages(model: ChatModel, persona: str, user: str, messages: Sequence[dict[str, Any]]) -> str:
    """A level-1 summary written by a real model from the batch's transcript."""
    lines = []
    for m in messages:
        who = persona if m.get("role") == "assistant" else user
        when = parse_time(m.get("created_at"))
        said = f"{who}: {_clip(m.get('content', ''), TRANSCRIPT_CHARS)}"
        lines.append(f"[{local_time(when):%Y-%m-%d %H:%M}] {said}" if when else said)
    prompt = (f"次の会話を、{persona}の記憶として残すあらすじにしてください。誰が何について話し、何が決まったかが"
              "分かるように、日本語で200字以内、箇条書きにせず一段落で書いてください。\n\n" + "\n".join(lines))
    return _ask(model, persona, prompt)


def model_summary_entries(model: ChatModel, persona: str, entries: Sequence[Entry]) -> str:
    """A level-n summary written by a real model from the entries it consolidates."""
    body = "\n".join(f"- {e.content}" for e in entries)
    prompt = (f"次の{len(entries)}件のあらすじを、{persona}の記憶として、ひとつの期間のあらすじにまとめてください。"
              f"大事な出来事と人物を残し、日本語で300字以内、一段落で書いてください。\n\n{body}")
    return _ask(model, persona, prompt)


def _ask(model: ChatModel, persona: str, prompt: str) -> str:
    result = model.generate(ChatRequest(
        messages=[Message(role="user", content=prompt)],
        system=f"あなたは{persona}の記憶を整理する書記です。事実だけを簡潔に書きます。", persona_name=persona))
    return result.text.strip()
