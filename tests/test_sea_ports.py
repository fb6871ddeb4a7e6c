"""sea/runtime.py through its port: the same tests against `FakePorts` (the runtime alone) and the
manager (the real domain), as langgraph parametrises one test over every checkpointer.

A behaviour that passes with FakePorts is the runtime's own; one that passes only through the
manager would belong to the domain.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, Protocol

import pytest

from saiverse.llm.offline import OFFLINE_NOTE
from sea.playbook import parse_playbook
from sea.ports import PersonaContext
from sea.runtime import run_playbook
from tests.support.fakes_ports import FakePorts

MINA = PersonaContext(persona_id="mina", name="ミナ", avatar="📚", system_prompt="図書館の司書。", building_id="library")


class World(Protocol):
    """What a test needs: run a playbook as ミナ in the library, add a callee, read the effects."""

    def run(self, pb: dict[str, Any], args: dict[str, Any] | None = None) -> list[dict[str, Any]]: ...

    def store(self, pb: dict[str, Any]) -> None: ...

    def memory(self) -> list[dict[str, Any]]: ...

    def lines(self) -> list[str]: ...


class FakeWorld:
    def __init__(self) -> None:
        self.ports = FakePorts(tools={"building_look": lambda: "建物: 図書館 — 静かな図書館。"})

    def run(self, pb: dict[str, Any], args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        try:
            run_playbook(parse_playbook(pb), persona=MINA, building_id="library", pulse_id=uuid.uuid4().hex,
                         ports=self.ports, emit=events.append, args=args)
        except Exception:  # noqa: BLE001 - the runtime has emitted the error event; tests read events
            pass
        return events

    def store(self, pb: dict[str, Any]) -> None:
        playbook = parse_playbook(pb)
        self.ports.playbooks[playbook.name] = playbook

    def memory(self) -> list[dict[str, Any]]:
        return [{k: m[k] for k in ("role", "content", "tags")} for m in self.ports.memory]

    def lines(self) -> list[str]:
        return [text for building, _who, text in self.ports.lines if building == "library"]


class ManagerWorld:
    def __init__(self, manager: Any) -> None:
        self.manager = manager

    def run(self, pb: dict[str, Any], args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return list(self.manager.run_playbook(parse_playbook(pb), "mina", "library", args=args))

    def store(self, pb: dict[str, Any]) -> None:
        self.manager.playbooks.store(parse_playbook(pb))

    def memory(self) -> list[dict[str, Any]]:
        return [{k: m[k] for k in ("role", "content", "tags")}
                for m in reversed(self.manager.memory.list_messages("mina", limit=100))]

    def lines(self) -> list[str]:
        return [h.content for h in self.manager.history("library")]


@pytest.fixture(params=["fake_ports", "manager"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    if request.param == "fake_ports":
        yield FakeWorld()
    else:
        yield ManagerWorld(request.getfixturevalue("manager"))


def of(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def plain(tags: list[str]) -> set[str]:
    return {t for t in tags if not t.startswith("pulse:")}


def test_node_effects(world: World) -> None:
    events = world.run({"name": "effects", "nodes": [
        {"id": "sp", "type": "speak", "action": "こんにちは、ミナです。", "next": "sa"},
        {"id": "sa", "type": "say", "action": "(本をめくる音)", "next": "th"},
        {"id": "th", "type": "think", "action": "今日は静かだ。", "next": "me"},
        {"id": "me", "type": "memorize", "action": "覚えておくこと", "role": "user", "tags": ["note"], "next": None},
    ]})
    assert [(e["type"], e["text"]) for e in events if e["type"] in ("speak", "say", "think", "memorize")] == [
        ("speak", "こんにちは、ミナです。"), ("say", "(本をめくる音)"), ("think", "今日は静かだ。"),
        ("memorize", "覚えておくこと")]
    assert all(e["persona_id"] == "mina" and e["node"] for e in of(events, "speak") + of(events, "say"))
    mem = {m["content"]: m for m in world.memory()}
    assert set(mem) == {"こんにちは、ミナです。", "今日は静かだ。", "覚えておくこと"}  # say: no memory
    assert plain(mem["こんにちは、ミナです。"]["tags"]) == {"conversation"}
    assert plain(mem["今日は静かだ。"]["tags"]) == {"internal"}
    assert plain(mem["覚えておくこと"]["tags"]) == {"note"} and mem["覚えておくこと"]["role"] == "user"
    assert world.lines() == ["こんにちは、ミナです。", "(本をめくる音)"]  # think, memorize: not in the building


def test_subplay_returns_through_output_schema(world: World) -> None:
    world.store({"name": "counter", "input_schema": [{"name": "items", "required": True}],
                 "output_schema": [{"name": "count"}],
                 "nodes": [{"id": "n", "type": "set", "assignments": {"count": "=len({items})"}, "next": None}]})
    events = world.run({"name": "caller", "nodes": [
        {"id": "init", "type": "set", "assignments": {"xs": "=['a', 'b', 'c']"}, "next": "call"},
        {"id": "call", "type": "subplay", "playbook": "counter", "args": {"items": "{xs}"},
         "output_mapping": {"count": "n"}, "next": "say"},
        {"id": "say", "type": "say", "action": "{n} 冊", "next": None},
    ]})
    assert [e["text"] for e in of(events, "say")] == ["3 冊"]


def test_exec_runs_the_playbook_a_variable_names(world: World) -> None:
    world.store({"name": "greet", "input_schema": [{"name": "who", "required": True}],
                 "nodes": [{"id": "s", "type": "say", "action": "ようこそ、{who}さん", "next": None}]})
    events = world.run({"name": "dispatch", "nodes": [
        {"id": "init", "type": "set", "assignments": {"target": "greet", "call": {"who": "ソラ"}}, "next": "go"},
        {"id": "go", "type": "exec", "playbook_source": "target", "args_source": "call", "next": None},
    ]})
    (said,) = of(events, "say")
    assert said["text"] == "ようこそ、ソラさん" and said["playbook"] == "greet"


def test_branches_on_a_condition(world: World) -> None:
    pb = {"name": "branch", "input_schema": [{"name": "score", "required": True}], "nodes": [
        {"id": "check", "type": "pass",
         "conditional_next": {"field": "score", "operator": "gte", "cases": {"3": "high"}, "default": "low"}},
        {"id": "high", "type": "say", "action": "たくさん", "next": None},
        {"id": "low", "type": "say", "action": "すこし", "next": None},
    ]}
    assert of(world.run(pb, {"score": 5}), "say")[0]["text"] == "たくさん"
    assert of(world.run(pb, {"score": 1}), "say")[0]["text"] == "すこし"


def test_llm_and_tool_nodes_reach_the_model_and_the_tool(world: World) -> None:
    events = world.run({"name": "look_and_talk", "nodes": [
        {"id": "look", "type": "tool", "action": "building_look", "output_key": "seen", "next": "llm"},
        {"id": "llm", "type": "llm", "action": "見たもの: {seen}\n感想を話して", "next": "speak"},
        {"id": "speak", "type": "speak", "action": None, "next": None},
    ]})
    assert [e["tool"] for e in of(events, "tool_call")] == ["building_look"]
    assert "図書館" in of(events, "tool_result")[0]["result"]
    (spoken,) = of(events, "speak")
    assert OFFLINE_NOTE in spoken["text"]  # the offline model answered


def test_a_missing_variable_is_an_error_naming_it(world: World) -> None:
    events = world.run({"name": "broken", "nodes": [
        {"id": "s", "type": "set", "assignments": {"result": "={}"}, "next": "b"},
        {"id": "b", "type": "say", "action": "{result.missing_field}", "next": None},
    ]})
    (err,) = of(events, "error")
    assert err["kind"] == "playbook" and "missing_field" in err["message"] and "'b'" in err["message"]
    assert not of(events, "say")
