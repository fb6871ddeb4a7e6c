"""What a request asks for, read by rule: its short title and the parts and counts it names.

`request_title("海の絵を描いて、波と灯台のある夕方の景色で")` → `灯台のある夕方の海`: the clause with
the request verb gives the core noun (海), a clause after it that only describes (波と灯台のある夕方の
景色で) gives the qualifier, and the verbs, politeness and generic nouns (絵, 景色, 文章) go. A clause
before the request (a name called out, `ソラ、`) is not part of the title. `request_parts` reads the
counts and parts a production request names (`表紙の絵と3ページの文章` → a cover and 3 pages).

These rules are what the offline model writes, and the fallback when a capable model gives no usable
title; they live here, at the bottom of the layers, because tools, sea and saiverse all name things.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TITLE_LIMIT = 20
"""Titles of made things are at most this many characters."""

_VERBS = ("描いて|書いて|かいて|作って|つくって|生成して|作成して|制作して|まとめて|残して|考えて|"
          "描く|書く|作る|描け|作れ")
_POLITE = r"(ください|下さい|くださる|ほしい|欲しい|くれる|くれない|くれますか|もらえる|もらえますか|" \
          r"いただけますか|お願い(します|できる)?|ね|よ|な|かな)*"
_REQUEST = re.compile(rf"(を|に|で)?({_VERBS}){_POLITE}[？?。！!]*$")
_HAS_VERB = re.compile(rf"({_VERBS})")
_QUOTED = re.compile(r"「([^「」]{2,})」")
_ADDRESS = re.compile(r"^[@＠]\S+\s*")
_SPLIT = re.compile(r"[。、！？!?\n,，]+")
_KIND_TAIL = re.compile(r"の?(絵|画像|イラスト|写真|ピクチャー)$")
_GENERIC_TAIL = re.compile(r"の?(景色|風景|様子|雰囲気|感じ|場面|光景|絵|画像|イラスト|文章|文|もの)$")
_PREDICATE = re.compile(r"(ます|ました|です|でした|だ|だった|ない|たい|て)$")
"""How a clause that says something (not describes something) ends."""
_PARTS_WORDS = ("表紙", "ページ", "頁", "章", "挿絵", "場面", "枚", "見開き", "あとがき", "目次")
GENERIC_NOUNS = ("文章", "文書", "ドキュメント", "テキスト", "ファイル", "絵", "画像", "イラスト", "もの", "作品")
"""Words that name only what kind of thing is wanted: as a title or a hero they say nothing."""
_KANJI_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_COUNT = re.compile(r"(\d+|[一二三四五六七八九十]+)\s*(ページ|頁|枚|場面|章|話)")
MAX_PAGES = 12
"""A request may ask for at most this many pages; more is read as this many."""


def _number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if text.startswith("十"):
        return 10 + _KANJI_DIGITS.get(text[1:], 0)
    if text.endswith("十"):
        return _KANJI_DIGITS.get(text[:-1], 1) * 10
    return _KANJI_DIGITS.get(text, 0)


def _clauses(text: str) -> list[str]:
    text = _ADDRESS.sub("", text.strip()).strip()
    return [c.strip(" 　『』\"'") for c in _SPLIT.split(text) if c.strip(" 　「」『』\"'")]


def _request_at(clauses: list[str]) -> int | None:
    """The index of the clause that ends in a request verb (`…を描いて`), if any."""
    return next((i for i, c in enumerate(clauses) if _REQUEST.search(c)), None)


def request_clause(text: str) -> str:
    """The clause of `text` that asks (`短い絵本を作って。表紙の絵と…` → 短い絵本を作って); else `text`."""
    clauses = _clauses(text)
    at = _request_at(clauses)
    return clauses[at] if at is not None else text


def asks_to_make(text: str) -> bool:
    """Whether `text` has a clause asking for something to be made (`…を描いて`, `…を作ってください`)."""
    return _request_at(_clauses(text)) is not None


def _is_parts(clause: str) -> bool:
    return any(w in clause for w in _PARTS_WORDS)


def _core(clause: str) -> str:
    """The thing a request clause asks for: `海の絵を描いて` → 海, `短い絵本を作って` → 短い絵本."""
    core = _REQUEST.sub("", clause).strip().replace("「", "").replace("」", "")
    core = re.sub(r"(について|のこと|に関して|を)$", "", core).strip()
    return _KIND_TAIL.sub("", core).strip() or core


def _qualifier(clause: str) -> str:
    """A describing clause as a modifier of the core noun: `波と灯台のある夕方の景色で` → 灯台のある夕方の.
    A list (`波と灯台`) keeps its last member, so a title names one thing."""
    if not (re.search(r"(で|に|にして|にしてね)$", clause) or _GENERIC_TAIL.search(clause)):
        return ""  # a sentence of its own (`京都で抹茶を飲みました`), not a description of the thing
    q = re.sub(r"(で|に|が|を|です|にして|にしてね)$", "", clause).strip()
    if _PREDICATE.search(q):
        return ""
    q = _GENERIC_TAIL.sub("", q).strip()
    q = re.sub(r"^[^、と]+と(?=[^と]+(のある|がある|のいる|がいる))", "", q)
    if not q:
        return ""
    return q if q.endswith(("の", "な", "い", "た", "る")) else q + "の"


def request_subject(text: str) -> str:
    """What a request is about, with the request words dropped but every description kept (a picture's
    prompt): `海の絵を描いて、波と灯台のある夕方の景色で` → 海、波と灯台のある夕方の景色. The words naming
    its title (`「夕焼け」というタイトルで`) are not part of it."""
    text = without_title(text)
    head, sep, tail = text.partition("：") if "：" in text else text.partition(":")
    if sep and tail.strip() and _HAS_VERB.search(head) and len(head) <= 40:
        return tail.strip()
    clauses = _clauses(text)
    at = _request_at(clauses)
    if at is None:
        return "、".join(clauses) or text.strip()
    rest = [re.sub(r"(で|にして)$", "", c) for c in clauses[at + 1:] if not _HAS_VERB.search(c)]
    return "、".join(p for p in [_core(clauses[at]), *rest] if p) or text.strip()


_TITLE_WORD = r"(?:タイトル|題名|表題|題|名前)"
_NAMED = (
    # 「星の夜」というタイトルで / 『星の夜』って題で / 「星の夜」と名付けて
    re.compile(rf"[「『]([^「」『』]+)[」』]\s*(?:という|って|との|と言う){_TITLE_WORD}(?:にして|で|の|に)?"
               r"|[「『]([^「」『』]+)[」』]\s*と(?:名付けて|名づけて|題して)"),
    # タイトルは「星の夜」で / 題名:「星の夜」
    re.compile(rf"{_TITLE_WORD}\s*(?:は|を|が|[:：])\s*[「『]([^「」『』]+)[」』]\s*(?:にして|で|に)?"),
    # タイトルは星の夜で、… / タイトルは星の夜。
    re.compile(r"(?:タイトル|題名|表題)\s*(?:は|[:：])\s*([^「」『』、。,，.\n:：]{1,40}?)\s*(?:にして|で|に)?(?=[、。,，\n]|$)"),
    # titled "Starry Night" / with the title "Starry Night" / title: Starry Night
    re.compile(r"\b(?:titled|called|named|with the title|title[d]?\s*[:：])\s*[\"“'‘]([^\"”'’]+)[\"”'’]", re.I),
    re.compile(r"\b(?:titled|with the title|title\s*[:：])\s*([^\s,.\"“]+(?:\s+[^\s,.\"“]+){0,5}?)(?=[,.]|$)", re.I),
)
"""Where a request names the title of what it asks for, by the role the words play (not their place)."""


def _named(text: str) -> re.Match[str] | None:
    for pattern in _NAMED:
        match = pattern.search(text)
        if match and next((g for g in match.groups() if g and g.strip()), None):
            return match
    return None


def named_title(text: str, limit: int = 100) -> str:
    """The title a request gives its thing in so many words, '' when it gives none:
    `今日の日記を「星の夜」というタイトルで文書にまとめて` → 星の夜, `タイトルは星の夜で` → 星の夜,
    `write a poem titled "Night"` → Night."""
    match = _named(text)
    if match is None:
        return ""
    title = next(g for g in match.groups() if g and g.strip()).strip(" 　「」『』\"'")
    return title[:limit]


def without_title(text: str) -> str:
    """The request with the words naming its title taken out (what is left says what to write):
    `今日の日記を「星の夜」というタイトルで文書にまとめて` → 今日の日記を文書にまとめて."""
    match = _named(text)
    if match is None:
        return text
    rest = (text[:match.start()] + text[match.end():]).strip()
    rest = re.sub(r"^[、,，。.\s]+|[、,，\s]+(?=[。！？!?.]?$)", "", rest)
    return re.sub(r"[、,，]{2,}", "、", rest) or text


def request_title(text: str, limit: int = TITLE_LIMIT) -> str:
    """A short title (≤ `limit`) for what `text` asks to be made; '' when it names nothing but a kind of
    thing (`文章を書いて`), so the caller can use a topic it knows instead. A title the request names
    (`「星の夜」というタイトルで`, `タイトルは…`, `titled "…"`) is the title."""
    if named := named_title(text, limit):
        return named
    head, sep, tail = text.partition("：") if "：" in text else text.partition(":")
    if sep and tail.strip() and _HAS_VERB.search(head) and len(head) <= 40:
        payload = _clauses(tail)
        if payload:
            return _fit(_core(payload[0]), "", limit)
    clauses = _clauses(text)
    at = _request_at(clauses)
    if at is None:  # a description (a picture's prompt `海、波と灯台のある夕方の景色`): its first clause is the core
        if not clauses:
            return ""
        at, clauses = 0, [clauses[0] + "を描いて", *clauses[1:]]
    quoted = _QUOTED.search(clauses[at])
    core = quoted.group(1) if quoted else _core(clauses[at])
    quals = [_qualifier(c) for c in clauses[at + 1:] if not _HAS_VERB.search(c) and not _is_parts(c)]
    return _fit(core, "".join(q for q in quals[:1] if q), limit)


def _fit(core: str, qualifier: str, limit: int) -> str:
    core = core.strip(" 　「」『』")
    if core in GENERIC_NOUNS:
        core = ""
    if qualifier and core and len(qualifier) + len(core) <= limit:
        return qualifier + core
    if not core and qualifier:
        return qualifier.rstrip("の")[:limit]
    return core[:limit]


@dataclass(frozen=True)
class RequestParts:
    """The parts and counts a production request names; None / False where it names none."""

    pages: int | None = None
    """How many pages (or scenes, chapters) the text is to have."""
    cover: bool = False
    """A cover picture (表紙) is asked for."""
    illustrations: bool = False
    """Pictures for the pages (挿絵, 各ページに絵) are asked for."""

    @property
    def named(self) -> bool:
        """Whether the request names any part at all (then the plan makes only what it names)."""
        return self.pages is not None or self.cover or self.illustrations


def request_parts(text: str) -> RequestParts:
    """`短い絵本を作って。表紙の絵と3ページの文章` → RequestParts(pages=3, cover=True)."""
    count = _COUNT.search(text)
    pages = min(max(_number(count.group(1)), 1), MAX_PAGES) if count else None
    illustrations = bool(re.search(r"挿絵|さしえ|(各|それぞれの|全部の)(ページ|場面)に(絵|挿絵)|ページごとに絵", text))
    return RequestParts(pages=pages, cover="表紙" in text, illustrations=illustrations)
