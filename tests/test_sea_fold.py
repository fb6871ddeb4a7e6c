"""Nodes that always follow each other run in one LangGraph step (sea/runtime.py, `_chain`): the run
behaves node for node as before — trace, routing, events, cancellation, the step bound, error_next —
and the UI's drawing still shows every node and edge. Real LangGraph, FakePorts.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from sea.bounds import TooManySteps
from sea.playbook import parse_playbook
from sea.ports import CancellationToken, PersonaContext
from sea.runtime import PulseCancelled, compile_playbook, drawing, run_playbook
from tests.support.fakes_ports import FakePorts

MINA = PersonaContext(persona_id="mina", name="ミナ", avatar="📚", system_prompt="図書館の司書。", building_id="library")

ROUTED = {"name": "routed", "input_schema": [{"name": "input", "required": True}], "nodes": [
    {"id": "pick", "type": "set", "assignments": {"choice": "{input}"}, "next": "check"},
    {"id": "check", "type": "pass",
     "conditional_next": {"field": "choice", "operator": "eq", "cases": {"a": "say_a"}, "default": "say_b"}},
    {"id": "say_a", "type": "say", "action": "A です", "next": None},
    {"id": "say_b", "type": "say", "action": "B です", "next": None},
]}


def run(pb: dict[str, Any], args: dict[str, Any] | None = None, cancel: CancellationToken | None = None,
        ports: FakePorts | None = None) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
    events: list[dict[str, Any]] = []
    trace: list[str] = []
    final = run_playbook(parse_playbook(pb), persona=MINA, building_id="library", pulse_id=uuid.uuid4().hex,
                         ports=ports or FakePorts(), emit=events.append, args=args, trace=trace, cancel=cancel)
    return events, trace, final


@pytest.mark.parametrize(("choice", "said"), [("a", "A です"), ("b", "B です")])
def test_pass_node_routes_and_is_traced_as_before(choice: str, said: str) -> None:
    events, trace, final = run(ROUTED, {"input": choice})
    assert trace == ["routed.pick", "routed.check", f"routed.say_{choice}"]
    assert [e["text"] for e in events if e["type"] == "say"] == [said]
    assert final["choice"] == choice


def test_folded_pass_saves_a_langgraph_step_and_the_drawing_keeps_every_node() -> None:
    pb = parse_playbook(ROUTED)
    graph = compile_playbook(pb)
    # `pick` goes straight to the say nodes: `check` runs inside its step.
    assert {e.target for e in graph.get_graph().edges if e.source == "pick"} - {"__end__"} == {"say_a", "say_b"}
    drawn = drawing(pb).get_graph()
    assert {e.target for e in drawn.edges if e.source == "pick"} == {"check"}
    assert {e.target for e in drawn.edges if e.source == "check"} - {"__end__"} == {"say_a", "say_b"}
    assert "check" in drawn.draw_mermaid()


def test_a_pass_node_reached_otherwise_still_runs_on_its_own() -> None:
    pb = {"name": "start_pass", "nodes": [
        {"id": "first", "type": "pass", "next": "greet"},
        {"id": "greet", "type": "say", "action": "こんにちは", "next": None},
    ]}
    events, trace, _ = run(pb)
    assert trace == ["start_pass.first", "start_pass.greet"]
    assert [e["text"] for e in events if e["type"] == "say"] == ["こんにちは"]


def test_a_node_that_may_fail_elsewhere_keeps_its_own_step() -> None:
    pb = {"name": "guarded", "nodes": [
        {"id": "calc", "type": "set", "assignments": {"x": "=1/0"}, "error_next": "oops", "next": "check"},
        {"id": "check", "type": "pass", "next": "fine"},
        {"id": "fine", "type": "say", "action": "ok", "next": None},
        {"id": "oops", "type": "say", "action": "だめでした", "next": None},
    ]}
    graph = compile_playbook(parse_playbook(pb))
    assert {e.target for e in graph.get_graph().edges if e.source == "calc"} - {"__end__"} == {"check", "oops"}
    events, trace, _ = run(pb)
    assert trace == ["guarded.calc", "guarded.oops"]
    assert [e["text"] for e in events if e["type"] == "say"] == ["だめでした"]


def test_cancel_is_still_read_before_the_folded_pass_node() -> None:
    token = CancellationToken()

    pb = {"name": "cancel_fold", "nodes": [
        {"id": "hello", "type": "say", "action": "やあ", "next": "check"},
        {"id": "check", "type": "pass", "next": "bye"},
        {"id": "bye", "type": "say", "action": "またね", "next": None},
    ]}
    ports = FakePorts()
    ports.post_to_building = lambda *a, **k: token.cancel()  # type: ignore[method-assign]  # cancelled by `hello`
    trace: list[str] = []
    with pytest.raises(PulseCancelled):
        run_playbook(parse_playbook(pb), persona=MINA, building_id="library", pulse_id="p", ports=ports,
                     emit=lambda e: None, trace=trace, cancel=token)
    assert trace == ["cancel_fold.hello"]  # `check` read the token before it ran


def test_a_loop_through_a_folded_pass_node_still_meets_the_step_bound() -> None:
    pb = {"name": "spin", "nodes": [
        {"id": "tick", "type": "set", "assignments": {"n": "=1"}, "next": "again"},
        {"id": "again", "type": "pass", "next": "tick"},
    ]}
    with pytest.raises(TooManySteps):
        run(pb)


def test_a_linear_run_is_one_step_and_its_last_node_may_catch_errors() -> None:
    pb = {"name": "line", "nodes": [
        {"id": "a", "type": "say", "action": "一", "next": "b"},
        {"id": "b", "type": "say", "action": "二", "next": "c"},
        {"id": "c", "type": "set", "assignments": {"x": "=1/0"}, "error_next": "d", "next": None},
        {"id": "d", "type": "say", "action": "{last_error}", "next": None},
    ]}
    graph = compile_playbook(parse_playbook(pb))
    # `a` runs b and c in its own step and leaves by c's edges (END, or d when c fails).
    assert {e.target for e in graph.get_graph().edges if e.source == "a"} == {"d", "__end__"}
    events, trace, _ = run(pb)
    assert trace == ["line.a", "line.b", "line.c", "line.d"]
    said = [e["text"] for e in events if e["type"] == "say"]
    assert said[:2] == ["一", "二"] and len(said) == 3 and said[2]  # d says what c's error was


def test_a_loop_is_not_unrolled_into_one_step() -> None:
    pb = {"name": "loop", "input_schema": [{"name": "n"}], "nodes": [
        {"id": "a", "type": "set", "assignments": {"n": "=n + 1"}, "next": "b"},
        {"id": "b", "type": "pass",
         "conditional_next": {"field": "n", "operator": "gte", "cases": {"3": "done"}, "default": "a"}},
        {"id": "done", "type": "say", "action": "{n}回", "next": None},
    ]}
    _, trace, final = run(pb, {"n": 0})
    assert trace == ["loop.a", "loop.b"] * 3 + ["loop.done"]
    assert final["n"] == 3


def test_router_schema_follows_a_changed_catalogue() -> None:
    from sea.router import prepare_schema

    schema = {"type": "object", "properties": {"pick": {"type": "string", "x-enum-source": "router_playbooks"}}}
    first = [parse_playbook({"name": "a", "description": "一つ目", "nodes": [{"id": "n", "type": "pass"}]})]
    out = prepare_schema(schema, first)
    assert out["properties"]["pick"]["enum"] == ["a"] and prepare_schema(schema, first) is out  # kept
    edited = [first[0].model_copy(update={"description": "書き換えた"})]  # a changed playbook is a new object
    assert "書き換えた" in prepare_schema(schema, edited)["properties"]["pick"]["description"]
    more = [*edited, parse_playbook({"name": "b", "nodes": [{"id": "n", "type": "pass"}]})]
    assert prepare_schema(schema, more)["properties"]["pick"]["enum"] == ["a", "b"]
    assert "x-enum-source" in schema["properties"]["pick"]  # the node's own schema is never changed
