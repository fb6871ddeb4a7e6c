"""Time in a question (issue 33: 「いつ」 "when", 「先月」 use dates; what changed is answered newest first).

saiverse/memory/_rank.py's `date_window` turns a relative date (「先月」, "last week") into a span, fused
with the lexical list; `newest_first` puts the newer of two mentions of the same thing first. Here:
- `named_window`: a month named in the question (「4月」, "in April 2024") is a span too;
- `time_bias`: a question asking *when* (いつ, when, 何月) favours turns that say a time (昨日, "last
  Saturday", 3月, 2023): the answer to "when" is in the turn that dates the event, together with the
  date the turn was said, which every hit carries; a question asking about *now* (今の, 現在, "now",
  "currently", "these days") favours the newer turns among the hits, so the latest value of a fact that
  changed outranks the first; one asking about *before* (以前の, 元の, "previous", "used to") the older.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from saiverse.memory._common import parse_time
from saiverse.memory._lexical import normalise

WHEN_BOOST = 1.3
"""Score factor for a turn that says a time, on a question asking when."""
NOW_HALF_LIFE_DAYS = 90.0
"""On a question about now, a hit this much older than the newest hit keeps 0.5 + 0.5 × ½ of its score."""

_WHEN = re.compile(r"いつ|何月|何日|何年|何曜|何時ごろ|\bwhen\b|what (date|day|time|year|month)|which (day|month|year)"
                   r"|how long ago")
_NOW = re.compile(r"今の|今は|今も|今、|今でも|現在|最近|この頃|\bnow\b|\bcurrent|these days|nowadays|\bstill\b"
                  r"|\blatest\b")
_PAST = re.compile(r"以前|昔の|前の|元の|もともと|かつて|\bprevious|\bformer|used to|\boriginally")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_SAYS_TIME = re.compile(
    r"昨日|一昨日|おととい|先週|先月|去年|昨年|今朝|今日|明日|来週|来月|来年|先日|この前|週末|年末|年始|お盆|正月|春|夏|秋|冬"
    r"|[0-9０-９一二三四五六七八九十]+(日|月|年|週|時|か月|ヶ月)|[月火水木金土日]曜"
    r"|\b(yesterday|today|tonight|tomorrow|ago|last|next|weekend|morning|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|spring|summer|autumn|fall|winter|" + "|".join(_MONTHS) + r")\b|\b(19|20)\d\d\b")
_KANJI_MONTH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11,
                "十二": 12}
_JA_MONTH = re.compile(r"(?:(\d{4})年)?(1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])月")
_EN_MONTH = re.compile(r"\b(" + "|".join(m.capitalize() for m in _MONTHS) + r")\b(?:,? (\d{4}))?")


def named_window(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The month a question names (「2024年4月」「4月」, "April 2024", "in April"; English month names
    capitalised, so "may I" is no month), the latest one not after `now` when no year is said."""
    month = year = None
    ja = _JA_MONTH.search(query)
    if ja:
        month = int(ja.group(2)) if ja.group(2).isdigit() else _KANJI_MONTH[ja.group(2)]
        year = int(ja.group(1)) if ja.group(1) else None
    else:
        en = _EN_MONTH.search(query)
        if en is None or en.group(1) == "May" and not en.group(2) and not re.search(r"\b(in|of|during) May", query):
            return None
        month, year = _MONTHS.index(en.group(1).lower()) + 1, int(en.group(2)) if en.group(2) else None
    if year is None:
        year = now.year if month <= now.month else now.year - 1
    start = datetime(year, month, 1)
    return start, datetime(year + month // 12, month % 12 + 1, 1)


def time_bias(query: str, hits: list[dict[str, Any]]) -> None:
    """Scale the hits' scores for a question asking when, about now or about before (see the module docstring)."""
    q = normalise(query)
    when, current, past = bool(_WHEN.search(q)), bool(_NOW.search(q)), bool(_PAST.search(q))
    if not (when or current or past):
        return
    times = {id(h): parse_time(h.get("created_at")) for h in hits}
    known = [t for t in times.values() if t]
    newest, oldest = max(known, default=None), min(known, default=None)
    for h in hits:
        if when and _SAYS_TIME.search(normalise(str(h.get("content", "")))):
            h["score"] = round(h["score"] * WHEN_BOOST, 6)
        said = times[id(h)]
        if said is None or current == past:  # neither, or a question about both (「以前と今」)
            continue
        age = (newest - said if current else said - oldest).total_seconds() / 86400  # type: ignore[operator]
        h["score"] = round(h["score"] * (0.5 + 0.5 * 0.5 ** (max(age, 0.0) / NOW_HALF_LIFE_DAYS)), 6)
