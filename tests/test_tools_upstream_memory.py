"""Upstream's memory and situation tools as a persona: search and read-around, building messages,
situation snapshots, history and system prompt, waits, summaries and detail recall, working memory —
against real SQLite in the temp home, through `run_tool` and through a running playbook."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from sea.playbook import parse_playbook
from tools import ToolArgumentError, ToolError


def tool(m: SAIVerseManager, name: str, args: dict[str, Any], persona: str = "mina") -> Any:
    return m.run_tool(name, persona, None, args)


def memory(m: SAIVerseManager, persona: str = "mina") -> list[dict[str, Any]]:
    return list(reversed(m.memory.list_messages(persona, limit=200)))


def say(m: SAIVerseManager, who: str, text: str, building: str = "library") -> int:
    if who == "user":
        return m.world.add_history(building, speaker_kind="user", speaker_id="user", speaker_name="あなた", content=text)
    name = m.world.persona(who).name
    return m.world.add_history(building, speaker_kind="persona", speaker_id=who, speaker_name=name, content=text)


def test_memory_recall_with_upstreams_arguments(manager: SAIVerseManager) -> None:
    old = datetime.now(UTC) - timedelta(days=40)
    manager.memory.add("mina", "user", "去年の猫祭りは楽しかった", tags=["conversation"], created_at=old)
    manager.memory.add("mina", "user", "猫の名前はタマだよ", tags=["conversation"])
    manager.memory.add("mina", "assistant", "タマちゃん、かわいい名前ですね", tags=["conversation"])
    out = tool(manager, "memory_recall", {"query": "猫", "keywords": ["タマ"], "topk": 2})
    assert out.splitlines()[0] == "「猫・タマ」に関する記憶 (2件):"
    assert "(相手) 猫の名前はタマだよ" in out.splitlines()[1]  # found by both the query and the keyword
    recent = tool(manager, "memory_recall", {"query": "猫", "start_date": (datetime.now() - timedelta(days=7))
                                             .strftime("%Y-%m-%d")})
    assert "猫祭り" not in recent and "タマ" in recent
    assert "猫祭り" in tool(manager, "memory_recall", {"query": "猫", "end_date": old.strftime("%Y-%m-%d")})
    assert "2件" in tool(manager, "memory_recall", {"keywords": ["タマ"], "limit": 5})  # our old name for topk
    manager.memory.add("mina", "user", "猫と遊んだ長い一日の話" + "。" * 300, tags=["conversation"])
    short = tool(manager, "memory_recall", {"keywords": ["猫"], "max_chars": 100, "topk": 3})
    assert "長さの上限で省きました" in short
    assert "見つかりませんでした" in tool(manager, "memory_recall", {"query": "犬"})
    assert "検索語が空です" in tool(manager, "memory_recall", {})
    with pytest.raises(ToolArgumentError, match="'start_date' must be a date YYYY-MM-DD, got '昨日'"):
        tool(manager, "memory_recall", {"query": "猫", "start_date": "昨日"})
    with pytest.raises(ToolArgumentError, match="argument 'topk'"):
        tool(manager, "memory_recall", {"query": "猫", "topk": 0})


def test_memory_search_brief_then_read_around(manager: SAIVerseManager) -> None:
    ids = [manager.memory.add("mina", "user" if i % 2 else "assistant", text, tags=["conversation"])["id"]
           for i, text in enumerate(["朝の挨拶", "今日は図書館に行った", "そこで白い猫を見かけた" + "。" * 300,
                                     "猫は本棚の上で眠っていた", "夕方に帰った", "夜は雨だった"])]
    brief = tool(manager, "memory_search_brief", {"keywords": ["白い猫"], "max_snippet_chars": 30})
    line = brief.splitlines()[1]
    assert line.startswith(f"[1] ({ids[2]}) ") and "そこで白い猫を見かけた" in line and len(line) < 80
    around = tool(manager, "memory_read_around", {"message_id": str(ids[2]), "window": 1})
    body = around.splitlines()
    assert body[0] == f"記憶 {ids[2]} の前後 (3件):"
    assert "今日は図書館に行った" in body[2] and body[3].endswith("<<<") and "本棚の上" in body[4]
    assert "朝の挨拶" not in around
    with pytest.raises(ToolError, match="記憶 99999 は見つかりません"):
        tool(manager, "memory_read_around", {"message_id": "99999"})
    with pytest.raises(ToolArgumentError, match="message_id must be a message number"):
        tool(manager, "memory_read_around", {"message_id": "abc"})
    with pytest.raises(ToolError, match=f"記憶 {ids[2]} は見つかりません"):  # another persona's memory is not hers
        tool(manager, "memory_read_around", {"message_id": str(ids[2])}, persona="sora")


def test_get_building_messages_hears_others_once(manager: SAIVerseManager) -> None:
    for i in range(30):
        say(manager, "user", f"古い話 {i}")
    manager.memory.add("mina", "user", "今日は晴れだね", tags=["conversation"])  # she already answered this
    say(manager, "user", "今日は晴れだね")
    say(manager, "mina", "そうですね")
    say(manager, "sora", "こんにちは、ミナ")
    manager.world.add_history("library", speaker_kind="system", speaker_id=None, speaker_name="",
                              content='<div class="note-box">ソラが<b>入室</b>しました &amp; 挨拶</div>')
    out = tool(manager, "get_building_messages", {})
    heard = [m for m in memory(manager) if "building_message" in m["tags"]]
    assert [m["content"] for m in heard][-2:] == ["ソラ: こんにちは、ミナ", "<system>[図書館] ソラが 入室 しました & 挨拶</system>"]
    assert "with:sora" in heard[-2]["tags"] and all(m["role"] == "user" for m in heard)
    assert not any(m["content"] in ("そうですね", "今日は晴れだね") for m in heard)
    assert "古い話 0" not in {m["content"] for m in heard}  # a first visit does not pour in the backlog
    assert len(heard) <= 20 and "ソラ: 1件" in out
    assert tool(manager, "get_building_messages", {}) == "新しいメッセージはありません。"
    say(manager, "user", "ミナ、本を探してる")
    assert "ユーザー: 1件" in tool(manager, "get_building_messages", {"building_id": "library"})
    assert memory(manager)[-1]["content"] == "ミナ、本を探してる" and "with:user" in memory(manager)[-1]["tags"]
    with pytest.raises(ToolError, match="いまは美術館にいないので"):
        tool(manager, "get_building_messages", {"building_id": "museum"})
    with pytest.raises(ToolError, match="建物 'ghost' は存在しません"):
        tool(manager, "get_building_messages", {"building_id": "ghost"})


def test_situation_snapshot_and_changes(manager: SAIVerseManager) -> None:
    text, info = tool(manager, "get_situation_snapshot", {"detect_changes": True})
    assert "- 現在の建物: 図書館" in text and "- 建物内の他のペルソナ: (自分だけ)" in text
    assert "- ユーザー: この建物にいます" in text and "- このターンのきっかけ: 直接の実行" in text
    assert info["has_change"] is False and info["snapshot_data"]["building_id"] == "library"
    tool(manager, "move_persona", {"building_id": "library"}, persona="sora")
    manager.move_user("museum")
    text, info = tool(manager, "get_situation_snapshot", {"detect_changes": True})
    assert "ソラ" in text and "- ユーザー: 美術館にいます" in text
    assert info["changes"] == ["ソラが来ました", "ユーザーの居場所: 図書館 → 美術館"]
    last = memory(manager)[-1]
    assert last["content"] == "<system>【状況変化】ソラが来ました、ユーザーの居場所: 図書館 → 美術館</system>"
    assert {"internal", "situation_change"} <= set(last["tags"])
    _text, same = tool(manager, "get_situation_snapshot", {"detect_changes": True})
    assert same["has_change"] is False
    other, _ = tool(manager, "get_situation_snapshot", {"building_id": "museum"})
    assert "- 現在の建物: 美術館" in other
    with pytest.raises(ToolError, match="建物 'ghost' は存在しません"):
        tool(manager, "get_situation_snapshot", {"building_id": "ghost"})


def test_system_prompt_and_history(manager: SAIVerseManager) -> None:
    manager.memory.add("mina", "user", "こんにちは", tags=["conversation"])
    manager.memory.add("mina", "assistant", "(考え中)", tags=["internal"])
    manager.memory.add("mina", "assistant", "ようこそ" + "。" * 150, tags=["conversation"])
    prompt = tool(manager, "get_system_prompt", {"include_available_playbooks": True})
    key = next(i for i in manager.items.list_owned("building", "library") if i.name == "古い鍵")
    assert prompt.startswith("あなたはミナです。") and "### 持ち物\n(何も持っていません)" in prompt
    assert f"- [{key.item_id}] 古い鍵 (オブジェクト): " in prompt and "## 使えるプレイブック" in prompt
    assert "memory_recall (思い出す)" in prompt
    bare = tool(manager, "get_system_prompt", {"include_inventory": False, "include_building_items": False})
    assert "持ち物" not in bare and "古い鍵" not in bare
    history = tool(manager, "get_history", {})
    assert history[0]["role"] == "system" and "古い鍵" in history[0]["content"]
    assert [m["content"][:5] for m in history[1:]] == ["こんにちは", "ようこそ。"]
    assert [m["content"] for m in tool(manager, "get_history", {"include_internal": True})][2] == "(考え中)"
    window = tool(manager, "get_history", {"max_chars": 100, "include_system_prompt": False})
    assert [m["role"] for m in window] == ["assistant"]  # the newest message alone already fills 100 characters
    with pytest.raises(ToolError, match="建物 'ghost' は存在しません"):
        tool(manager, "get_history", {"building_id": "ghost"})


def test_record_wait_keeps_one_message_for_consecutive_waits(manager: SAIVerseManager) -> None:
    assert tool(manager, "record_wait", {"reason": "誰も来ない"}) == "待機を選びました。"
    assert tool(manager, "record_wait", {}) == "待機を続けています (2回目)。"
    assert tool(manager, "record_wait", {}) == "待機を続けています (3回目)。"
    waits = [m for m in memory(manager) if "wait" in m["tags"]]
    assert len(waits) == 1 and waits[0]["content"].startswith("(待機中: 開始 ") and "3回目" in waits[0]["content"]
    manager.memory.add("mina", "assistant", "やあ", tags=["conversation"])
    assert tool(manager, "record_wait", {}) == "待機を選びました。"
    assert len([m for m in memory(manager) if "wait" in m["tags"]]) == 2


def test_since_last_user_conversation_and_detail_recall(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "おはよう、ミナ", persona_id="mina"))
    assert any(e["type"] == "speak" for e in events)
    assert tool(manager, "get_since_last_user_conversation", {}) == "ユーザーとの会話後、特に新しい出来事はありません。"
    say(manager, "sora", "ミナ、新しい本が届いたよ")
    tool(manager, "get_building_messages", {})
    tool(manager, "record_wait", {"reason": "本を整理する"})
    out = tool(manager, "get_since_last_user_conversation", {"max_raw_messages": 5})
    assert out.startswith("最後にユーザーと話してから 2 件のメッセージがあります。")
    assert "- [相手] ソラ: ミナ、新しい本が届いたよ" in out and "おはよう" not in out.split("【要約】")[1]
    ref = out.split("参照ID: ")[1][:8]
    summary = memory(manager)[-1]
    assert summary["role"] == "system" and summary["content"].startswith(f"[要約 {ref}]") and "summary" in summary["tags"]
    detail = tool(manager, "detail_recall", {"summary_uuid": ref})
    assert "ソラ: ミナ、新しい本が届いたよ" in detail and "(待機)" in detail and "おはよう" not in detail
    wider = tool(manager, "detail_recall", {"summary_uuid": ref, "expand_before_minutes": 10})
    assert "おはよう、ミナ" in wider and f"[要約 {ref}]" not in wider
    assert "おはよう、ミナ" in tool(manager, "detail_recall", {"max_messages": 10})
    with pytest.raises(ToolError, match="要約 'deadbeef' は見つかりません"):
        tool(manager, "detail_recall", {"summary_uuid": "deadbeef"})
    with pytest.raises(ToolArgumentError, match="argument 'expand_before_minutes'"):
        tool(manager, "detail_recall", {"expand_before_minutes": -5})


def test_working_memory(manager: SAIVerseManager) -> None:
    assert tool(manager, "update_working_memory", {"key": "goal", "value": "本を整理する"}) == "作業メモ「goal」を追加しました。"
    assert "更新" in tool(manager, "update_working_memory", {"key": "goal", "value": {"step": 2, "shelves": [1, 2]}})
    assert manager.world.persona_extra("mina", "working_memory") == {"goal": {"step": 2, "shelves": [1, 2]}}
    assert "消しました" in tool(manager, "update_working_memory", {"key": "goal", "value": None})
    assert manager.world.persona_extra("mina", "working_memory") == {}
    for args, message in [({"key": " ", "value": 1}, "key must be 1-100"),
                          ({"key": "big", "value": "x" * 30_000}, "at most 20000"),
                          ({"key": "k"}, "argument 'value' is required")]:
        with pytest.raises(ToolArgumentError, match=message):
            tool(manager, "update_working_memory", args)
    assert manager.world.persona_extra("mina", "working_memory") == {}


def test_upstream_tools_in_a_running_playbook(manager: SAIVerseManager) -> None:
    say(manager, "sora", "ミナ、展覧会の準備はどう？")
    pb = parse_playbook({"name": "perceive", "input_schema": [{"name": "input"}], "nodes": [
        {"id": "hear", "type": "tool", "action": "get_building_messages", "output_key": "perception", "next": "look"},
        {"id": "look", "type": "tool", "action": "get_situation_snapshot", "args_input": {"detect_changes": True},
         "output_keys": ["snapshot", "change_info"], "next": "calc"},
        {"id": "calc", "type": "tool", "action": "calculate_expression", "args_input": {"expression": "input"},
         "output_key": "answer", "next": "tell"},
        {"id": "tell", "type": "say", "action": "{perception} / {answer}", "next": None},
    ]})
    events = list(manager.run_playbook(pb, "mina", "library", args={"input": "3*(2+5)"}))
    assert [e for e in events if e["type"] == "pulse_end"][0]["status"] == "ok", events
    said = next(e for e in events if e["type"] == "say")["text"]
    assert said == "1件の新しいメッセージを聞きました (ソラ: 1件)。 / 21"
    snapshot = next(e for e in events if e["type"] == "tool_result" and e["tool"] == "get_situation_snapshot")
    assert "このターンのきっかけ: ユーザー応答" in snapshot["result"][0]


def test_a_model_tool_call_with_upstreams_schema_runs(manager: SAIVerseManager) -> None:
    """The offline model fills every argument of the schema it is shown; the optional ones must come
    out as 'not given' (no date filter, no page range), not as the request text."""
    manager.memory.add("mina", "user", "猫の名前はタマだよ", tags=["conversation"])
    pb = parse_playbook({"name": "ask_tool", "input_schema": [{"name": "input"}], "nodes": [
        {"id": "choose", "type": "llm", "action": "{input}", "available_tools": ["memory_recall"],
         "output_keys": ["text", "call"], "next": "run"},
        {"id": "run", "type": "tool_call", "call_source": "call", "output_key": "found", "next": "tell"},
        {"id": "tell", "type": "say", "action": "{found}", "next": None},
    ]})
    events = list(manager.run_playbook(pb, "mina", "library", args={"input": "memory_recall で 猫の名前 を探して"}))
    assert [e for e in events if e["type"] == "pulse_end"][0]["status"] == "ok", events
    call = next(e for e in events if e["type"] == "tool_call")
    assert call["args"]["start_date"] == "" and "猫" in call["args"]["query"]
    assert "猫の名前はタマだよ" in next(e for e in events if e["type"] == "say")["text"]
