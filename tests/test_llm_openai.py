"""OpenAICompatModel against a fake OpenAI-compatible server (chat completions, SSE, images)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from saiverse.llm import ChatRequest, LLMError, OpenAICompatModel, RetryPolicy, resolve_model
from saiverse.llm.registry import clear_model_cache
from saiverse.settings import load_settings
from tests.fakes_llm import (
    FakeServer,
    Reply,
    openai_error,
    openai_image,
    openai_stream,
    openai_text,
    openai_tool_call,
)

KEY = "sk-fake-secret-0123456789abcdef"


@pytest.fixture()
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture()
def sleeps() -> list[float]:
    return []


@pytest.fixture()
def model(fake: FakeServer, sleeps: list[float]) -> Iterator[OpenAICompatModel]:
    policy = RetryPolicy(attempts=3, base_delay=0.01, sleep=sleeps.append)
    m = OpenAICompatModel("openai:llama3", base_url=f"{fake.url}/v1", api_key=KEY, timeout=5, retry=policy)
    yield m
    m.close()


def ask(text: str, **kw: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], **kw)  # type: ignore[arg-type]


def png_bytes(colour: tuple[int, int, int] = (0, 200, 0)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (6, 4), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_text_request_body_auth_and_usage(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.queue(openai_text("やあ、ボクだよ"))
    request = ChatRequest(messages=[{"role": "user", "content": "こんにちは", "name": "user_1"},
                                    {"role": "assistant", "content": "はい"},
                                    {"role": "user", "content": "元気？"}],
                          system="あなたはミナです。", temperature=0.5)
    result = model.generate(request)
    assert result.text == "やあ、ボクだよ"
    assert result.usage == {"input_tokens": 11, "output_tokens": 5}
    assert result.model == "openai:llama3"
    [req] = fake.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["Authorization"] == f"Bearer {KEY}"
    assert req.body["model"] == "llama3"
    assert req.body["temperature"] == 0.5
    assert req.body["messages"] == [
        {"role": "system", "content": "あなたはミナです。"},
        {"role": "user", "content": "こんにちは", "name": "user_1"},
        {"role": "assistant", "content": "はい"},
        {"role": "user", "content": "元気？"},
    ]
    assert "stream" not in req.body


def test_no_key_sends_no_authorization(fake: FakeServer) -> None:
    fake.queue(openai_text("ok"))
    with_no_key = OpenAICompatModel("openai:llama3", base_url=f"{fake.url}/v1/")
    assert with_no_key.generate(ask("hi")).text == "ok"
    assert "Authorization" not in fake.requests[0].headers
    assert fake.requests[0].path == "/v1/chat/completions"  # trailing slash of the base is tolerated


def test_stream_parses_sse_until_done(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.queue(openai_stream(["こん", "にち", "は"]))
    assert list(model.stream(ask("hi"))) == ["こん", "にち", "は"]
    assert fake.requests[0].body["stream"] is True


def test_stream_retries_429_before_streaming(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.queue(openai_error(429, "busy", retry_after="0"), openai_stream(["a", "b"]))
    assert "".join(model.stream(ask("hi"))) == "ab"
    assert len(fake.requests) == 2


def test_json_schema_response_format(fake: FakeServer, model: OpenAICompatModel) -> None:
    schema = {"title": "Route choice", "type": "object",
              "properties": {"playbook": {"type": "string", "enum": ["chat", "search"]},
                             "note": {"type": "string"}},
              "required": ["playbook"]}
    fake.queue(openai_text('{"playbook": "search", "note": null}'))
    result = model.generate(ask("調べて", response_schema=schema))
    assert result.data == {"playbook": "search"}  # the null added for strict mode is dropped again
    fmt = fake.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Route_choice" and fmt["json_schema"]["strict"] is True
    sent = fmt["json_schema"]["schema"]
    assert sent["additionalProperties"] is False
    assert sent["required"] == ["playbook", "note"]
    assert sent["properties"]["note"]["type"] == ["string", "null"]


def test_tool_call_with_json_string_arguments(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.queue(openai_tool_call("document_create", json.dumps({"name": "日記", "content": "晴れ"})))
    tools = [{"name": "document_create", "description": "文書を作る",
              "parameters": {"type": "object", "properties": {"name": {"type": "string"},
                                                              "content": {"type": "string"}}}}]
    result = model.generate(ask("日記を書いて", tools=tools))
    assert result.tool_calls == [{"name": "document_create", "arguments": {"name": "日記", "content": "晴れ"},
                                  "id": "call_abc"}]
    sent = fake.requests[0].body["tools"]
    assert sent[0]["type"] == "function" and sent[0]["function"]["name"] == "document_create"
    assert sent[0]["function"]["parameters"]["properties"]["content"] == {"type": "string"}


def test_image_input_as_data_url(fake: FakeServer, model: OpenAICompatModel, tmp_path: Path) -> None:
    data = png_bytes()
    path = tmp_path / "green.png"
    path.write_bytes(data)
    fake.queue(openai_text("緑の四角"))
    model.generate(ChatRequest(messages=[{"role": "user", "content": "何色？", "images": [str(path)]}]))
    content = fake.requests[0].body["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "何色？"}
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == data


def test_generate_image_b64(fake: FakeServer, model: OpenAICompatModel) -> None:
    data = png_bytes((10, 20, 30))
    fake.queue(openai_image(data))
    assert model.generate_image("夜の猫") == (data, "image/png")
    req = fake.requests[0]
    assert req.path == "/v1/images/generations"
    assert req.body["prompt"] == "夜の猫" and req.body["response_format"] == "b64_json"


def test_429_then_success(fake: FakeServer, model: OpenAICompatModel, sleeps: list[float]) -> None:
    fake.queue(openai_error(429, "rate", retry_after="0.05"), openai_text("ok"))
    assert model.generate(ask("hi")).text == "ok"
    assert len(fake.requests) == 2 and sleeps == [0.05]


def test_429_forever_is_rate_limited(fake: FakeServer, model: OpenAICompatModel, sleeps: list[float]) -> None:
    fake.fallback = openai_error(429, "rate")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "rate_limited" and info.value.retryable
    assert len(fake.requests) == 3 and sleeps == [0.01, 0.02]


def test_5xx_forever_is_server_error(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.fallback = openai_error(502, "bad gateway")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "server_error" and len(fake.requests) == 3


def test_404_is_bad_request_without_retry(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.fallback = openai_error(404, "model 'llama3' not found")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "bad_request" and not info.value.retryable
    assert "not found" in str(info.value) and len(fake.requests) == 1


def test_invalid_json_twice_raises(fake: FakeServer, model: OpenAICompatModel) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    fake.queue(openai_text('{"n": "three"}'), openai_text("three"))
    with pytest.raises(LLMError) as info:
        model.generate(ask("count", response_schema=schema))
    assert info.value.kind == "invalid_json" and "invalid JSON" in str(info.value)
    assert "「three」" in str(info.value)
    assert len(fake.requests) == 2


def test_timeout(fake: FakeServer) -> None:
    fake.fallback = Reply(json={}, delay=1.0)
    m = OpenAICompatModel("openai:x", base_url=fake.url, timeout=0.2,
                          retry=RetryPolicy(attempts=2, base_delay=0, sleep=lambda s: None))
    with pytest.raises(LLMError) as info:
        m.generate(ask("hi"))
    assert info.value.kind == "timeout" and len(fake.requests) == 2


def test_key_never_in_errors_or_repr(fake: FakeServer, model: OpenAICompatModel) -> None:
    fake.fallback = openai_error(401, f"Incorrect API key provided: {KEY}")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "bad_request"
    assert KEY not in str(info.value) and "***" in str(info.value)
    assert KEY not in repr(model)


def test_registry_openai_and_fallback(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_model_cache()
    model, notice = resolve_model("openai:llama3", load_settings())
    assert model.provider == "offline" and notice and "SAIVERSE_OPENAI_BASE_URL" in notice
    monkeypatch.setenv("SAIVERSE_OPENAI_BASE_URL", f"{fake.url}/v1")
    model, notice = resolve_model("openai:llama3", load_settings())
    assert notice is None and isinstance(model, OpenAICompatModel) and model.model_id == "llama3"
    fake.queue(openai_text("ok"))
    assert model.generate(ask("hi")).text == "ok"
