"""Upstream playbook fields at run time: each one's meaning here, through the manager and real LangGraph."""

from __future__ import annotations

from typing import Any

import pytest

from chat import ChatRequest, ChatResult
from saiverse.llm.offline import OfflineModel
from saiverse.manager import SAIVerseManager
from sea.playbook import parse_playbook


class Recorder(OfflineModel):
    """The offline model, keeping every request with the model type it was chosen for."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, ChatRequest]] = []
        self.kind = "normal"

    def generate(self, request: ChatRequest) -> ChatResult:
        self.seen.append((self.kind, request))
        return super().generate(request)


@pytest.fixture
def recorder(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    model = Recorder()

    def model_for(persona: Any, kind: str) -> tuple[Recorder, None]:
        model.kind = kind
        return model, None

    monkeypatch.setattr(manager, "models", model_for)
    return model


def run(m: SAIVerseManager, nodes: list[dict[str, Any]], *, args: dict[str, Any] | None = None,
        **top: Any) -> list[dict[str, Any]]:
    pb = parse_playbook({"name": top.pop("name", "sample"), "nodes": nodes, **top})
    return list(m.run_playbook(pb, "mina", "library", args=args))


def only(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def said(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in only(events, "say")]


def test_context_profiles_choose_the_model_and_the_context(manager: SAIVerseManager, recorder: Recorder) -> None:
    manager.memory.add("mina", "user", "昨日の話", tags=["conversation"])
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    run(manager, [
        {"id": "r", "type": "llm", "context_profile": "router", "action": "a", "response_schema": schema, "next": "w"},
        {"id": "w", "type": "llm", "context_profile": "worker", "action": "b", "response_schema": schema, "next": "l"},
        {"id": "l", "type": "llm", "context_profile": "worker_light", "action": "c", "response_schema": schema,
         "next": "c"},
        {"id": "c", "type": "llm", "context_profile": "conversation", "model_type": "lightweight", "action": "d",
         "response_schema": schema, "next": None}])
    kinds = [k for k, _ in recorder.seen]
    assert kinds == ["lightweight", "normal", "lightweight", "normal"]  # the profile wins over model_type
    router, worker, light, conversation = (r for _, r in recorder.seen)
    assert any(m["content"] == "昨日の話" for m in router.messages) and router.system
    assert worker.system is None and not any(m["content"] == "昨日の話" for m in worker.messages)
    assert light.system is None and conversation.system


def test_history_depth_of_context_requirements(manager: SAIVerseManager, recorder: Recorder) -> None:
    for i in range(3):
        manager.memory.add("mina", "user", f"話{i}", tags=["conversation"])
    node = {"id": "a", "type": "llm", "action": "今", "next": None}
    run(manager, [node], context_requirements={"history_depth": 0, "inventory": True})
    run(manager, [node], context_requirements={"history_depth": "2messages"})
    none, two = (r for _, r in recorder.seen)
    assert [m["content"] for m in none.messages] == ["今"]
    assert [m["content"] for m in two.messages] == ["話1", "話2", "今"]


def test_param_types_convert_or_refuse(manager: SAIVerseManager) -> None:
    nodes = [{"id": "a", "type": "set", "assignments": {"twice": "={n} * 2"}, "next": "b"},
             {"id": "b", "type": "say", "action": "{twice} {flag} {mode}", "next": None}]
    params = [{"name": "n", "description": "", "param_type": "number"},
              {"name": "flag", "description": "", "param_type": "boolean"},
              {"name": "mode", "description": "", "param_type": "enum", "enum_values": ["a", "b"],
               "user_configurable": True, "ui_widget": "dropdown"}]
    events = run(manager, nodes, input_schema=params, args={"n": "21", "flag": "yes", "mode": "b"})
    assert said(events) == ["42 true b"]
    events = run(manager, nodes, input_schema=params, args={"n": "many", "flag": "yes", "mode": "b"})
    assert "'n' must be a number" in only(events, "error")[0]["message"]
    events = run(manager, nodes, input_schema=params, args={"n": 1, "flag": True, "mode": "c"})
    assert "must be one of ['a', 'b']" in only(events, "error")[0]["message"]


def test_output_keys_in_both_forms_and_tool_flags(manager: SAIVerseManager) -> None:
    ask = "memory_recall で 猫 を探して"
    for keys in (["reply", "fc"], [{"text": "reply"}, {"function_call": "fc"}]):
        events = run(manager, [
            {"id": "a", "type": "llm", "action": ask, "available_tools": ["memory_recall"], "output_keys": keys,
             "next": "b"},
            {"id": "b", "type": "pass", "conditional_next": {"field": "tool_called", "cases": {
                "True": "call", "default": "none"}}},
            {"id": "call", "type": "tool_call", "output_key": "found", "next": "c"},
            {"id": "c", "type": "say", "action": "{fc.name}: {fc.args.query}", "next": None},
            {"id": "none", "type": "say", "action": "呼ばなかった", "next": None}])
        # tool_call reads upstream's default call_source `fc` (`fc.name`, `fc.args`)
        assert said(events)[0].startswith("memory_recall: 猫"), keys
        assert only(events, "tool_call")[0]["tool"] == "memory_recall"


def test_conditional_next_contains_and_default_case(manager: SAIVerseManager) -> None:
    def branch(value: Any) -> list[str]:
        return said(run(manager, [
            {"id": "s", "type": "set", "assignments": {"v": value}, "next": "p"},
            {"id": "p", "type": "pass", "conditional_next": {"field": "v", "operator": "contains", "cases": {
                "猫": "cat", "default": "other"}}},
            {"id": "cat", "type": "say", "action": "cat", "next": None},
            {"id": "other", "type": "say", "action": "other", "next": None}]))

    assert branch("三毛猫がいる") == ["cat"]
    assert branch(["犬", "猫"]) == ["cat"]
    assert branch("犬だけ") == ["other"]


def test_results_come_back_by_output_schema_name_and_runtime_variables(manager: SAIVerseManager) -> None:
    callee = {"name": "pick_color", "description": "", "input_schema": [{"name": "input", "description": ""}],
              "output_schema": ["color", "size"],
              "nodes": [{"id": "s", "type": "set", "assignments": {"color": "{input}色", "hidden": 1}, "next": None}]}
    manager.playbooks.store(parse_playbook(callee))
    events = run(manager, [
        {"id": "init", "type": "set", "assignments": {"executed_playbooks_init": True, "selected_playbook":
                                                      "pick_color"}, "next": "sub"},
        {"id": "sub", "type": "subplay", "playbook": "pick_color", "next": "ex"},
        {"id": "ex", "type": "exec", "next": "out"},
        {"id": "out", "type": "say", "action": "{color} {executed_playbooks} {metadata} {input}", "next": None}],
        args={"input": "赤"}, input_schema=[{"name": "input", "description": ""}])
    # `input` flows to the callee by default; `color` comes back by name; `size` was never set.
    assert said(events) == ['赤色 ["pick_color"] {} 赤']
    # What the callee does not declare stays its own: validation expects it, the run stops there.
    pb = parse_playbook({"name": "reader", "nodes": [
        {"id": "sub", "type": "subplay", "playbook": "pick_color", "next": "o"},
        {"id": "o", "type": "set", "assignments": {"x": "{hidden}"}, "next": None}]})
    assert manager.playbooks.validate(pb).expects == ["{hidden} (node 'o', assignments.x)"]
    error = only(list(manager.run_playbook(pb, "mina", "library")), "error")[0]
    assert "{hidden} is not set" in error["message"]


def test_args_input_paths_literals_and_missing_fields(manager: SAIVerseManager) -> None:
    manager.memory.add("mina", "user", "港で白い猫を見た", tags=["conversation"])
    events = run(manager, [
        {"id": "s", "type": "set", "assignments": {"search": {"query": "白い猫", "extra": {}}}, "next": "t"},
        {"id": "t", "type": "tool", "action": "memory_recall",
         "args_input": {"query": "search.query", "limit": {"$literal": 2}, "keywords": "search.extra.words"},
         "output_key": "found", "next": None}])
    [call] = only(events, "tool_call")
    assert call["args"] == {"query": "白い猫", "limit": 2}  # a missing field leaves the argument out
    assert "港で白い猫" in only(events, "tool_result")[0]["result"]
    events = run(manager, [{"id": "t", "type": "tool", "action": "memory_recall",
                            "args_input": {"query": {"$literal": "search.query"}, "limit": 1}, "next": None}])
    assert only(events, "tool_call")[0]["args"] == {"query": "search.query", "limit": 1}


def test_a_tool_that_is_not_here_is_listed_then_fails_at_its_node(manager: SAIVerseManager) -> None:
    data = {"name": "web", "nodes": [
        {"id": "hello", "type": "say", "action": "調べます", "next": "search"},
        {"id": "search", "type": "tool", "action": "searxng_search", "args_input": {"query": "input"},
         "next": None}], "input_schema": [{"name": "input", "description": ""}]}
    pb = parse_playbook(data)
    assert manager.playbooks.validate(pb).needs == ["needs tool searxng_search (not available here)"]
    events = list(manager.run_playbook(pb, "mina", "library", args={"input": "天気"}))
    assert said(events) == ["調べます"]
    [error] = only(events, "error")
    assert "needs tool searxng_search (not available here)" in error["message"] and error["kind"] == "tool_unavailable"
    data["nodes"][1]["error_next"] = "sorry"
    data["nodes"].append({"id": "sorry", "type": "say", "action": "できません: {last_error}", "next": None})
    events = list(manager.run_playbook(parse_playbook(data), "mina", "library", args={"input": "天気"}))
    assert only(events, "error")[0]["kind"] == "tool_unavailable"
    assert said(events)[-1].startswith("できません: ") and "searxng_search" in said(events)[-1]
    assert only(events, "pulse_end")[0]["status"] == "ok"


def test_a_playbook_that_is_not_imported_is_listed_then_fails_at_its_node(manager: SAIVerseManager) -> None:
    pb = parse_playbook({"name": "caller", "nodes": [
        {"id": "go", "type": "subplay", "playbook": "sub_detect_situation_change", "next": "use"},
        {"id": "use", "type": "say", "action": "{change_info}", "next": None}]})
    report = manager.playbooks.validate(pb)
    assert report.needs == ["needs playbook sub_detect_situation_change (not imported here)"]
    assert report.expects == ["{change_info} (node 'use', action)"]
    error = only(list(manager.run_playbook(pb, "mina", "library")), "error")[0]
    assert "needs playbook sub_detect_situation_change" in error["message"]


def test_stelis_session_hides_its_messages_once_ended(manager: SAIVerseManager, recorder: Recorder) -> None:
    events = run(manager, [
        {"id": "before", "type": "llm", "action": "外の話", "next": "start"},
        {"id": "start", "type": "stelis_start", "label": "執筆", "stelis_config": {"max_depth": 2}, "next": "inside"},
        {"id": "inside", "type": "llm", "action": "中の話", "memorize": {"tags": ["draft"]}, "next": "end"},
        {"id": "end", "type": "stelis_end", "label": "執筆", "generate_chronicle": True, "next": "after"},
        {"id": "after", "type": "llm", "action": "あと", "next": None}])
    notices = [e for e in only(events, "notice") if e["kind"].startswith("stelis")]
    assert [(e["kind"], e["text"]) for e in notices] == [("stelis_start", "「執筆」を始めます。"),
                                                        ("stelis_end", "「執筆」を終えました。")]
    inside, after = recorder.seen[1][1], recorder.seen[2][1]
    assert "外の話" in [m["content"] for m in inside.messages]
    contents = [m["content"] for m in after.messages]
    assert "外の話" in contents and "中の話" not in contents and not any("中の話" in c for c in contents)
    draft = next(m for m in manager.memory.list_messages("mina", limit=20) if "draft" in m["tags"])
    assert any(t.startswith("stelis:") for t in draft["tags"])
    nested = run(manager, [{"id": f"s{i}", "type": "stelis_start", "stelis_config": {"max_depth": 1},
                            "next": "s1" if i == 0 else None} for i in range(2)])
    assert "max_depth 1" in only(nested, "error")[0]["message"]


def test_isolated_callee_and_metadata_on_the_spoken_message(manager: SAIVerseManager, recorder: Recorder) -> None:
    speaker = {"name": "speaker", "description": "", "input_schema": [{"name": "metadata", "description": ""}],
               "nodes": [{"id": "c", "type": "llm", "action": None, "speak": True, "metadata_key": "metadata",
                          "next": None}]}
    manager.playbooks.store(parse_playbook(speaker))
    events = run(manager, [
        {"id": "think", "type": "llm", "action": "途中の考え", "next": "m"},
        {"id": "m", "type": "set", "assignments": {"media": {"images": ["a.png"]}}, "next": "shared"},
        {"id": "shared", "type": "subplay", "playbook": "speaker", "args": {"metadata": "{media}"}, "next": "alone"},
        {"id": "alone", "type": "subplay", "playbook": "speaker", "isolate_pulse_context": True, "next": None}])
    shared, alone = recorder.seen[1][1], recorder.seen[2][1]
    assert "途中の考え" in [m["content"] for m in shared.messages]
    assert "途中の考え" not in [m["content"] for m in alone.messages]
    first, second = only(events, "speak")
    assert first["metadata"] == {"images": ["a.png"]} and "metadata" not in second


def test_prompt_placeholders_nobody_sets_stay_text(manager: SAIVerseManager, recorder: Recorder) -> None:
    pb = parse_playbook({"name": "uri", "nodes": [
        {"id": "a", "type": "llm", "action": "例: saiverse://self/item/{item_id} を見る", "next": "b"},
        {"id": "b", "type": "tool", "action": "list_available_playbooks", "output_key": "_wait_result",
         "next": None}]})
    report = manager.playbooks.validate(pb)
    assert any("{item_id}" in r and "kept as written" in r for r in report.ignored)
    assert any("_wait_result" in r for r in report.ignored)
    events = list(manager.run_playbook(pb, "mina", "library"))
    assert only(events, "pulse_end")[0]["status"] == "ok"
    assert recorder.seen[0][1].messages[-1]["content"] == "例: saiverse://self/item/{item_id} を見る"
