"""What the offline model says in English (SAIVERSE_LANG=en): the same rules as `_speech`, in other words.

The analysis is `_speech`'s (what kind of thing was said, what a sub-playbook did, who is here): a
system prompt, a persona's profile and a tool's result stay Japanese in an English city, so only the
sentences change. English has no polite and plain forms and no 語尾, so each sentence is one text; the
tables hold pairs (the text twice) so `_speech.choose` and `choose_pair` pick from them as from the
Japanese ones. Nothing Japanese is said of its own accord: only names (the persona's, the building's,
an item's) and the user's own words may carry it.
"""

from __future__ import annotations

import re

from saiverse.llm.offline._speech import Pair, _pick, _quoted, clean

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def _pairs(table: dict[str, list[str]]) -> dict[str, list[Pair]]:
    return {kind: [(text, text) for text in texts] for kind, texts in table.items()}


OPENERS = _pairs({
    "greeting": ["{hello}! I'm {name}", "{hello}. I'm glad you came", "{hello}. It's good to see you"],
    "thanks": ["You're welcome. I'm glad I could help", "Thank you, too!"],
    "bye": ["Sure, let's talk again", "Take care. Come back any time"],
    "question": ["Good question. I don't know for sure myself", "Hmm, no answer comes to me right away",
                 "I've been wondering about that too"],
    "feeling": ["I see. Thank you for telling me", "I think I know that feeling", "So that's how you felt"],
    "statement": ["I see, so that's how it is", "Oh, that's interesting", "Mm-hm, I'm listening"],
    "done": ["There, it's done", "Sorry to keep you waiting"],
})
FOLLOWS = _pairs({
    "question": ["Shall we look into it together?", "Tell me more and we can think it over"],
    "statement": ["Tell me a little more, if you like", "Make yourself at home in {place}"],
    "feeling": ["I'm always here to listen", "Tell me a little more, if you like"],
    "greeting": ["What brings you here today?", "Welcome to {place}!"],
    "done": ["Just tell me if there's anything else"],
    "thanks": ["Call me if there's anything else", "Take it easy in {place}"],
    "bye": ["It was nice talking today", "See you again in {place}"],
})

_FAILED = {"image_generate_playbook": "draw the picture", "document_create_playbook": "write the document",
           "building_move": "move", "item_edit_playbook": "rewrite it", "item_view_playbook": "look at it",
           "production_playbook": "make it"}


def _named(name: str, fallback: str) -> str:
    return f"\u201c{name}\u201d" if name else fallback


def happened(playbook: str, body: str, place: str) -> Pair | None:
    """(text, text) telling what a sub-playbook did, read from its result as `_speech.happened` reads it."""
    first = clean(body.splitlines()[0]) if body else ""
    here = f"here in {place}" if place else "here"
    if re.search(r"ませんでした[:：]|できませんでした|失敗|could not|couldn't|failed", first, re.I):
        return _same(f"Sorry, I couldn't {_FAILED.get(playbook, 'do what you asked')}")
    if "記憶は見つかりませんでした" in first:
        return _same("I tried to remember, but I can't recall it clearly")
    if "に関する記憶" in first:
        hits = [ln for ln in body.splitlines()[1:] if ln.startswith("- ")]
        if not hits:
            return _same("I remembered a little")
        gist = clean(re.sub(r"^- \[[^\]]*\]\s*\([^)]*\)\s*", "", hits[0]))
        gist = gist[:40] + ("…" if len(gist) > 40 else "")
        who = re.match(r"^- \[[^\]]*\]\s*\(([^)]*)\)", hits[0])
        if who and who.group(1) == "相手":  # the user said it
            return _same(f"Now I remember. You said \u201c{gist}\u201d")
        if who and who.group(1) == "自分":
            return _same(f"Now I remember. I told you \u201c{gist}\u201d")
        return _same(f"Now I remember. There was \u201c{gist}\u201d")
    title = _quoted(first)
    if first.startswith("文書「") and "作成しました" in first:
        return _same(f"I wrote {_named(title, 'the document')} and put it {here}")
    if first.startswith("絵「"):
        return _same(f"I drew {_named(title, 'a picture')} and hung it {here}")
    if "に移動しました" in first:
        target = re.sub(r"^.*?から", "", first).replace("に移動しました。", "").replace("に移動しました", "")
        return _same(f"I've arrived at {target}")
    if "閲覧したもの" in first or playbook == "item_view_playbook":
        return _same(f"I read {_named(_quoted(body), 'it')}")
    if "編集はせず" in first:
        return _same(f"I checked {_named(_quoted(body), 'it')}, but didn't change anything")
    if "追記しました" in first or "差分を適用しました" in first or "説明を更新しました" in first:
        return _same(f"I rewrote {_named(title, 'the document')}")
    if first.startswith("制作"):
        made = first.split("できたもの:", 1)[1].strip() if "できたもの:" in first else ""
        made = "" if made in ("", "なし") else made
        if "完了" in first:
            return _same(f"I made what you asked for: {made} is ready" if made else "I made what you asked for")
        return _same("I've started making it. I'll carry on later")
    if first and len(first) <= 60 and not _JAPANESE.search(first) and not re.search(r"[{}\[\]<>=]|https?://", first):
        return _same(first.rstrip("."))  # an English line some other playbook (or an MCP tool) wrote
    return _same("I've done what you asked")


def _same(text: str) -> Pair:
    return (text, text)


def scene_line(scene: str, key: str) -> Pair:
    """What a persona says on its own turn, from the building's scene (`tools/defs/building_look.py`)."""
    others = re.search(r"ここにいるペルソナ[:：]\s*(.+)", scene)
    names = [n for n in re.split(r"[、,]", others.group(1)) if n and "自分だけ" not in n] if others else []
    items = re.search(r"アイテム[:：]\s*(.+)", scene)
    item = re.sub(r"\([^)]*\)$", "", re.split(r"[、,]", items.group(1))[0]).strip() if items else ""
    options: list[str] = []
    if names:
        who = names[_pick(key, len(names))].strip()
        options += [f"{who}, how are you doing?", f"{who}, shall we talk a little?"]
    if "ユーザーがここにいます" in scene:
        options += ["Is there anything I can help with?", "Take it easy today"]
    if item:
        options.append(f"By the way, have you seen \u201c{item}\u201d yet?")
    options = options or ["It's a nice, quiet time", "Now, what shall I do"]
    return _same(options[_pick(key, len(options))])


def sentence(text: str) -> str:
    """`text` ended as a sentence: a full stop unless it ends in one already."""
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."
