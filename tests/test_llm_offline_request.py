"""What the offline model takes as the user's request in a prompt (`request_message`) and the
sub-playbook results it reads (`result_blocks`): the rules, on prompts of a few hundred lines as a
pulse sends them (saiverse/llm/offline/_model.py walks them from the newest message)."""

from __future__ import annotations

from typing import Any

from saiverse.llm.offline import request_message, result_blocks

HISTORY: list[dict[str, Any]] = [
    {"role": "user" if i % 2 == 0 else "assistant", "content": f"会話{i}"} for i in range(300)]
RESULT = "<system>\nサブプレイブック実行結果 (memory_recall)\n猫の名前はタマ\n※ 参考\n</system>"


def test_the_last_genuine_user_message_is_the_request() -> None:
    said = {"role": "user", "content": "猫の話をしよう"}
    assert request_message([*HISTORY, said, {"role": "user", "content": RESULT}]) is said
    assert request_message([{"role": "assistant", "content": "やあ"}]) is None
    assert request_message([{"role": "user", "content": RESULT}]) is None


def test_an_instruction_to_the_model_gives_way_to_the_request_before_it() -> None:
    said = {"role": "user", "content": "日記を書いて"}
    prompt = {"role": "user", "content": "document_createツールの引数を決定します。JSONで答えて"}
    assert request_message([*HISTORY, said, {"role": "assistant", "content": "はい"}, prompt]) is said


def test_an_instruction_that_names_the_request_or_repeats_it_stays() -> None:
    named = {"role": "user", "content": "依頼: 詩を書いて\nJSON で答えて"}
    assert request_message([*HISTORY, {"role": "user", "content": "やあ"}, named]) is named
    # The user's own words repeated as the prompt (a `{input}` action): the last one is kept.
    typed = {"role": "user", "content": "tool_name を使って"}
    repeated = {"role": "user", "content": "tool_name を使って"}
    assert request_message([*HISTORY, typed, {"role": "assistant", "content": "…"}, repeated]) is repeated
    # The same words only inside a `<system>` block do not count as said before.
    only_block = {"role": "user", "content": "schema_field を埋めて"}
    assert request_message([{"role": "user", "content": "やあ"}, {"role": "user", "content": RESULT},
                            only_block]) is not only_block


def test_result_blocks_are_read_from_system_messages_only() -> None:
    blocks = result_blocks([*HISTORY, {"role": "user", "content": RESULT},  # type: ignore[list-item]
                            {"role": "assistant", "content": RESULT}, {"role": "user", "content": "<system>"}])
    assert blocks == [("memory_recall", "猫の名前はタマ")]


def test_names_are_found_where_the_regex_alternation_finds_them() -> None:
    import re

    from saiverse.llm.schema import _name_starts, catalogue

    cases = [
        (["memory_recall", "memory_research", "basic_chat"], "x memory_research; basic_chat\nmemory_recall"),
        (["ab", "abc", "b"], "abcabc ab bab abab"),  # a name inside another, overlaps, neighbours
        (["aa"], "aaaaa\naaa"),
        (["猫"], "猫猫 の 猫"),
        (["zz"], "none here"),
    ]
    for names, text in cases:
        expected = [m.start() for m in re.compile("|".join(map(re.escape, names))).finditer(text)]
        assert _name_starts(names, text) == expected, (names, text)
    prompt = "\n".join([*(f"会話{i}" for i in range(300)), "- basic_chat: 雑談する", "- memory_recall: 思い出す",
                        "basic_chat と memory_recall のどちらか"])
    assert catalogue(["basic_chat", "memory_recall", "image_generate"], prompt) == {
        "basic_chat": "-  : 雑談する", "memory_recall": "-  : 思い出す"}  # the line, the name cut out


