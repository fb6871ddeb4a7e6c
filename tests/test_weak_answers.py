"""A weak answer is not a failed turn (issue 32, item 6): an Ollama model found by `auto` that answers the
router's structured request with prose or broken JSON gets one retry with the format enforced, then the
offline rules decide; the persona still replies and the pulse's events and trace say what happened.

Real parts: a loopback server speaking Ollama's wire format (`/api/tags`, `/v1/chat/completions`), the
app's start-up look finding it with no cloud key, the `openai` SDK, and a pulse through the manager and
the LangGraph runtime.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from saiverse.llm.registry import clear_model_cache
from saiverse.llm.servers import forget_servers
from saiverse.llm.structured import SERVER_MODES
from saiverse.manager import SAIVerseManager
from tests.support.fakes_hub import FakeModelServer
from tests.support.model_servers import closed_port, point_at

SAY = "こんにちは、ミナです。今日は何を読みましょうか。"
PROSE = "ユーザーは挨拶をしているので、普通に会話するのがよいと思います。basic_chat を選びます。"
BROKEN = '{"playbook": "basic_chat", "args": {'
ROUTE = json.dumps({"playbook": "basic_chat", "args": {}})


@pytest.fixture(autouse=True)
def _auto(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")  # `auto`, as a new user has it; no cloud key is set
    monkeypatch.setenv("SAIVERSE_DETECT_SERVERS", "1")
    forget_servers()
    clear_model_cache()
    SERVER_MODES.forget()
    yield
    forget_servers()
    clear_model_cache()
    SERVER_MODES.forget()


def fmt(body: dict[str, Any]) -> str:
    """The structured-output format a request asked for (`json_schema`, `json_object`, `tool`, or ``)."""
    if body.get("tool_choice"):
        return "tool"
    return str((body.get("response_format") or {}).get("type") or "")


def decisions(server: FakeModelServer) -> list[dict[str, Any]]:
    """The bodies of the decision requests the server received (structured output asked for)."""
    return [r.body for r in server.requests if r.method == "POST" and fmt(r.body)]


def chat(monkeypatch: pytest.MonkeyPatch, make_manager: Callable[..., SAIVerseManager],
         decide: Callable[[dict[str, Any]], str]) -> tuple[FakeModelServer, SAIVerseManager, list[list[dict]]]:
    """A found Ollama that decides with `decide`, a manager on `auto`, and two user turns."""
    server = FakeModelServer("ollama", ["qwen2.5:3b"], say=SAY, decide=decide).__enter__()
    point_at(monkeypatch, server.url, closed_port(), closed_port())
    manager = make_manager()
    assert manager.server_scan is not None
    manager.server_scan.join(10)
    turns = [list(manager.handle_user_input("library", text, persona_id="mina")) for text in ("こんにちは", "元気？")]
    return server, manager, turns


def reply_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    speak = [e for e in events if e["type"] == "speak"]
    assert speak, events
    return speak[-1]


@pytest.mark.parametrize(("decide", "problem"), [(lambda body: PROSE, "prose"), (lambda body: BROKEN, "broken_json")],
                         ids=["prose", "broken-json"])
def test_a_weak_ollama_model_still_replies_and_the_rules_decide(
        monkeypatch: pytest.MonkeyPatch, make_manager: Callable[..., SAIVerseManager],
        decide: Callable[[dict[str, Any]], str], problem: str) -> None:
    server, manager, turns = chat(monkeypatch, make_manager, decide)
    try:
        first = turns[0]
        assert first[-1]["type"] == "pulse_end" and first[-1]["status"] == "ok", first
        assert not [e for e in first if e["type"] == "error"]
        speak = reply_of(first)
        assert speak["text"] == SAY and speak["model"] == "ollama:qwen2.5:3b"  # the persona's own model replied
        [note] = [e for e in first if e["type"] == "notice" and e.get("kind") == "decision_fallback"]
        assert note["model"] == "ollama:qwen2.5:3b" and note["problem"] == problem
        assert note["retried_as"] == "json_object" and note["decided_by"] == "offline"
        assert "規則" in note["text"] and note["node"] == "route"
        record = manager.pulses.record(first[-1]["pulse_id"])
        assert record is not None and "sub_router_user.route:decision_fallback" in record.trace
        # Each turn: the first try as json_schema, then exactly one retry, enforced as json_object with the
        # schema, at temperature 0, naming the problem; nothing more reached the server.
        asked = decisions(server)
        assert [fmt(b) for b in asked] == ["json_schema", "json_object"] * 2
        retry = asked[1]
        assert retry["response_format"]["schema"]["properties"]["playbook"]["enum"][0]
        assert retry["temperature"] == 0.0 and retry["messages"][-2] == {"role": "assistant", "content": decide({})}
        assert "JSON" in retry["messages"][-1]["content"] and "JSON Schema" in retry["messages"][-1]["content"]
        assert turns[1][-1]["status"] == "ok" and reply_of(turns[1])["text"] == SAY
    finally:
        server.__exit__(None, None, None)


def test_the_retry_in_json_object_works_and_the_server_keeps_it(
        monkeypatch: pytest.MonkeyPatch, make_manager: Callable[..., SAIVerseManager]) -> None:
    # An older Ollama ignores `json_schema` on /v1 (the model writes prose) but enforces `json_object`.
    server, manager, turns = chat(monkeypatch, make_manager,
                                  lambda body: ROUTE if fmt(body) == "json_object" else PROSE)
    try:
        for events in turns:
            assert events[-1]["status"] == "ok" and reply_of(events)["text"] == SAY
            assert not [e for e in events if e.get("kind") == "decision_fallback"]
        record = manager.pulses.record(turns[0][-1]["pulse_id"])
        assert record is not None and not any("decision_fallback" in t for t in record.trace)
        # One retry on the first turn; from then on the server is asked in json_object at once.
        assert [fmt(b) for b in decisions(server)] == ["json_schema", "json_object", "json_object"]
    finally:
        server.__exit__(None, None, None)
