"""A `pass` node after a node that never branches runs in that node's LangGraph step (sea/runtime.py,
`_folded_pass`): the run behaves node for node as before — trace, routing, cancellation, the step
bound, error_next — and the UI's drawing still shows every node. Real LangGraph, FakePorts.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from sea.bounds import TooManySteps
from sea.playbook import parse_playbook
from sea.ports import CancellationToken, PersonaContext
from sea.runtime import PulseCancelled, compile_playbook, drawing, run_playbook
from tests.fakes_ports import FakePorts

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
