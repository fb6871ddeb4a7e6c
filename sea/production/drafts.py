"""Rule-based drafts: what a writer step produces when the model does not follow instructions.

The draft is what the request asks for, built from what the researcher found in the persona's
memory and the city's documents: a report (資料) gets sections with those facts, a story (物語,
絵本) a story in scenes, a list (リスト) a numbered list, anything else (作品) a piece in three
parts. Each is deterministic, so tests and offline users see the same text for the same inputs.
"""

from __future__ import annotations

import re
from typing import Any

from chat.titles import GENERIC_NOUNS
from sea.production.state import ProductionState, TaskStep

OUTLINE_WORDS = ("あらすじ", "構成", "登場人物", "章立て", "目次")
"""A writer step whose title has one of these plans the piece; the others write it."""
STORY_KINDS = ("絵本", "物語")
MAX_FACTS = 8
_SCENE = re.compile(r"^(\d+)\.\s*(.+)$")


def facts(state: ProductionState) -> list[dict[str, Any]]:
    """What the run's research found (memory lines and documents), each once, in the order found."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for _key, artifact in sorted(state.get("artifacts", {}).items()):
        for finding in artifact.get("findings", []):
            text = str(finding.get("text", "")).strip()
            if text and text not in seen:
                seen.add(text)
                out.append(finding)
    return out[:MAX_FACTS]


def scenes(text: str) -> list[tuple[str, str]]:
    """The numbered lines `N. head — rest` of an outline, as (head, rest)."""
    out = []
    for line in text.splitlines():
        match = _SCENE.match(line.strip())
        if match:
            head, _, rest = match.group(2).partition(" — ")
            out.append((head.strip(), rest.strip()))
    return out


def _memory(found: list[dict[str, Any]]) -> list[str]:
    return [f["text"] for f in found if f.get("source") == "memory"]


def _documents(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(name, summary) of the documents found."""
    out = []
    for f in found:
        if str(f.get("source", "")).startswith("item:"):
            name, _, summary = str(f["text"]).partition(": ")
            out.append((name, summary))
    return out


