"""The SEA runtime through the manager: node effects, the seed examples, args, results.

Real SQLite in the temp home, real LangGraph, the offline model.
"""

from __future__ import annotations

from typing import Any

import pytest

from saiverse.llm.offline import OFFLINE_NOTE
from saiverse.manager import SAIVerseManager
from sea.playbook import Playbook, parse_playbook
from sea.runtime import compile_playbook


def run(m: SAIVerseManager, pb: Playbook | dict[str, Any], args: dict[str, Any] | None = None,
        persona: str = "mina") -> list[dict[str, Any]]:
    playbook = pb if isinstance(pb, Playbook) else parse_playbook(pb)
    return list(m.run_playbook(playbook, persona, "library", args=args))


def only(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def pulse_of(events: list[dict[str, Any]]) -> str:
    return events[0]["pulse_id"]


def memory(m: SAIVerseManager, persona: str = "mina") -> list[dict[str, Any]]:
    return list(reversed(m.memory.list_messages(persona, limit=100)))


# ---- node effects (the README node table) -------------------------------------------------------------

def test_speak_say_think_memorize_effects(manager: SAIVerseManager) -> None:
    events = run(manager, {"name": "effects", "nodes": [
        {"id": "sp", "type": "speak", "action": "こんにちは、ミナです。", "next": "sa"},
        {"id": "sa", "type": "say", "action": "(本をめくる音)", "next": "th"},
        {"id": "th", "type": "think", "action": "今日は静かだ。", "next": "me"},
        {"id": "me", "type": "memorize", "action": "覚えておくこと", "role": "user", "tags": ["note"], "next": None},
    ]})
    pid = pulse_of(events)
    assert only(events, "pulse_end")[0]["status"] == "ok"
    assert [e["text"] for e in only(events, "speak")] == ["こんにちは、ミナです。"]
    assert [e["text"] for e in only(events, "say")] == ["(本をめくる音)"]
    assert [e["text"] for e in only(events, "think")] == ["今日は静かだ。"]
    mem = {m["content"]: m for m in memory(manager)}
    assert set(mem) == {"こんにちは、ミナです。", "今日は静かだ。", "覚えておくこと"}  # say: no memory
    assert set(mem["こんにちは、ミナです。"]["tags"]) == {"conversation", f"pulse:{pid}"}
    assert set(mem["今日は静かだ。"]["tags"]) == {"internal", f"pulse:{pid}"}
    assert set(mem["覚えておくこと"]["tags"]) == {"note", f"pulse:{pid}"} and mem["覚えておくこと"]["role"] == "user"
    history = [h.content for h in manager.history("library")]
    assert history == ["こんにちは、ミナです。", "(本をめくる音)"]  # think / memorize: not in the building


def test_llm_writes_nothing_unless_asked_and_think_adds_no_output(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({"name": "child_thinker", "nodes": [
        {"id": "llm", "type": "llm", "action": "考えて", "next": "th"},
        {"id": "th", "type": "think", "action": "内部メモ", "next": None},
    ]}))
    events = run(manager, {"name": "parent", "nodes": [
        {"id": "call", "type": "subplay", "playbook": "child_thinker", "propagate_output": True, "next": "say"},
        {"id": "say", "type": "say", "action": "子の結果: {last}", "next": None},
    ]})
    said = only(events, "say")[0]["text"]
    assert "内部メモ" not in said and OFFLINE_NOTE in said  # last = the llm's text, not the think note
    assert [m["content"] for m in memory(manager)] == ["内部メモ"]  # the llm node stored nothing


def test_llm_structured_output_mapping_and_memorize_option(manager: SAIVerseManager) -> None:
    events = run(manager, {"name": "structured", "input_schema": [{"name": "input", "required": True}], "nodes": [
        {"id": "ask", "type": "llm", "action": "{input}", "output_key": "answer",
         "response_schema": {"type": "object", "properties": {"title": {"type": "string"}, "count": {"type": "integer"}},
                             "required": ["title", "count"]},
         "output_mapping": {"title": "title"}, "memorize": {"tags": ["structured"]}, "next": "out"},
        {"id": "out", "type": "say", "action": "{title} / {answer.count}", "next": None},
    ]}, {"input": "猫の冒険を書いて"})
    assert only(events, "pulse_end")[0]["status"] == "ok"
    assert only(events, "say")[0]["text"].startswith("猫の冒険")
    (mem,) = memory(manager)
    assert "structured" in mem["tags"] and '"title"' in mem["content"]


def test_exact_template_keeps_type_and_set_expressions(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({
        "name": "typed_callee",
        "input_schema": [{"name": "items", "required": True}, {"name": "n", "required": True}],
        "nodes": [
            {"id": "calc", "type": "set", "assignments": {"total": "=len({items}) * {n}", "big": "={n} > 2"},
             "next": "say"},
            {"id": "say", "type": "say", "action": "{total} {big} {items.1}", "next": None},
        ]}))
    events = run(manager, {"name": "typed_caller", "nodes": [
        {"id": "init", "type": "set", "assignments": {"xs": "=['a', 'b', 'c']", "k": "=3"}, "next": "call"},
        {"id": "call", "type": "subplay", "playbook": "typed_callee", "args": {"items": "{xs}", "n": "{k}"},
         "next": None},
    ]})
    assert only(events, "say")[0]["text"] == "9 true b"


def test_conditional_next_operators_and_dotted_fields(manager: SAIVerseManager) -> None:
    def branch(op: str, value: Any, case: str) -> str:
        events = run(manager, {"name": f"cond_{op}", "nodes": [
            {"id": "init", "type": "set", "assignments": {"state": {"score": value}}, "next": "check"},
            {"id": "check", "type": "pass",
             "conditional_next": {"field": "state.score", "operator": op, "cases": {case: "yes"}, "default": "no"}},
            {"id": "yes", "type": "say", "action": "yes", "next": None},
            {"id": "no", "type": "say", "action": "no", "next": None},
        ]})
        return only(events, "say")[0]["text"]

    assert branch("eq", "a", "a") == "yes" and branch("ne", "a", "a") == "no"
    assert branch("gt", 5, "3") == "yes" and branch("gte", 3, "3") == "yes"
    assert branch("lt", 5, "3") == "no" and branch("lte", 3, "3") == "yes"


def test_error_next_routes_a_failing_node(manager: SAIVerseManager) -> None:
    events = run(manager, {"name": "err", "nodes": [
        {"id": "move", "type": "tool", "action": "move_building", "args_input": {"building": {"$literal": "月の裏側"}},
         "error_next": "oops", "next": "ok"},
        {"id": "ok", "type": "say", "action": "moved", "next": None},
        {"id": "oops", "type": "say", "action": "失敗: {last_error}", "next": None},
    ]})
    assert only(events, "say")[0]["text"].startswith("失敗: 建物「月の裏側」は見つかりません")
    assert only(events, "pulse_end")[0]["status"] == "ok"


def test_compiled_graph_is_cached_per_version(manager: SAIVerseManager) -> None:
    pb = manager.playbooks.get("meta_user")
    assert compile_playbook(pb) is compile_playbook(pb)
    changed = pb.model_copy(update={"description": "changed"})
    assert compile_playbook(changed) is not compile_playbook(pb)


# ---- the seed examples ------------------------------------------------------------------

SEA_EXAMPLES = [
    [{"id": "llm", "type": "llm", "action": None, "next": "speak"},
     {"id": "speak", "type": "speak", "action": None, "next": None}],
    [{"id": "llm", "type": "llm", "action": "内部で考えてから応答してください", "next": "memorize"},
     {"id": "memorize", "type": "memorize", "action": "{last}", "role": "assistant", "tags": ["internal"],
      "next": "llm2"},
     {"id": "llm2", "type": "llm", "action": "ユーザーに話しかけてください", "next": "speak"},
     {"id": "speak", "type": "speak", "action": None, "next": None}],
    [{"id": "tool", "type": "tool", "action": "memory_recall", "args_input": {"query": "input"},
      "output_key": "recall_result", "next": "llm"},
     {"id": "llm", "type": "llm", "action": "想起結果: {recall_result}\n\n上記を踏まえて応答してください", "next": "speak"},
     {"id": "speak", "type": "speak", "action": None, "next": None}],
]


@pytest.mark.parametrize("nodes", SEA_EXAMPLES, ids=["conversation", "think_then_talk", "tool_then_talk"])
def test_sea_node_type_examples_run_as_written(manager: SAIVerseManager, nodes: list[dict[str, Any]]) -> None:
    manager.memory.add("mina", "user", "図書館の猫の話", tags=["conversation"])
    events = run(manager, {"name": "example", "input_schema": [{"name": "input"}], "nodes": nodes},
                 {"input": "猫"})
    assert only(events, "pulse_end")[0]["status"] == "ok", only(events, "error")
    (spoken,) = only(events, "speak")
    assert OFFLINE_NOTE in spoken["text"]
    if nodes[0]["type"] == "tool":
        assert "図書館の猫の話" in only(events, "tool_result")[0]["result"]


def test_save_results_reaches_sub_speak_and_stays_in_its_pulse(manager: SAIVerseManager) -> None:
    save_results = {
        "id": "save_results", "type": "memorize",
        "action": "<system>\nサブプレイブック実行結果 (memory_research)\n{all_results}\n{phase_results}\n\n"
                  "※この結果はユーザーには見えていません。\n</system>",
        "role": "user", "tags": ["memory_research", "sub_save_results"], "next": None,
    }
    manager.playbooks.store(parse_playbook({"name": "research_like", "nodes": [
        {"id": "init", "type": "set",
         "assignments": {"all_results": "港の灯台で猫と出会った記録", "phase_results": "(1 phase)"},
         "next": "save_results"},
        save_results,
    ]}))
    events = run(manager, {"name": "meta_like", "nodes": [
        {"id": "exec", "type": "subplay", "playbook": "research_like", "next": "speak"},
        {"id": "speak", "type": "subplay", "playbook": "sub_speak", "next": None},
    ]})
    pid = pulse_of(events)
    (spoken,) = only(events, "speak")
    assert "港の灯台で猫と出会った記録" in spoken["text"]  # the offline model mentions the result
    stored = next(m for m in memory(manager) if m["content"].startswith("<system>"))
    assert stored["role"] == "user" and "conversation" not in stored["tags"]
    assert set(stored["tags"]) == {"memory_research", "sub_save_results", f"pulse:{pid}"}
    # another pulse never sees it
    later = list(manager.handle_user_input("library", "こんにちは", persona_id="mina"))
    assert "港の灯台" not in only(later, "speak")[0]["text"]


def test_exec_with_args_node_from_the_state_spec(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({
        "name": "deep_research",
        "input_schema": [
            {"name": "objective", "description": "調査目的"}, {"name": "context_text", "description": "コンテキスト"},
            {"name": "depth", "description": "調査深度"}, {"name": "max_iterations", "description": "最大イテレーション数"},
        ],
        "nodes": [{"id": "echo", "type": "say",
                   "action": "{objective}|{context_text}|{depth}|{max_iterations}", "next": "typed"},
                  {"id": "typed", "type": "set", "assignments": {"double": "={max_iterations} * 2"}, "next": "out"},
                  {"id": "out", "type": "say", "action": "{double}", "next": None}],
    }))
    events = run(manager, {"name": "caller", "nodes": [
        {"id": "init", "type": "set", "assignments": {
            "selected_playbook": "deep_research", "objective": "猫の歴史", "resolved_context": "図書館の資料",
            "depth": "深く", "max_iterations_value": "=3"}, "next": "exec_source"},
        {"id": "exec_source", "type": "exec", "playbook_source": "selected_playbook",
         "args": {"objective": "{objective}", "context_text": "{resolved_context}", "depth": "{depth}",
                  "max_iterations": "{max_iterations_value}"}, "next": None},
    ]})
    assert [e["text"] for e in only(events, "say")] == ["猫の歴史|図書館の資料|深く|3", "6"]
    assert {e["playbook"] for e in only(events, "say")} == {"deep_research"}  # nested events stream out


def test_exec_unknown_target_is_a_clear_run_time_error(manager: SAIVerseManager) -> None:
    events = run(manager, {"name": "bad_exec", "nodes": [
        {"id": "init", "type": "set", "assignments": {"target": "no_such_playbook"}, "next": "go"},
        {"id": "go", "type": "exec", "playbook_source": "target", "next": None},
    ]})
    (err,) = only(events, "error")
    assert "no_such_playbook" in err["message"] and "'go'" in err["message"]
    assert only(events, "pulse_end")[0]["status"] == "error"


# ---- builtin meta playbooks -----------------------------------------------------------------

def test_meta_user_routes_to_memory_recall_offline(manager: SAIVerseManager) -> None:
    manager.memory.add("mina", "user", "港で白い猫を見かけたよ", tags=["conversation"])
    events = list(manager.handle_user_input("library", "この前の猫の話を思い出して"))
    assert "memory_recall" in {e.get("playbook") for e in events}
    assert "港で白い猫" in next(e for e in only(events, "tool_result") if e["tool"] == "memory_recall")["result"]
    assert "港で白い猫" in only(events, "speak")[0]["text"]


def test_meta_user_basic_chat_shortcut_goes_straight_to_speak(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "こんにちは"))
    playbooks = {e.get("playbook") for e in events}
    assert "basic_chat" not in playbooks and "sub_speak" in playbooks


def test_meta_user_manual_runs_the_selected_playbook(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "図書館に行きたい", meta_playbook="meta_user_manual",
                                            args={"selected_playbook": "memory_recall"}))
    playbooks = {e.get("playbook") for e in events}
    assert "memory_recall" in playbooks and "sub_router_user" not in playbooks


def test_meta_agentic_stops_at_max_iterations(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "猫のことを思い出して", meta_playbook="meta_agentic",
                                            args={"max_iterations": 2}))
    end = only(events, "pulse_end")[0]
    record = manager.pulses.record(end["pulse_id"])
    assert record is not None and record.status == "ok"
    assert sum(1 for t in record.trace if t == "meta_agentic.router") == 2


def test_building_move_playbook_moves_the_persona(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "美術館に移動して"))
    assert "building_move" in {e.get("playbook") for e in events}
    assert manager.world.persona("mina").building_id == "museum"
    assert "美術館に着きました" in only(events, "speak")[0]["text"]  # told in words
