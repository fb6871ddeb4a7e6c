"""Validation before anything runs: every class of mistake, with playbook, node and field named."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import words
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from sea.expr import ExpressionError, evaluate
from sea.playbook import PlaybookError, parse_playbook


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = tmp_path_factory.mktemp("validation-home")
    m = SAIVerseManager(load_settings(home))
    yield m.playbooks
    m.close()


def pb(nodes: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"name": "sample", "nodes": nodes, **extra}


SAY = {"id": "end", "type": "say", "action": "ok", "next": None}

CASES: list[tuple[str, Any, list[str]]] = [
    ("malformed JSON", '{"name": "sample", "nodes": [', ["not valid JSON", "line 1"]),
    ("not an object", "[1, 2]", ["JSON object"]),
    ("unknown node type", pb([{"id": "a", "type": "spaek", "next": None}]), ["'a'", "'type'", "spaek"]),
    ("unknown field", pb([{"id": "a", "type": "say", "acton": "x", "next": None}]),
     ["'a'", "acton", "unknown field"]),
    ("unknown top-level field", {**pb([SAY]), "sauce": "user_input"}, ["'sauce'", "unknown field"]),
    ("next to a missing node", pb([{"id": "a", "type": "say", "action": "x", "next": "nowhere"}]),
     ["'a'", "'next'", "nowhere"]),
    ("case to a missing node", pb([{"id": "a", "type": "pass", "conditional_next": {
        "field": "last", "cases": {"x": "ghost"}, "default": None}}]), ["'a'", "conditional_next.cases.x", "ghost"]),
    ("upstream default case to a missing node", pb([{"id": "a", "type": "pass", "conditional_next": {
        "field": "last", "cases": {"default": "ghost"}}}]), ["'a'", "conditional_next.cases.default", "ghost"]),
    ("fallback given twice", pb([{"id": "a", "type": "pass", "conditional_next": {
        "field": "last", "cases": {"default": "end"}, "default": None}, "next": "end"}, SAY]),
     ["'a'", "conditional_next"]),
    ("bad operator", pb([{"id": "a", "type": "pass", "conditional_next": {
        "field": "last", "operator": "like", "cases": {}}}]), ["'a'", "conditional_next.operator"]),
    ("unreachable node", pb([{"id": "a", "type": "say", "action": "x", "next": None}, SAY]),
     ["'end'", "unreachable"]),
    ("undeclared argument", pb([{"id": "a", "type": "subplay", "playbook": "memory_recall",
                                 "args": {"input": "x", "depth": 3}, "next": None}]),
     ["'a'", "args.depth", "does not declare"]),
    ("required argument missing", pb([{"id": "a", "type": "subplay", "playbook": "sample", "args": {},
                                       "next": None}], input_schema=[{"name": "topic", "required": True}]),
     ["'a'", "'args'", "required argument 'topic'"]),
    ("unknown variable in an assignment", pb([{"id": "a", "type": "set", "assignments": {"n": "hi {nobody}"},
                                              "next": None}]), ["'a'", "assignments.n", "{nobody}"]),
    ("unknown variable in an expression", pb([{"id": "a", "type": "set", "assignments": {"n": "={count} + 1"},
                                              "next": None}]), ["'a'", "assignments.n", "{count}"]),
    ("args_input text that is not a path", pb([{"id": "a", "type": "tool", "action": "memory_recall",
                                               "args_input": {"query": "猫 の 話"}, "next": None}]),
     ["'a'", "args_input.query", "not a state path", "$literal"]),
    ("args_input path to nothing", pb([{"id": "a", "type": "tool", "action": "memory_recall",
                                       "args_input": {"query": "search.query"}, "next": None}]),
     ["'a'", "args_input.query", "{search}"]),
    ("write to a system variable (set)", pb([{"id": "a", "type": "set", "assignments": {"_messages": "[]"},
                                             "next": None}]), ["'a'", "_messages", "runtime"]),
    ("write to a system variable (output_mapping)", pb([{"id": "a", "type": "llm", "action": "x",
                                                         "response_schema": {"type": "object"},
                                                         "output_mapping": {"x": "_persona_obj"}, "next": None}]),
     ["'a'", "_persona_obj"]),
    ("system-looking parameter", pb([SAY], input_schema=[{"name": "_pulse_id"}]), ["input_schema._pulse_id"]),
    ("system-looking result", pb([SAY], output_schema=["_pulse_id"]), ["output_schema", "_pulse_id"]),
    ("a name that is a path", {**pb([SAY]), "name": "../evil"}, ["'name'", "identifiers"]),
    ("a name with a slash", {**pb([SAY]), "name": "a/b"}, ["'name'", "identifiers"]),
    ("duplicate ids", pb([{"id": "a", "type": "say", "action": "x", "next": None},
                          {"id": "a", "type": "say", "action": "y", "next": None}]), ["duplicate node id 'a'"]),
]


IN_JAPANESE: dict[str, list[str]] = {
    "malformed JSON": ["JSON として読めません", "1 行"], "not an object": ["JSON のオブジェクト"],
    "unknown node type": ["'a'", "'type'", "知らないノードの種類 'spaek'", "'llm'"],
    "unknown field": ["'a'", "acton", "知らない欄"], "unknown top-level field": ["'sauce'", "知らない欄"],
    "unreachable node": ["'end'", "たどり着けません"], "undeclared argument": ["'a'", "args.depth", "宣言していません"],
    "required argument missing": ["'a'", "'args'", "必須の引数 'topic'"],
    "args_input text that is not a path": ["'a'", "args_input.query", "状態のパスではありません", "$literal"],
    "write to a system variable (set)": ["'a'", "_messages", "実行系"],
    "a name that is a path": ["'name'", "識別子"], "a name with a slash": ["'name'", "識別子"],
    "duplicate ids": ["ノード id 'a' が重複"],
}
"""The same mistakes in the default language: the names and fields as in English, the words Japanese."""
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
NAMES = re.compile(r"'[^']*'|\{[^}]*\}|\"[^\"]*\"|`[^`]*`|\$literal|[\w$-]+[._][\w.$-]+|\bnull\b|\b(?:JSON|UTF-8|"
                   r"SAIVerse|id|start_node|args_input|output_schema|subplay|set|tool|true|false)\b")
"""What a Japanese refusal may hold in Latin letters: the playbook's own names, fields and the format's words."""


@pytest.mark.parametrize(("case", "data", "expected"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_each_mistake_is_named(catalog: Any, case: str, data: Any, expected: list[str], lang: str) -> None:
    words.use(lang)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    with pytest.raises(PlaybookError) as info:
        catalog.check_text(text, source="sample")
    message = str(info.value)
    assert "sample" in message or "evil" in message or "a/b" in message
    for part in (IN_JAPANESE.get(case, expected) if lang == "ja" else expected):
        assert part in message, (case, message)
    if lang == "en":
        assert not JAPANESE.search(message.replace("猫 の 話", "")), message
    else:
        assert JAPANESE.search(message) and not re.search(r"[A-Za-z]{3,}", NAMES.sub(" ", message)), message


def test_valid_playbook_passes_and_parameters_count_as_known(catalog: Any) -> None:
    ok = catalog.check_text(json.dumps(pb(
        [{"id": "a", "type": "say", "action": "{input} / {last}", "next": None}],
        input_schema=[{"name": "input", "required": True}])))
    assert ok.name == "sample"


def test_every_builtin_playbook_is_valid(catalog: Any) -> None:
    names = {p.name for p in catalog.all()}
    for expected in ("meta_user", "meta_agentic", "meta_user_manual", "meta_simple_speak", "meta_auto",
                     "sub_router_user", "sub_speak", "basic_chat", "memory_recall", "memory_research",
                     "building_move"):
        assert expected in names
    for p in catalog.all():
        catalog.validate(p)


@pytest.mark.parametrize("expr", [
    "__import__('os').system('true')", "().__class__.__bases__", "open('/etc/passwd')", "{x}.__dict__",
    "'a' * 10 ** 9", "lambda: 1", "[i for i in range(3)]",
])
def test_set_expressions_never_eval(expr: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate("=" + expr, {"x": {}})


def test_missing_variable_at_run_time_is_an_error_event(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings())
    try:
        playbook = parse_playbook(pb([
            {"id": "a", "type": "set", "assignments": {"data": {"known": 1}}, "next": "b"},
            {"id": "b", "type": "say", "action": "{data.unknown}", "next": None}]))
        events = list(m.run_playbook(playbook, "mina", "library"))
        err = next(e for e in events if e["type"] == "error")
        assert "{data.unknown}" in err["message"] and "'b'" in err["message"]
        assert not any(e["type"] == "say" for e in events)
    finally:
        m.close()


def test_upstream_fields_are_accepted_and_those_without_effect_reported(catalog: Any) -> None:
    data = {
        "name": "upstream_style", "display_name": "上流", "description": "x", "dev_only": True,
        "required_credentials": ["x"], "input_template": "{input}",
        "context_requirements": {"history_depth": "full", "inventory": True},
        "input_schema": [{"name": "input", "description": "", "param_type": "string", "enum_source": "playbooks:all",
                          "user_configurable": True, "ui_widget": "textarea"}],
        "nodes": [
            {"id": "think", "type": "llm", "context_profile": "worker_light", "action": "{input}",
             "available_tools": ["memory_recall", "x_post_tweet"], "tools": ["task_close"],
             "output_keys": [{"text": "t"}, {"function_call": "fc"}, {"thought": "th"}], "label": "考える",
             "important": True, "next": "sub"},
            {"id": "sub", "type": "subplay", "playbook": "memory_recall", "execution": "subagent",
             "subagent_chronicle": True, "isolate_pulse_context": True, "next": "start"},
            {"id": "start", "type": "stelis_start", "label": "作業", "stelis_config": {"window_ratio": 0.8,
                                                                                     "max_depth": 3},
             "next": "end"},
            {"id": "end", "type": "stelis_end", "generate_chronicle": True, "next": None}]}
    pb = catalog.check_text(json.dumps(data, ensure_ascii=False))
    report = catalog.validate(pb)
    assert report.needs == ["needs tool x_post_tweet (not available here)"]
    ignored = "\n".join(report.ignored)
    for field in ("input_template", "context_requirements.inventory", "input_schema.input.enum_source",
                  "input_schema.input.user_configurable", "input_schema.input.ui_widget", "'think': tools",
                  "'think': important", "'think': label", "'sub': subagent_chronicle", "output_keys thought",
                  "stelis_config.window_ratio", "'end': generate_chronicle"):
        assert field in ignored, field
    for meaningful in ("context_profile", "dev_only", "required_credentials", "isolate_pulse_context",
                       "execution", "'start': label", "param_type", "context_requirements.history_depth"):
        assert meaningful not in ignored, meaningful
    assert pb.name not in {p.name for p in catalog.router_callable()}


def test_unknown_context_profile_is_reported_not_guessed(catalog: Any) -> None:
    pb = catalog.check_text(json.dumps(pb_one({"id": "a", "type": "llm", "action": "x",
                                               "context_profile": "deep_thinker", "next": None})))
    assert any("'deep_thinker' (not known here" in r for r in catalog.validate(pb).ignored)


def pb_one(node: dict[str, Any]) -> dict[str, Any]:
    return pb([node])