def _report_sections(topic: str, found: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """(title, what it covers, body lines) of each section of a report on `topic`."""
    memory, documents = _memory(found), _documents(found)
    sections = [("はじめに", "何について、何を元にまとめたか",
                 [f"この資料は「{topic}」について、記憶と街の資料から分かったことをまとめたものです"
                  f" (記録 {len(found)} 件)。"])]
    if memory:
        sections.append(("記憶から", f"覚えていること {len(memory)} 件", [f"- {m}" for m in memory]))
    for name, summary in documents[:3]:
        sections.append((f"資料「{name}」から", "街にある文書の要点", [f"- {summary or name}"]))
    if not found:
        sections.append(("分かっていること", "まだ記録がないこと",
                         [f"- 記憶にも街の資料にも「{topic}」の記録はまだありません。"]))
        sections.append(("これから調べること", "次に確かめること",
                         [f"- 「{topic}」を知っている人に聞く。", "- 図書館で関係する資料を探す。"]))
    points = memory[:2] + [s or n for n, s in documents[:1]]
    summary = [f"- {p}" for p in points] or [f"- 「{topic}」についての記録は、まだ集まっていません。"]
    sections.append(("まとめ", "分かったことの要点", summary))
    return sections


def _report(topic: str, found: list[dict[str, Any]], outline: bool) -> list[str]:
    sections = _report_sections(topic, found)
    if outline:
        return [f"{n}. {title} — {covers}" for n, (title, covers, _body) in enumerate(sections, start=1)]
    lines: list[str] = []
    for n, (title, _covers, body) in enumerate(sections, start=1):
        lines += [f"## {n}. {title}", *body, ""]
    return lines


def _sentence(text: str) -> str:
    """The first sentence of a summary (a list entry stays one line)."""
    head, dot, _rest = text.partition("。")
    return head + dot


def _list(topic: str, found: list[dict[str, Any]]) -> list[str]:
    if not found:
        return [f"記憶にも街の資料にも「{topic}」に当てはまるものが見つからなかったので、まだ挙げられません。"]
    entries = [f"{name} — {_sentence(summary)}" if summary else name for name, summary in _documents(found)]
    entries += _memory(found)
    return [f"{n}. {entry}" for n, entry in enumerate(entries, start=1)] + [
        "", f"（{len(entries)} 件。記憶と街の資料から選びました）"]


STORY_NOUNS = ("冒険", "大冒険", "ぼうけん", "旅", "たび", "物語", "お話", "話", "一日", "夢", "秘密", "日々", "約束")
"""Nouns that name what happens, not who: in `猫の冒険` the hero is 猫."""


DEFAULT_HERO = "こぐまのポン"
"""The hero of a story whose request names nobody (`短い絵本を作って`): a made-up character, never
the name of a kind of thing (絵本, 文章)."""
_KIND_WORDS = ("絵本", "物語", "童話", "お話", "おはなし", "小説", "作品", "文章", "本", "話")


def hero_of(topic: str) -> str:
    """Who a story about `topic` follows: `猫の冒険` → 猫, `月のうさぎ` → うさぎ, `星を探す少年` → itself;
    a topic that names only a kind of thing (`短い絵本`, `文章`) gets DEFAULT_HERO."""
    parts = [p for p in topic.split("の") if p]
    hero = topic if len(parts) < 2 else parts[-2] if parts[-1] in STORY_NOUNS else parts[-1]
    if not hero or hero.endswith(_KIND_WORDS) or hero in GENERIC_NOUNS:
        return DEFAULT_HERO
    return hero


_BEATS = [("出会い", "{hero}は旅の仲間と出会い、困りごとを知る。"),
          ("試練", "{hero}と仲間は力を合わせて困難を乗り越える。"),
          ("発見", "{hero}は思いがけないものを見つける。"),
          ("寄り道", "{hero}は回り道をして、知らない景色を見る。"),
          ("手がかり", "{hero}は探しものの手がかりをつかむ。"),
          ("嵐", "{hero}たちは嵐の夜を越える。"),
          ("助け合い", "{hero}は困っている誰かを助ける。"),
          ("ひみつ", "{hero}は仲間のひみつを知る。"),
          ("決心", "{hero}はもう一度歩き出す決心をする。"),
          ("帰り道", "{hero}は帰り道で旅をふりかえる。")]
"""The middle scenes of a story, in order: a story of N scenes takes the first N - 2."""


def story_beats(hero: str, count: int) -> list[tuple[str, str]]:
    """(head, what happens) of each of `count` scenes: a beginning, middle beats, an end."""
    if count <= 1:
        return [("おはなし", f"{hero}は、いつもの場所を出て旅に出て、家に帰ってそのことを思い出す。")]
    middle = [(h, t.format(hero=hero)) for h, t in _BEATS[:max(count - 2, 0)]]
    return [("はじまり", f"{hero}は、いつもの場所を出て旅に出る。"), *middle,
            ("おわり", f"{hero}は家に帰り、旅のことを思い出す。")]


def _story_outline(topic: str, count: int = 4) -> list[str]:
    hero = hero_of(topic)
    return ["登場人物:", f"- {hero}: この物語の主人公。好奇心が強い。", "- 旅の仲間: 道で出会う友だち。", "",
            "あらすじ:", *[f"{n}. {head} — {text}" for n, (head, text) in enumerate(story_beats(hero, count), 1)]]


def _story(kind: str, topic: str, outline_text: str) -> list[str]:
    parts = scenes(outline_text) or [(f"{topic}のお話", "")]
    unit = "ページ" if kind == "絵本" else "第{}章"
    lines: list[str] = []
    for n, (head, rest) in enumerate(parts, start=1):
        label = f"ページ{n}" if unit == "ページ" else unit.format(n)
        lines += [f"{label} {head}".rstrip(), rest or head, ""]
    return lines


def _piece(topic: str, found: list[dict[str, Any]], outline: bool) -> list[str]:
    points = [f["text"] for f in found][:3]
    parts = [("導入", f"「{topic}」とは何かを示す"), ("展開", "具体的な姿や出来事を描く"),
             ("結び", f"「{topic}」から残るものを述べる")]
    if outline:
        return [f"{n}. {title} — {what}" for n, (title, what) in enumerate(parts, start=1)]
    body = {"導入": [f"「{topic}」について書きます。"],
            "展開": [f"- {p}" for p in points] or [f"「{topic}」の姿を、思い浮かぶままに描きます。"],
            "結び": [f"「{topic}」は、これからも心に残るでしょう。"]}
    lines: list[str] = []
    for title, _what in parts:
        lines += [f"## {title}", *body[title], ""]
    return lines


def draft(step: TaskStep, state: ProductionState, sources: list[str], note: str) -> str:
    """The rule-based text of a writer step: on the request's kind and topic, from the research;
    `note` is its closing line, naming the model the run used (`ProductionPorts.draft_note`)."""
    scope = state.get("target_scope", {})
    topic, kind = scope.get("topic", ""), scope.get("kind", "作品")
    title = step.get("title", "")
    outline = any(w in title for w in OUTLINE_WORDS)
    found = facts(state)
    if kind in STORY_KINDS:
        count = int(scope.get("pages") or 4)
        body = _story_outline(topic, count) if outline else _story(kind, topic, "\n".join(sources))
    elif kind == "資料":
        body = _report(topic, found, outline)
    elif kind == "リスト":
        body = _list(topic, found)
    else:
        body = _piece(topic, found, outline)
    named = f"「{topic}」" if topic.endswith(kind) else f"「{topic}」{kind}"  # not 「短い絵本」絵本
    lines = [f"{named} — {title}", "", *body]
    if kind in STORY_KINDS and found:
        lines += ["", "参考にした記録:", *[f"- {f['text']}" for f in found[:3]]]
    lines += ["", f"指示: {step.get('instruction', '')}", note]
    return "\n".join(lines)
