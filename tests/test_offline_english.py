"""The offline model in an English city (SAIVERSE_LANG=en): whole pulses whose replies are English.

A persona's profile, the buildings and the tools' results stay Japanese in an English city; the
persona's words do not. What a reply may still carry in Japanese is a name (the persona's, a
building's, an item's the user named) or the user's own words; everything else is English. The same
pulses with the default language answer in Japanese, as the rest of the suite holds them to.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from chat import ChatRequest, Message
from saiverse.llm.offline import OfflineModel, describe_image
from saiverse.manager import SAIVerseManager

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
TURNS = [("library", "hello"), ("library", "Thank you!"), ("library", "What is the oldest book here?"),
         ("library", "I love watching the stars"), ("library", "bye"), ("library", "こんにちは"),
         ("atelier", "ソラ、海の絵を描いて"), ("library", "日記を書いて: 今日は図書館で猫と遊んだ"),
         ("library", "アトリエに移動して")]


def _own_words(manager: SAIVerseManager, text: str, said: str) -> str:
    """`text` without the names of the world and what the user said (word by word, `、` and `「」` apart), and
    without a quoted name taken from it (`ソラ、海の絵を描いて` → the picture “海”)."""
    text = re.sub("\u201c([^\u201d]*)\u201d", lambda m: " " if m.group(1) in said else m.group(0), text)
    names = [p.name for p in manager.personas()] + [b.name for b in manager.buildings()]
    names += [i.name for b in manager.buildings() for i in manager.items.list_owned("building", b.building_id)]
    names += [w for w in re.split(r"[、。「」:：\s]+", said) if w]
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def _speaks(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "speak"]


def test_every_reply_of_an_english_city_is_english(monkeypatch: pytest.MonkeyPatch,
                                                   make_manager: Callable[..., SAIVerseManager]) -> None:
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    manager = make_manager()
    replies = []
    for building, text in TURNS:
        events = list(manager.handle_user_input(building, text))
        spoken = _speaks(events)
        assert spoken, (text, events)
        for reply in spoken:
            assert reply.endswith(" (the offline model answers)"), reply
            assert not JAPANESE.search(_own_words(manager, reply, text)), (text, reply)
            assert re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", reply), reply
        replies += spoken
    joined = "\n".join(replies)
    assert "I drew \u201c海\u201d and hung it here in アトリエ." in joined  # what happened, told in English
    assert "I wrote \u201c日記\u201d and put it here in 図書館." in joined
    assert "I've arrived at アトリエ." in joined
    assert "Hello" in replies[0] and "hello" not in replies[0]  # the user's word answered, not echoed


def test_the_same_turns_in_the_default_language_stay_japanese(make_manager: Callable[..., SAIVerseManager]) -> None:
    manager = make_manager()
    events = list(manager.handle_user_input("atelier", "ソラ、海の絵を描いて"))
    assert "海の絵を描いて、アトリエに飾った" in _speaks(events)[0]
    (reply,) = _speaks(list(manager.handle_user_input("library", "hello")))
    assert JAPANESE.search(_own_words(manager, reply, "hello")) and reply.endswith("（オフラインモデルで応答しています）")


def test_personas_of_one_building_answer_in_english_and_differently(
        monkeypatch: pytest.MonkeyPatch, make_manager: Callable[..., SAIVerseManager]) -> None:
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    manager = make_manager()
    manager.world.move_persona("sora", "library")
    for name in ("Haru", "Yuki"):
        manager.admin.create_persona({"name": name, "building_id": "library"})
    for text in ("hello", "It is raining today", "Do you have a favourite book?", "thanks"):
        said = {e["persona_name"]: e["text"] for e in manager.handle_user_input("library", text)
                if e["type"] == "speak"}
        assert len(said) == 4 and len(set(said.values())) == 4, said
        for reply in said.values():
            assert not JAPANESE.search(_own_words(manager, reply, text)), reply


def test_an_attached_picture_and_an_own_turn_are_told_in_english(
        monkeypatch: pytest.MonkeyPatch, make_manager: Callable[..., SAIVerseManager], tmp_path: Path) -> None:
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    manager = make_manager()
    buf = io.BytesIO()
    Image.new("RGB", (64, 32), (200, 40, 50)).save(buf, format="PNG")
    events = list(manager.handle_user_input("library", "look at this", [("red.png", buf.getvalue())]))
    (line,) = [e["text"] for e in events if e["type"] == "user_message"]
    assert line == "look at this\n[uploaded the picture \u201cred\u201d]"
    (reply,) = _speaks(events)
    assert not JAPANESE.search(_own_words(manager, reply, "look at this")), reply
    mina = manager.world.persona("mina")
    handle = manager.pulses.submit_auto(mina, "library", manager.meta_playbook("meta_auto"))
    spoken = _speaks(list(handle.events()))
    for reply in spoken:
        assert not JAPANESE.search(_own_words(manager, reply, "")), reply
    # A picture a tool shows the persona (sea/nodes.py puts it in the prompt) is told from its pixels.
    picture = tmp_path / "red.png"
    picture.write_bytes(buf.getvalue())
    seen = OfflineModel().generate(ChatRequest(messages=[Message(role="user", content="look", images=[str(picture)])]))
    assert "The picture is 64\u00d732, medium-bright, mostly red." in seen.text, seen.text
    assert describe_image(picture) == ("A landscape image of 64\u00d732 pixels. Its main colours are red (about 100%). "
                                       "It is medium-bright overall.")