def test_a_catalogue_of_parts_is_the_catalogue_of_their_joined_text() -> None:
    from saiverse.llm.catalogue import catalogue, catalogue_of_parts

    options = ["basic_chat", "memory_recall", "image_generate", "ΣΟΦΙΑ"]
    parts = [
        "実行するプレイブック\n- basic_chat: 雑談\n- memory_recall: 思い出す",
        "あなたはミナです。",
        *(f"会話{i}" for i in range(50)),
        "basic_chat; memory_recall；image_generate: 三つ",  # separators inside a part
        "- image_generate: 絵を描く — 画像を作る",
        "ΟΔΟΣ ΣΟΦΙΑΣ: final sigma lowers by its neighbours",  # lowering depends on context
        "İstanbul basic_chat: the dotted I lowers to two characters",  # lowering changes the length
        "",
        "- basic_chat: もう一度",
    ]
    expected = catalogue(options, "\n".join(parts))
    assert expected["basic_chat"] and expected["image_generate"]
    assert catalogue_of_parts(options, parts) == expected
    assert catalogue_of_parts(options, parts) == expected  # the parts seen before, from the memo
    assert catalogue_of_parts(options, [*parts, "- memory_recall: 増えた行"]) == \
        catalogue(options, "\n".join([*parts, "- memory_recall: 増えた行"]))
    assert catalogue_of_parts(["", "basic_chat"], parts) == catalogue(["", "basic_chat"], "\n".join(parts))
    assert catalogue_of_parts(["zz"], parts) == {} == catalogue(["zz"], "\n".join(parts))


def test_the_catalogue_memo_stays_bounded_and_right_past_its_bounds() -> None:
    from saiverse.llm import catalogue as memo

    parts = [f"- opt{i % 7}: 行{i}" for i in range(memo.PARTS_MEMO_SIZE + 50)]
    for n in range(memo.OPTION_LISTS_KEPT + 3):  # more option lists than are kept
        options = [f"opt{k}" for k in range(n % 7 + 1)]
        assert memo.catalogue_of_parts(options, parts) == memo.catalogue(options, "\n".join(parts))
        assert len(memo._PARTS_MEMO) <= memo.OPTION_LISTS_KEPT
        assert all(len(kept) <= memo.PARTS_MEMO_SIZE + len(parts) for kept in memo._PARTS_MEMO.values())
    options = ["opt0", "opt1"]
    memo.catalogue_of_parts(options, parts)
    assert memo.catalogue_of_parts(options, parts[:10]) == memo.catalogue(options, "\n".join(parts[:10]))
    assert len(memo._PARTS_MEMO[tuple(options)]) <= memo.PARTS_MEMO_SIZE + len(parts)


def test_routing_with_the_prompt_in_parts_answers_as_with_the_whole_prompt() -> None:
    from chat import ChatRequest
    from saiverse.llm.offline import OfflineModel
    from saiverse.llm.schema import pick_option

    schema = {"type": "string", "enum": ["basic_chat", "memory_recall", "image_generate_playbook"],
              "description": "- memory_recall: 思い出す 記憶\n- image_generate_playbook: 絵を描く"}
    parts = ("現在地: 図書館。", *[m["content"] for m in HISTORY], "- image_generate_playbook: 海や空の絵")
    for query in ["海の絵を描いて", "昔のことを思い出して", "こんにちは", "記憶にある絵"]:
        whole = pick_option(schema["enum"], query, schema=schema, context="\n".join(parts))
        assert pick_option(schema["enum"], query, schema=schema, context="\n".join(parts),
                           context_parts=parts) == whole, query
    request = ChatRequest(messages=[*HISTORY, {"role": "user", "content": "海の絵を描いて"}],  # type: ignore[list-item]
                          system="現在地: 図書館。", persona_name="ミナ",
                          response_schema={"type": "object", "properties": {"playbook": schema}})
    from saiverse.llm import catalogue as memo

    memo._PARTS_MEMO.clear()
    cold = OfflineModel().generate(request).data
    assert cold is not None and cold["playbook"] in schema["enum"]
    assert OfflineModel().generate(request).data == cold  # every part from the memo this time


def test_a_stream_says_what_generate_says_and_a_subclass_streams_its_own() -> None:
    from chat import ChatRequest, ChatResult
    from saiverse.llm.offline import OfflineModel

    request = ChatRequest(messages=[*HISTORY, {"role": "user", "content": "猫の話をしよう"}],  # type: ignore[list-item]
                          system="あなたはミナです。\n本と物語を愛しています。\n\n現在地: 図書館。", persona_name="ミナ")
    model = OfflineModel()
    assert "".join(model.stream(request)) == model.generate(request).text != ""

    class Canned(OfflineModel):
        def generate(self, request: ChatRequest) -> ChatResult:
            return ChatResult(text="決まった返事", model="canned")

    assert "".join(Canned().stream(request)) == "決まった返事"
