"""The one retry of a decision (saiverse/llm/structured.py) and the rules deciding after it (sea/decisions.py),
one part at a time: `answer_json` with a scripted call, the `openai` SDK against a fake OpenAI-compatible
server, and the SEA runtime through `FakePorts`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from chat import ChatModel, ChatRequest, ChatResult, InvalidAnswer
from saiverse.llm import RetryPolicy
from saiverse.llm.offline import OfflineModel
from saiverse.llm.openai_sdk import OpenAIModel
from saiverse.llm.structured import Enforced, ModeMemory, answer_json
from sea.playbook import parse_playbook
from sea.ports import PersonaContext
from sea.runtime import run_playbook
from tests.support.fakes_llm import FakeServer, openai_error, openai_text, openai_tool_call
from tests.support.fakes_ports import FakePorts
from tests.support.models import ScriptedModel

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"playbook": {"type": "string", "enum": ["basic_chat", "move"]}},
                          "required": ["playbook"]}
GOOD = '{"playbook": "basic_chat"}'
PROSE = "挨拶なので basic_chat がよいと思います。"
MINA = PersonaContext(persona_id="mina", name="ミナ", avatar="📚", system_prompt="図書館の司書。", building_id="library")


def ask(**kw: Any) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "こんにちは"}], **kw)


# -- answer_json ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("first", "problem"), [(PROSE, "prose"), ('{"playbook": "basic', "broken_json"),
                                                ('{"playbook": "dance"}', "schema")])
def test_one_retry_names_the_problem_and_enforces_the_format(first: str, problem: str) -> None:
    sent: list[tuple[str, ChatRequest]] = []
    problems: list[str] = []
    valid: list[bool] = []

    def call(request: ChatRequest) -> ChatResult:
        sent.append(("first", request))
        return ChatResult(text=first)

    def retried(request: ChatRequest) -> ChatResult:
        sent.append(("retry", request))
        return ChatResult(text=GOOD)

    def enforce(what: str) -> Enforced:
        problems.append(what)
        return Enforced(retried, "json_object", lambda: valid.append(True))

    result = answer_json(call, ask(response_schema=SCHEMA), retry=enforce)
    assert result.data == {"playbook": "basic_chat"} and problems == [problem] and valid == [True]
    assert [k for k, _r in sent] == ["first", "retry"]
    retry = sent[1][1]
    assert retry.temperature == 0.0 and retry.messages[-2] == {"role": "assistant", "content": first}
    assert "JSON Schema" in retry.messages[-1]["content"] and '"enum"' in retry.messages[-1]["content"]


def test_still_wrong_after_the_retry_raises_invalid_answer_saying_what_and_how() -> None:
    calls: list[ChatRequest] = []

    def call(request: ChatRequest) -> ChatResult:
        calls.append(request)
        return ChatResult(text=PROSE)

    with pytest.raises(InvalidAnswer) as info:
        answer_json(call, ask(response_schema=SCHEMA))
    assert len(calls) == 2 and info.value.kind == "invalid_json"
    assert info.value.problem == "prose" and info.value.retried_as == ""


# -- an OpenAI-compatible server through the SDK -------------------------------------------------------

@pytest.fixture()
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture()
def model(fake: FakeServer) -> Iterator[OpenAIModel]:
    m = OpenAIModel("ollama:qwen2.5:3b", model_id="qwen2.5:3b", base_url=f"{fake.url}/v1", api_key=None, timeout=5,
                    retry=RetryPolicy(attempts=2, base_delay=0, sleep=lambda s: None), compatible=True,
                    modes=ModeMemory())
    yield m
    m.close()


def formats(fake: FakeServer) -> list[str]:
    return [str((r.body.get("response_format") or {}).get("type") or ("tool" if r.body.get("tool_choice") else ""))
            for r in fake.requests]


def test_json_against_the_schema_is_retried_in_the_same_enforced_format(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_text('{"playbook": "dance"}'), openai_text('{"playbook": "dance"}'))
    with pytest.raises(InvalidAnswer) as info:
        model.generate(ask(response_schema=SCHEMA))
    assert info.value.problem == "schema" and info.value.retried_as == "json_schema"
    assert formats(fake) == ["json_schema", "json_schema"]


def test_a_server_refusing_json_object_gets_the_retry_as_before(fake: FakeServer, model: OpenAIModel) -> None:
    # LM Studio accepts only `json_schema` and `text`: the retry's json_object is refused, so it goes as before.
    fake.queue(openai_text(PROSE), openai_error(400, "'response_format.type' must be 'json_schema' or 'text'"),
               openai_text(PROSE))
    with pytest.raises(InvalidAnswer) as info:
        model.generate(ask(response_schema=SCHEMA))
    assert info.value.retried_as == "json_schema"  # how the retry really went
    assert formats(fake) == ["json_schema", "json_object", "json_schema"]
    fake.queue(openai_text(PROSE), openai_error(400, "'response_format.type' must be 'json_schema' or 'text'"),
               openai_text(GOOD))
    assert model.generate(ask(response_schema=SCHEMA)).data == {"playbook": "basic_chat"}
    fake.queue(openai_text(GOOD))
    model.generate(ask(response_schema=SCHEMA))
    assert formats(fake)[-1] == "json_schema"  # nothing was learnt from the refusal of the retry


def test_broken_json_in_the_forced_answer_tool_is_retried(fake: FakeServer, model: OpenAIModel) -> None:
    modes = ModeMemory()
    modes.refused(model.base_url, "json_schema")
    modes.refused(model.base_url, "json_object")  # a server that only takes a forced tool call
    model._modes = modes
    fake.queue(openai_tool_call("answer", '{"playbook": "basic'), openai_tool_call("answer", GOOD))
    assert model.generate(ask(response_schema=SCHEMA)).data == {"playbook": "basic_chat"}
    assert formats(fake) == ["tool", "tool"] and fake.requests[1].body["temperature"] == 0.0


def test_a_tool_call_with_broken_arguments_gets_one_retry(fake: FakeServer, model: OpenAIModel) -> None:
    tools = [{"name": "building_move", "description": "移動", "parameters": {"type": "object", "properties": {}}}]
    fake.queue(openai_tool_call("building_move", '{"to": '), openai_tool_call("building_move", '{"to": "cafe"}'))
    result = model.generate(ask(tools=tools))
    assert result.tool_calls[0]["arguments"] == {"to": "cafe"} and len(fake.requests) == 2
    assert fake.requests[1].body["temperature"] == 0.0 and "JSON" in fake.requests[1].body["messages"][0]["content"]
    fake.queue(openai_tool_call("building_move", "{"), openai_tool_call("building_move", "{"))
    with pytest.raises(InvalidAnswer) as info:
        model.generate(ask(tools=tools))
    assert info.value.retried_as == "tool" and info.value.problem == "broken_json" and len(fake.requests) == 4


# -- the SEA runtime: the rules decide -----------------------------------------------------------------

ROUTER = {
    "name": "route_then_say", "description": "選んで話す",
    "nodes": [
        {"id": "route", "type": "llm", "action": "{input}", "output_key": "choice",
         "response_schema": {"type": "object", "properties": {
             "playbook": {"type": "string", "enum": ["basic_chat", "building_move"],
                          "x-keywords": {"basic_chat": ["こんにちは"], "building_move": ["行って"]}}},
             "required": ["playbook"]},
         "next": "say"},
        {"id": "say", "type": "speak", "action": "選んだのは {choice.playbook}", "next": None},
    ],
    "start_node": "route",
    "input_schema": [{"name": "input"}],
}


def run(ports: FakePorts) -> tuple[list[dict[str, Any]], list[str], Exception | None]:
    events: list[dict[str, Any]] = []
    trace: list[str] = []
    try:
        run_playbook(parse_playbook(ROUTER), persona=MINA, building_id="library", pulse_id=uuid.uuid4().hex,
                     ports=ports, emit=events.append, args={"input": "こんにちは"}, trace=trace)
    except Exception as exc:  # noqa: BLE001 - the runtime emitted the error event; the test reads both
        return events, trace, exc
    return events, trace, None


def weak(problem: str = "prose") -> ScriptedModel:
    model = ScriptedModel()
    model.name = "ollama:qwen2.5:3b"
    model.enqueue(error=InvalidAnswer("モデルが不正な JSON を返しました", problem=problem, retried_as="json_object"))
    return model


def test_the_rules_decide_and_the_pulse_says_so() -> None:
    events, trace, failure = run(FakePorts(model=weak()))
    assert failure is None and not [e for e in events if e["type"] == "error"]
    [note] = [e for e in events if e["type"] == "notice"]
    assert note["kind"] == "decision_fallback" and note["model"] == "ollama:qwen2.5:3b" and note["problem"] == "prose"
    assert note["retried_as"] == "json_object" and note["decided_by"] == "offline" and "文章" in note["text"]
    assert "route_then_say.route:decision_fallback" in trace
    assert [e["text"] for e in events if e["type"] == "speak"] == ["選んだのは basic_chat"]  # the keyword rule


class NoRules(FakePorts):
    def decision_rules(self) -> ChatModel:
        class Unable(OfflineModel):
            def generate(self, request: ChatRequest) -> ChatResult:
                return ChatResult(text="", data=None, model="offline")
        return Unable()


def test_with_no_rule_the_pulse_ends_model_invalid_json_in_japanese() -> None:
    events, _trace, failure = run(NoRules(model=weak("broken_json")))
    assert isinstance(failure, InvalidAnswer)
    [error] = [e for e in events if e["type"] == "error"]
    assert error["kind"] == "model_invalid_json" and error["message"].startswith("ollama:qwen2.5:3b の答えを")
    assert "別のモデル" in error["message"]


def test_a_choice_of_tools_the_rules_decide_and_the_model_still_writes() -> None:
    model = weak("broken_json")
    model.enqueue("ここで話します。")  # what the model writes once no tool is offered
    ports = FakePorts(model=model, tools={"building_move": lambda **kw: "移動しました"})
    pb = {"name": "tools", "description": "道具を選ぶ", "start_node": "pick", "input_schema": [{"name": "input"}],
          "nodes": [{"id": "pick", "type": "llm", "action": "{input}", "available_tools": ["building_move"],
                     "speak": True, "next": None}]}
    events: list[dict[str, Any]] = []
    run_playbook(parse_playbook(pb), persona=MINA, building_id="library", pulse_id="p1", ports=ports,
                 emit=events.append, args={"input": "こんにちは"})
    assert [e["kind"] for e in events if e["type"] == "notice"] == ["decision_fallback"]
    assert [e["text"] for e in events if e["type"] == "speak"] == ["ここで話します。"]
    assert model.history[-1].tools == []
    assert json.dumps(ROUTER)  # the router playbook stays plain JSON, as playbooks/*.json are


def test_a_rambling_answer_is_sent_back_clipped() -> None:
    sent: list[ChatRequest] = []

    def call(request: ChatRequest) -> ChatResult:
        sent.append(request)
        return ChatResult(text="考え中。" * 2000 if len(sent) == 1 else GOOD)

    assert answer_json(call, ask(response_schema=SCHEMA)).data == {"playbook": "basic_chat"}
    echoed = sent[1].messages[-2]["content"]
    assert len(echoed) == 1001 and echoed.endswith("…")


def test_the_chat_shows_the_fallback_once_per_session() -> None:
    from ui.chat import EventRenderer
    from ui.i18n import Labels

    once: set[str] = set()
    shown: list[Any] = []
    for _pulse in range(2):  # two sends of the same session: a new renderer each, the session's set shared
        renderer = EventRenderer(messages=[], labels=Labels("ja"), once_shown=once)
        renderer.apply({"type": "notice", "kind": "decision_fallback", "text": "規則で判断しました"})
        shown += renderer.messages
    assert len(shown) == 1 and "規則で判断しました" in str(shown[0])
