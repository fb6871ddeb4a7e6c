"""AnthropicModel (official `anthropic` SDK) against a fake server speaking the Messages API and its SSE."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from saiverse.llm import ChatRequest, LLMError, RetryPolicy, resolve_model
from saiverse.llm.anthropic_sdk import AnthropicModel
from saiverse.llm.registry import clear_model_cache, model_for
from saiverse.settings import load_settings
from tests.support.fakes_llm import (
    FakeServer,
    anthropic_error,
    anthropic_stream,
    anthropic_text,
    anthropic_tool_use,
)

KEY = "sk-ant-fake-0123456789abcdef"
ROUTE = {"type": "object", "properties": {"playbook": {"type": "string", "enum": ["chat", "search"]}},
         "required": ["playbook"]}


@pytest.fixture()
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture()
def sleeps() -> list[float]:
    return []


@pytest.fixture()
def model(fake: FakeServer, sleeps: list[float]) -> Iterator[AnthropicModel]:
    m = AnthropicModel("claude-sonnet-4-6", model_id="claude-sonnet-4-6", api_key=KEY, base_url=fake.url,
                       timeout=5, retry=RetryPolicy(attempts=3, base_delay=0.01, sleep=sleeps.append))
    yield m
    m.close()


def ask(text: str, **kw: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], **kw)  # type: ignore[arg-type]


def test_messages_request_wire_format_and_usage(fake: FakeServer, model: AnthropicModel) -> None:
    fake.queue(anthropic_text("こんにちは、ミナです"))
    request = ChatRequest(messages=[{"role": "assistant", "content": "いらっしゃい"},
                                    {"role": "user", "content": "こんにちは"},
                                    {"role": "system", "content": "（メモ）"},
                                    {"role": "user", "content": "元気？"}],
                          system="あなたはミナです。")
    result = model.generate(request)
    assert result.text == "こんにちは、ミナです" and result.model == "claude-sonnet-4-6"
    assert result.usage == {"input_tokens": 13, "output_tokens": 4}
    [req] = fake.requests
    assert req.path == "/v1/messages"
    assert req.headers["authorization"] == f"Bearer {KEY}" and "anthropic-version" in req.headers
    body = req.body
    assert body["model"] == "claude-sonnet-4-6" and body["max_tokens"] == 2048
    assert body["system"] == "あなたはミナです。\n\n（メモ）"
    # The conversation opens with the user and turns alternate (same-role turns are merged).
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][2]["content"] == [{"type": "text", "text": "こんにちは"}, {"type": "text", "text": "元気？"}]


def test_stream_reads_text_deltas(fake: FakeServer, model: AnthropicModel) -> None:
    fake.queue(anthropic_stream(["こん", "にち", "は"]))
    assert list(model.stream(ask("hi"))) == ["こん", "にち", "は"]
    assert fake.requests[0].body["stream"] is True


def test_tool_use_becomes_a_tool_call(fake: FakeServer, model: AnthropicModel) -> None:
    fake.queue(anthropic_tool_use("document_create", {"name": "日記", "content": "晴れ"}))
    tools = [{"name": "document_create", "description": "文書を作る",
              "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}]
    result = model.generate(ask("日記を書いて", tools=tools))
    assert result.tool_calls == [{"name": "document_create", "arguments": {"name": "日記", "content": "晴れ"},
                                  "id": "toolu_01"}]
    assert fake.requests[0].body["tools"][0]["input_schema"]["properties"] == {"name": {"type": "string"}}


def test_structured_output_as_output_format(fake: FakeServer, model: AnthropicModel) -> None:
    fake.queue(anthropic_text('{"playbook": "search"}'))
    assert model.generate(ask("調べて", response_schema=ROUTE)).data == {"playbook": "search"}
    fmt = fake.requests[0].body["output_config"]["format"]
    assert fmt["type"] == "json_schema" and fmt["schema"]["additionalProperties"] is False
    assert fake.requests[0].body["max_tokens"] == 768


def test_refused_output_format_falls_back_to_a_forced_tool_and_is_remembered(fake: FakeServer) -> None:
    m = AnthropicModel("claude-3-5-haiku", model_id="claude-3-5-haiku", api_key=KEY, base_url=fake.url)
    fake.queue(anthropic_error(400, "output_config.format: not supported for this model"),
               anthropic_tool_use("answer", {"playbook": "chat"}), anthropic_tool_use("answer", {"playbook": "search"}))
    assert m.generate(ask("話そう", response_schema=ROUTE)).data == {"playbook": "chat"}
    assert m.generate(ask("調べて", response_schema=ROUTE)).data == {"playbook": "search"}
    bodies = [r.body for r in fake.requests]
    assert "output_config" in bodies[0] and "output_config" not in bodies[2]  # asked once, then remembered
    assert bodies[1]["tool_choice"] == {"type": "tool", "name": "answer"}


def test_open_objects_go_straight_to_the_forced_tool(fake: FakeServer, model: AnthropicModel) -> None:
    router = {"type": "object", "properties": {"playbook": {"type": "string"}, "args": {"type": "object"}},
              "required": ["playbook", "args"]}
    fake.queue(anthropic_tool_use("answer", {"playbook": "chat", "args": {"q": "x"}}))
    assert model.generate(ask("x", response_schema=router)).data == {"playbook": "chat", "args": {"q": "x"}}
    assert "output_config" not in fake.requests[0].body


def test_invalid_json_is_repaired_once(fake: FakeServer, model: AnthropicModel) -> None:
    fake.queue(anthropic_text('{"playbook": "dance"}'), anthropic_text('{"playbook": "chat"}'))
    assert model.generate(ask("x", response_schema=ROUTE)).data == {"playbook": "chat"}
    assert fake.requests[1].body["messages"][-2]["role"] == "assistant"


def test_image_input_is_base64(fake: FakeServer, model: AnthropicModel, tmp_path: Path) -> None:
    path = tmp_path / "g.png"
    Image.new("RGB", (4, 4), (0, 200, 0)).save(path)
    fake.queue(anthropic_text("緑"))
    model.generate(ChatRequest(messages=[{"role": "user", "content": "何色？", "images": [str(path)]}]))
    block = fake.requests[0].body["messages"][0]["content"][0]
    assert block["type"] == "image" and block["source"]["media_type"] == "image/png"


def test_overloaded_then_success_is_retried(fake: FakeServer, model: AnthropicModel, sleeps: list[float]) -> None:
    fake.queue(anthropic_error(529, "Overloaded", kind="overloaded_error"), anthropic_text("ok"))
    assert model.generate(ask("hi")).text == "ok" and len(sleeps) == 1


@pytest.mark.parametrize(("status", "message", "kind"), [
    (401, f"invalid x-api-key {KEY}", "auth"),
    (404, "model: claude-nope", "not_found"),
    (400, "Your credit balance is too low to access the Anthropic API", "bad_request"),
    (429, "You have exceeded your quota", "quota"),
])
def test_clear_errors_without_retry_and_without_the_key(fake: FakeServer, model: AnthropicModel, status: int,
                                                        message: str, kind: str) -> None:
    fake.fallback = anthropic_error(status, message)
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == kind and not info.value.retryable
    assert KEY not in str(info.value) and len(fake.requests) == 1


def test_rate_limit_forever(fake: FakeServer, model: AnthropicModel) -> None:
    fake.fallback = anthropic_error(429, "rate limited", kind="rate_limit_error", retry_after="0")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "rate_limited" and info.value.retryable and len(fake.requests) == 3


def test_registry_claude_names_and_drawing_elsewhere(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_model_cache()
    model, notice = resolve_model("claude-sonnet-4-5", load_settings())
    assert model.provider == "offline" and notice and "ANTHROPIC_API_KEY" in notice
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    settings = load_settings()
    model, notice = resolve_model("claude-sonnet-4-5", settings)
    assert notice is None and model.provider == "anthropic"
    fake.queue(anthropic_text("はい"))
    assert model.generate(ask("hi")).text == "はい"
    # Claude cannot draw: without another key the picture is drawn procedurally, never an error.
    drawer, _notice = model_for(settings, {"default_model": "claude-sonnet-4-5"}, "image")
    assert drawer.provider == "offline" and drawer.generate_image("海")[1] == "image/png"
