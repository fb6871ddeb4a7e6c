"""The offline model: determinism, voice, schemas, routing, <system> results, images; the registry."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image

from saiverse.llm import (
    OFFLINE_NOTE,
    ChatRequest,
    OfflineModel,
    describe_image,
    resolve_model,
    summarize_text,
    validate,
)
from saiverse.llm.retry import RetryPolicy, parse_retry_after
from saiverse.llm.schema import strict_schema
from saiverse.settings import load_settings
from sea.playbook import builtin_playbooks
from sea.router import prepare_schema

MINA = "あなたはミナです。\n明るい見習い魔法使い。\n一人称: ボク\n語尾: 〜だよ\n"
SEBAS = "あなたはセバスです。\n老練な執事。\n一人称: わたくし\n口調: 丁寧な敬語\n"
model = OfflineModel()


def ask(text: str, system: str | None = MINA, **kw: Any) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], system=system, **kw)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[。！？])", text.replace(OFFLINE_NOTE, "")) if s.strip()]


# -- chat replies ---------------------------------------------------------------------------

def test_same_request_same_answer_and_stream_matches() -> None:
    request = ask("明日の天気はどうかな？")
    first = model.generate(request)
    assert OfflineModel().generate(request).text == first.text
    chunks = list(model.stream(request))
    assert len(chunks) > 3 and "".join(chunks) == first.text
    assert list(model.stream(request)) == chunks
    assert first.usage["input_tokens"] > 0 and first.usage["output_tokens"] > 0
    assert first.model == "offline"


def test_voice_follows_each_persona() -> None:
    mina = model.generate(ask("こんにちは", MINA)).text
    sebas = model.generate(ask("こんにちは", SEBAS)).text
    assert "こんにちは" in mina and "こんにちは" in sebas
    assert re.search(r"(よ|だよ)[。！？]|[？]", mina.replace(OFFLINE_NOTE, ""))  # Mina's casual voice
    assert "です" in sebas or "ます" in sebas  # Sebas stays polite
    for text in (mina, sebas):
        assert text.endswith(OFFLINE_NOTE)


def test_voice_variants_in_persona_prompts() -> None:
    from saiverse.llm import read_voice
    tama = read_voice("あなたは「タマ」です。\n一人称は「吾輩」\n語尾: 「〜にゃ」、〜だにゃ")
    assert (tama.name, tama.first_person, tama.ending) == ("タマ", "吾輩", "にゃ")
    assert read_voice("あなたはケンです。\n口調: 関西弁").ending == "やで"
    assert read_voice("あなたはアイです。\n語尾: です・ます").polite
    assert tama.speak("置きました", "置いた") == "置いたにゃ。"
    assert read_voice("あなたはケンです。\n口調: 関西弁").speak("置きました", "置いた") == "置いたで。"
    assert read_voice("あなたはアイです。").speak("置きました", "置いた") == "置きました。"


PEOPLE = [MINA, SEBAS, "あなたはタマです。\n一人称: 吾輩\n語尾: にゃ", None]
SAID = ["@ミナ 図書館の一番古い本は？", "図書館の本を整理したいんだ", "今日は雨で疲れたよ", "ありがとう、またね",
        "こんばんは、ミナさん", "猫を飼い始めたんだけど、名前をまだ決めていないんだ"]


@pytest.mark.parametrize("said", SAID)
def test_reply_never_repeats_the_user_and_stays_short(said: str) -> None:
    for system in PEOPLE:
        text = model.generate(ask(said, system)).text
        body = text.replace(OFFLINE_NOTE, "")
        assert said.split(" ")[-1] not in body and "「" not in body
        assert 1 <= len(sentences(text)) <= 3 and text.endswith(OFFLINE_NOTE)


def test_wording_varies_by_persona_and_by_what_was_said() -> None:
    replies = {model.generate(ask(said, system)).text for said in SAID for system in PEOPLE}
    assert len(replies) >= len(SAID) * 2  # not one template
    assert len({model.generate(ask(said, MINA)).text for said in SAID}) == len(SAID)


def test_default_voice_is_polite_and_persona_name_wins() -> None:
    text = model.generate(ask("こんばんは", system=None, persona_name="ルナ")).text
    assert "こんばんは" in text and ("です" in text or "ます" in text)
    intros = [model.generate(ask(g, system=None, persona_name="ルナ")).text for g in ("こんにちは", "おはよう", "はじめまして")]
    assert any("私はルナです。" in t for t in intros)


def block(playbook: str, body: str) -> dict[str, str]:
    text = f"<system>\nサブプレイブック実行結果 ({playbook})\n{body}\n\n※この結果はユーザーには見えていません。\n</system>"
    return {"role": "user", "content": text}


UUID = "d48619fd-e362-4c4e-99dc-b99f96eada3f"
SYSTEM_HERE = MINA + "\n現在地: 図書館。静かな図書館。"


@pytest.mark.parametrize(("playbook", "body", "told"), [
    ("document_create_playbook", f"文書「日記」を作成しました (item_id: {UUID})。要約: 今日は晴れ", "日記を書いて図書館に置いた"),
    ("image_generate_playbook", f"絵「海」を描いて飾りました (item_id: {UUID})。512×512ピクセル", "海の絵を描いて、図書館に飾った"),
    ("building_move", "エントランスから図書館に移動しました。", "図書館に着いた"),
    ("memory_recall", "「猫」に関する記憶は見つかりませんでした。", "思い出そうとしたけど"),
    ("item_edit_playbook", "編集結果: 文書「案内」に追記しました。新しい要約: …", "「案内」を書き直しておいた"),
    ("image_generate_playbook", "絵を描けませんでした: model_timeout", "絵を描くことができなかった"),
    ("memory_research", "去年の夏、海で花火を見た記録があります。\n二件目の記録", "去年の夏、海で花火を見た記録があります"),
])
def test_tells_what_happened_in_words(playbook: str, body: str, told: str) -> None:
    request = ChatRequest(messages=[{"role": "user", "content": "お願い"}, block(playbook, body)],
                          system=SYSTEM_HERE)
    text = model.generate(request).text
    assert told in text
    for leak in (UUID, "item_id", "サブプレイブック", "※", "<system>", "要約:", "model_timeout", "512×512"):
        assert leak not in text


def test_autonomous_turn_never_echoes_the_prompt_heading() -> None:
    scene = ("いまの様子:\n建物: 図書館 — 静かな図書館\nここにいるペルソナ: ソラ\nユーザーがここにいます。\n"
             "アイテム: 案内(document)\n\nその場にいる相手に、自然にひとこと話しかけてください。")
    for system in PEOPLE:
        text = model.generate(ask(scene, system)).text
        for leak in ("いまの様子", "建物:", "ここにいるペルソナ", "話しかけてください", "(document)"):
            assert leak not in text
        assert len(sentences(text)) == 1


def test_describes_attached_image(tmp_path: Path) -> None:
    path = tmp_path / "red.png"
    Image.new("RGB", (320, 200), (220, 30, 40)).save(path)
    text = model.generate(ChatRequest(messages=[{"role": "user", "content": "見て", "images": [str(path)]}],
                                      system=MINA)).text
    assert "320×200" in text and "赤" in text


# -- structured output ------------------------------------------------------------------------

DIARY = "旅行の日記を書いてください。京都で抹茶を飲みました。"
SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"name": {"type": "string"}, "description": {"type": "string"},
                                      "content": {"type": "string"}},
     "required": ["name", "description", "content"]},
    {"type": "object", "properties": {
        "count": {"type": "integer", "minimum": 3, "maximum": 9},
        "score": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "done": {"type": "boolean"}, "flag": {"type": "boolean", "default": True},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
        "level": {"type": "string", "enum": ["low", "mid", "high"], "default": "mid"},
        "short": {"type": "string", "maxLength": 5}, "long": {"type": "string", "minLength": 30},
    }, "required": ["count", "score", "done", "tags", "level", "short", "long"],
     "additionalProperties": False},
    {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
     "minItems": 3},
    {"type": "object", "properties": {"plan": {"type": "object", "properties": {
        "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}, "minItems": 1}},
        "required": ["steps"]}},
     "required": ["plan"], "$defs": {"step": {"type": "object", "properties": {
         "title": {"type": "string"}, "priority": {"type": "integer", "enum": [1, 2, 3]},
         "owner": {"type": ["string", "null"]}}, "required": ["title", "priority"]}}},
    {"type": "string", "enum": ["yes", "no"]},
    {"type": "object", "properties": {"choice": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
                                      "fixed": {"const": "v1"}}, "required": ["choice", "fixed"]},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_schema_output_is_valid_json_for_the_schema(schema: dict[str, Any]) -> None:
    result = model.generate(ask(DIARY, response_schema=schema))
    assert json.loads(result.text) == result.data
    jsonschema.validate(result.data, schema)  # an independent validator agrees
    assert validate(result.data, schema) == []
    again = model.generate(ask(DIARY, response_schema=schema))
    assert again.text == result.text


def test_strings_are_derived_from_the_request() -> None:
    data = model.generate(ask("旅行の日記を書いてください。京都で抹茶を飲みました。",
                              response_schema=SCHEMAS[0])).data
    assert data["name"] == "旅行の日記"
    assert "京都で抹茶を飲みました。" in data["content"]
    assert data["description"]


ROUTED = ["basic_chat", "item_view_playbook", "item_edit_playbook", "document_create_playbook"]
# The router's schema as the runtime prepares it: options and keywords come from the playbooks' JSON.
ROUTER = prepare_schema({"type": "object", "properties": {
    "selected_playbook": {"type": "string", "x-enum-source": "router_playbooks"},
    "reason": {"type": "string"}}, "required": ["selected_playbook", "reason"]},
    [builtin_playbooks()[name] for name in ROUTED])


@pytest.mark.parametrize(("text", "expected"), [
    ("机の上のメモを読んでくれる？", "item_view_playbook"),
    ("あの絵を確認して", "item_view_playbook"),
    ("買い物メモを編集して", "item_edit_playbook"),
    ("レシピにパッチを当てて", "item_edit_playbook"),
    ("今日の日記を書いて", "document_create_playbook"),
    ("ねえ、今日はいい天気だね", "basic_chat"),
])
def test_router_enum_follows_playbook_keywords(text: str, expected: str) -> None:
    assert model.generate(ask(text, response_schema=ROUTER)).data["selected_playbook"] == expected


def test_enum_routing_uses_x_keywords_descriptions_and_default() -> None:
    schema = {"type": "object", "properties": {"mode": {
        "type": "string", "enum": ["chat", "weather", "music"], "default": "chat",
        "description": "weather: 天気予報を調べる; music: 音楽を再生する",
        "x-keywords": {"music": ["歌", "曲"]}}}, "required": ["mode"]}
    assert model.generate(ask("好きな曲をかけて", response_schema=schema)).data["mode"] == "music"
    assert model.generate(ask("明日の天気予報は？", response_schema=schema)).data["mode"] == "weather"
    assert model.generate(ask("好きな曲は何？", response_schema=schema)).data["mode"] == "music"
    assert model.generate(ask("おはよう", response_schema=schema)).data["mode"] == "chat"


def test_without_keywords_nothing_is_routed_by_a_hidden_list() -> None:
    # Keywords live only in playbook JSON: a bare enum routes by option names and descriptions alone.
    bare = {"type": "object", "properties": {"selected_playbook": {"type": "string", "enum": ROUTED}},
            "required": ["selected_playbook"]}
    assert model.generate(ask("買い物メモを編集して", response_schema=bare)).data["selected_playbook"] == "basic_chat"
    assert model.generate(ask("item edit をして", response_schema=bare)).data["selected_playbook"] == \
        "item_edit_playbook"


def test_router_reads_keywords_from_a_playbook_list_in_the_prompt() -> None:
    # Upstream's router prompt carries the list_available_playbooks JSON; its schema has no enum.
    listing = [{"name": "basic_chat", "display_name": "通常の会話", "description": "No-op", "keywords": []},
               {"name": "garden_log", "display_name": "庭日誌", "description": "Keep a garden diary",
                "keywords": ["水やり", "花壇"]}]
    prompt = f"You are the SEA router.\n## Available Playbooks\n{json.dumps(listing, ensure_ascii=False)}\n" \
             "Respond ONLY with JSON per the schema."
    schema = {"type": "object", "properties": {"reason": {"type": "string"}, "playbook": {"type": "string"}},
              "required": ["reason", "playbook"]}
    request = ChatRequest(messages=[{"role": "user", "content": "今朝は花壇に水やりをしたよ"},
                                    {"role": "user", "content": prompt}], system=MINA, response_schema=schema)
    assert model.generate(request).data["playbook"] == "garden_log"
    request.messages[0]["content"] = "こんにちは"
    assert model.generate(request).data["playbook"] == "basic_chat"


def test_catalogue_in_the_prompt_does_not_match_every_option() -> None:
    prompt = ("ユーザーの発言: 昨日のメモを編集したい\n\n使えるプレイブック:\n"
              "- basic_chat: 雑談\n- item_view_playbook: アイテムを見る\n"
              "- item_edit_playbook: アイテムを編集する\n- document_create_playbook: 文書を作る")
    data = model.generate(ask(prompt, response_schema=ROUTER)).data
    assert data["selected_playbook"] == "item_edit_playbook"


def test_tool_named_by_the_user_is_called() -> None:
    tools = [{"name": "memory_recall", "description": "記憶を検索する", "parameters": {
        "type": "object", "properties": {"query": {"type": "string"},
                                         "limit": {"type": "integer", "minimum": 1, "maximum": 20}},
        "required": ["query"]}}]
    result = model.generate(ask("memory_recall で 猫の名前 を探して", tools=tools))
    [call] = result.tool_calls
    assert call["name"] == "memory_recall"
    assert "猫の名前" in call["arguments"]["query"] and call["arguments"]["limit"] == 1
    jsonschema.validate(call["arguments"], tools[0]["parameters"])
    plain = model.generate(ask("猫の名前を教えて", tools=tools))
    assert plain.tool_calls == [] and "オフライン" in plain.text


# -- pictures and summaries -------------------------------------------------------------------

def test_describe_image_from_pixels() -> None:
    img = Image.new("RGB", (400, 200), (20, 60, 200))
    img.paste((250, 250, 250), (0, 0, 120, 200))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    text = describe_image(buf.getvalue())
    assert "400×200" in text and "横長" in text and "青" in text and "白" in text
    assert len(text) <= 300
    with pytest.raises(ValueError):
        describe_image(b"not an image")


def test_generated_image_is_a_deterministic_png() -> None:
    data, mime = model.generate_image("青い夜空に星")
    assert mime == "image/png" and data.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(data))
    img.verify()
    assert Image.open(io.BytesIO(data)).size == (512, 512)
    assert model.generate_image("青い夜空に星")[0] == data
    assert model.generate_image("赤い花")[0] != data
    assert "紺" in describe_image(data) or "青" in describe_image(data)
    assert "赤" in describe_image(model.generate_image("赤い花")[0])


def test_summarize_text_is_extractive_and_bounded() -> None:
    text = "今日は図書館に行った。新しい本を三冊借りた！\n帰りに雨が降ってきた。" * 20
    summary = summarize_text(text, limit=50)
    assert summary.startswith("今日は図書館に行った。新しい本を三冊借りた！")
    assert len(summary) <= 50
    assert len(summarize_text("あ" * 500)) <= 300
    assert summarize_text("") == ""


# -- helpers and registry ---------------------------------------------------------------------

def test_validate_and_strict_schema() -> None:
    schema = SCHEMAS[1]
    assert validate({"count": 1}, schema)
    strict = strict_schema({"type": "object", "properties": {"a": {"type": "string"}}})
    assert strict["required"] == ["a"] and strict["additionalProperties"] is False
    assert strict["properties"]["a"]["type"] == ["string", "null"]


def test_retry_after_parsing_and_backoff() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a past date: no wait
    assert parse_retry_after("soon") is None
    policy = RetryPolicy(base_delay=0.5, max_delay=3)
    assert [policy.delay(n, None) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3]
    assert policy.delay(1, 60) == 3  # a long Retry-After is capped


def test_registry_offline_names_and_unknown_models() -> None:
    settings = load_settings()
    for name in (None, "", "offline", " Offline "):
        found, notice = resolve_model(name, settings)
        assert found.provider == "offline" and notice is None
    found, notice = resolve_model("claude-3", settings)
    assert found.provider == "offline" and notice and "claude-3" in notice
