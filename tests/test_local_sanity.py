"""The packaged small model stays sane: no one else's name taken as its own, no bare 「あります。」,
recalled lines labelled with who said them, honest words and one `model_suggest_pull` notice when its
line is unusable. The checks run without the model; the `local_model` tests replay the issue's chat
on the real Gemma 3 270M."""

from __future__ import annotations

import re

import pytest

from chat import ChatRequest
from saiverse.llm.local._prompt import transcript_lines, usable_line
from saiverse.llm.local._sanity import HONEST, SUGGEST_PULL, claims_other_name, honest_line, is_bare, recalled
from saiverse.llm.offline import read_voice
from tests.support.local_line import local_saying

MINA = ("あなたはミナです。\nあなたは図書館の司書ミナです。本と物語を愛し、落ち着いた丁寧な口調で話します。\n"
        "一人称: わたし\n語尾: 〜ですね\n\n現在地: 図書館。静かな図書館。")
RECALL = ("<system>\nサブプレイブック実行結果 (memory_recall_playbook)\n「名前」に関する記憶 (2件):\n"
          "- [2026-11-25 09:00] (相手) 私の名前はタロウです。覚えておいてね。\n"
          "- [2026-11-25 09:01] (自分) はい、タロウさん。覚えておきますね。\n\n※この結果はユーザーには見えていません。\n</system>")


def request(*said: str, extra: list[dict[str, str]] | None = None) -> ChatRequest:
    messages = [{"role": "user", "content": s} for s in said]
    return ChatRequest(messages=[*messages, *(extra or [])], system=MINA, persona_name="ミナ")  # type: ignore[list-item]


def test_no_name_but_its_own() -> None:
    for line in ("私の名前はタロウです。", "わたしはタロウです。よろしくね", "僕はケンといいます", "わたしの名前は「ハナ」です"):
        assert claims_other_name(line, "ミナ"), line
    for line in ("わたしはミナです。", "私の名前はミナです", "私はここの司書です。", "タロウさん、覚えていますよ。",
                 "この本の名前は「星の王子さま」です。", "わたしは元気です"):
        assert not claims_other_name(line, "ミナ"), line
    voice = read_voice(MINA, "ミナ")
    said = request("私の名前を覚えていますか？")
    assert usable_line("私の名前はタロウです。", said, voice) == ""
    assert usable_line("はい、タロウさんですね。ちゃんと覚えていますよ。", said, voice)


def test_no_bare_answers() -> None:
    asked = "ありがとう。この図書館には他にどんな部屋がありますか？"
    for line in ("あります。", "はい、あります", "です。", "そうですね。", "はじめまして。"):
        assert is_bare(line, asked), line
    assert not is_bare("奥に絵本の部屋と、静かな閲覧室がありますよ。", asked)
    assert not is_bare("こんにちは。", "こんにちは、ミナさん。")  # a greeting to a greeting is fine
    assert usable_line("あります。", request(asked), read_voice(MINA, "ミナ")) == ""


def test_recalled_lines_reach_it_labelled_with_who_said_them() -> None:
    lines = transcript_lines(request("私の名前を覚えていますか？", extra=[{"role": "user", "content": RECALL}]),
                             read_voice(MINA, "ミナ"))
    told = [ln for ln in lines if ln.startswith("（")]
    assert told == ["（ミナは思い出した。以前、訪ねてきた人（あなた）が「私の名前はタロウです。覚えておいてね。」と言っていた。）",
                    "（ミナは思い出した。以前、ミナ自身が「はい、タロウさん。覚えておきますね。」と話していた。）"]
    assert not any(ln.startswith("ミナ: 私の名前は") for ln in lines)
    assert recalled("「猫」に関する記憶は見つかりませんでした。", "ミナ") == []


def test_the_offline_telling_of_a_recall_says_who_said_it() -> None:
    from saiverse.llm.offline import happened, result_blocks

    (playbook, body), = result_blocks([{"role": "user", "content": RECALL}])  # type: ignore[list-item]
    polite, _plain = happened(playbook, body, "図書館") or ("", "")
    assert polite.startswith("思い出しました。あなたが「私の名前はタロウです。") and "おっしゃっていました" in polite


def test_an_unusable_line_is_said_honestly_with_one_notice() -> None:
    model = local_saying("私の名前はタロウです。")
    text = "".join(model.stream(request("私の名前を覚えていますか？")))  # type: ignore[attr-defined]
    assert text == honest_line(read_voice(MINA, "ミナ")) and text.startswith(HONEST[0][:12])  # polite ミナ's own words
    notes = model.take_notices()  # type: ignore[attr-defined]
    assert [n["kind"] for n in notes] == [SUGGEST_PULL] and "モデルを入手" in notes[0]["text"]
    assert model.take_notices() == []  # type: ignore[attr-defined]
    good = local_saying("奥に絵本の部屋がありますよ。")
    assert "".join(good.stream(request("他にどんな部屋がありますか？"))) == "奥に絵本の部屋がありますよ。"  # type: ignore[attr-defined]
    assert good.take_notices() == []  # type: ignore[attr-defined]


def test_the_pulse_carries_the_notice(make_manager: object) -> None:
    manager = make_manager(local_saying("あります。"))  # type: ignore[operator]
    events = list(manager.handle_user_input("library", "ほかに部屋はありますか？", persona_id="mina"))
    speak = next(e for e in events if e["type"] == "speak")
    notes = [e for e in events if e["type"] == "notice" and e.get("kind") == SUGGEST_PULL]
    assert speak["text"] == honest_line(read_voice(MINA, "ミナ")) and len(notes) == 1


ISSUE_CHAT = ["こんにちは、ミナさん。今日はどんな本がおすすめですか？", "星や宇宙について子どもでも読める本を探しています。",
              "ありがとう。この図書館には他にどんな部屋がありますか？", "私の名前はタロウです。覚えておいてね。",
              "私の名前を覚えていますか？"]


@pytest.mark.local_model
def test_the_issue_chat_on_the_packaged_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.llm.registry import clear_model_cache
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "local")
    clear_model_cache()
    manager = SAIVerseManager(load_settings())
    try:
        for text in ISSUE_CHAT:
            events = list(manager.handle_user_input("library", text, persona_id="mina"))
            said = " ".join(e["text"] for e in events if e["type"] == "speak")
            assert said.strip() and "。".join(s for s in said.split("。") if s) != "あります"
            assert not claims_other_name(re.sub(r"「[^」]*」", "", said), "ミナ"), said  # quoted: what others said
            assert events[-1]["status"] == "ok"
    finally:
        manager.close()
        clear_model_cache()
