"""OpenAIModel (official `openai` SDK) against a fake server speaking OpenAI's wire format: OpenAI itself
and OpenAI-compatible servers (negotiated structured output, max_tokens, no retry of invalid requests)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from saiverse.llm import ChatRequest, LLMError, RetryPolicy, resolve_model
from saiverse.llm.openai_sdk import OpenAIModel
from saiverse.llm.registry import clear_model_cache
from saiverse.llm.structured import ModeMemory
from saiverse.settings import load_settings
from tests.support.fakes_llm import (
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
def model(fake: FakeServer, sleeps: list[float]) -> Iterator[OpenAIModel]:
    policy = RetryPolicy(attempts=3, base_delay=0.01, sleep=sleeps.append)
    m = OpenAIModel("openai:llama3", model_id="llama3", base_url=f"{fake.url}/v1", api_key=KEY, timeout=5,
                    retry=policy, compatible=True, modes=ModeMemory())
    yield m
    m.close()


@pytest.fixture()
def official(fake: FakeServer, sleeps: list[float]) -> Iterator[OpenAIModel]:
    policy = RetryPolicy(attempts=3, base_delay=0.01, sleep=sleeps.append)
    m = OpenAIModel("gpt-4.1", model_id="gpt-4.1", base_url=f"{fake.url}/v1", api_key=KEY, timeout=5, retry=policy)
    yield m
    m.close()


def ask(text: str, **kw: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], **kw)  # type: ignore[arg-type]


def png_bytes(colour: tuple[int, int, int] = (0, 200, 0)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (6, 4), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_text_request_body_auth_and_usage(fake: FakeServer, model: OpenAIModel) -> None:
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
    assert req.body["max_tokens"] == 2048  # every request carries an answer length
    assert req.body["messages"] == [
        {"role": "system", "content": "あなたはミナです。"},
        {"role": "user", "content": "こんにちは", "name": "user_1"},
        {"role": "assistant", "content": "はい"},
        {"role": "user", "content": "元気？"},
    ]
    assert "stream" not in req.body


def test_no_key_sends_a_placeholder_never_another_key(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-official-must-not-leak")  # the official key is not the server's
    fake.queue(openai_text("ok"))
    with_no_key = OpenAIModel("openai:llama3", model_id="llama3", api_key=None, base_url=f"{fake.url}/v1/",
                              compatible=True)
    assert with_no_key.generate(ask("hi")).text == "ok"
    assert fake.requests[0].headers["Authorization"] == "Bearer no-key"
    assert fake.requests[0].path == "/v1/chat/completions"  # trailing slash of the base is tolerated


def test_stream_parses_sse_until_done(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_stream(["こん", "にち", "は"]))
    assert list(model.stream(ask("hi"))) == ["こん", "にち", "は"]
    assert fake.requests[0].body["stream"] is True


def test_stream_retries_429_before_streaming(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_error(429, "busy", retry_after="0"), openai_stream(["a", "b"]))
    assert "".join(model.stream(ask("hi"))) == "ab"
    assert len(fake.requests) == 2


def test_json_schema_response_format(fake: FakeServer, model: OpenAIModel) -> None:
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


def test_tool_call_with_json_string_arguments(fake: FakeServer, model: OpenAIModel) -> None:
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


def test_image_input_as_data_url(fake: FakeServer, model: OpenAIModel, tmp_path: Path) -> None:
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


def test_generate_image_b64(fake: FakeServer, model: OpenAIModel) -> None:
    data = png_bytes((10, 20, 30))
    fake.queue(openai_image(data))
    assert model.generate_image("夜の猫") == (data, "image/png")
    req = fake.requests[0]
    assert req.path == "/v1/images/generations"
    assert req.body["prompt"] == "夜の猫" and req.body["response_format"] == "b64_json"


def test_429_then_success(fake: FakeServer, model: OpenAIModel, sleeps: list[float]) -> None:
    fake.queue(openai_error(429, "rate", retry_after="0.05"), openai_text("ok"))
    assert model.generate(ask("hi")).text == "ok"
    assert len(fake.requests) == 2 and sleeps == [0.05]


def test_429_forever_is_rate_limited(fake: FakeServer, model: OpenAIModel, sleeps: list[float]) -> None:
    fake.fallback = openai_error(429, "rate")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "rate_limited" and info.value.retryable
    assert len(fake.requests) == 3 and sleeps == [0.01, 0.02]


def test_5xx_forever_is_server_error(fake: FakeServer, model: OpenAIModel) -> None:
    fake.fallback = openai_error(502, "bad gateway")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "server_error" and len(fake.requests) == 3


def test_404_says_no_such_model_without_retry(fake: FakeServer, model: OpenAIModel) -> None:
    fake.fallback = openai_error(404, "model 'llama3' not found")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "not_found" and not info.value.retryable
    assert "llama3" in str(info.value) and "見つかりません" in str(info.value) and len(fake.requests) == 1


@pytest.mark.parametrize(("reply", "kind", "words"), [
    (openai_error(401, "Incorrect API key provided"), "auth", "API キー"),
    (Reply(status=429, json={"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                                       "code": "insufficient_quota"}}), "quota", "利用枠"),
    (openai_error(400, "max_tokens is too large"), "bad_request", "受け付けられませんでした"),
    (Reply(status=500, json={"error": {"message": "Input should be 'text' or 'json_object'"}}), "bad_request",
     "Input should be"),
])
def test_clear_errors_never_retried(fake: FakeServer, model: OpenAIModel, reply: Reply, kind: str,
                                    words: str) -> None:
    fake.fallback = reply
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == kind and not info.value.retryable and words in str(info.value)
    assert len(fake.requests) == 1  # a request rejected as invalid is never sent again


def test_invalid_json_twice_raises(fake: FakeServer, model: OpenAIModel) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    fake.queue(openai_text('{"n": "three"}'), openai_text("three"))
    with pytest.raises(LLMError) as info:
        model.generate(ask("count", response_schema=schema))
    assert info.value.kind == "invalid_json" and "invalid JSON" in str(info.value)
    assert "「three」" in str(info.value)
    assert len(fake.requests) == 2


def test_timeout(fake: FakeServer) -> None:
    fake.fallback = Reply(json={}, delay=1.0)
    m = OpenAIModel("openai:x", model_id="x", api_key=None, base_url=fake.url, timeout=0.2, compatible=True,
                    retry=RetryPolicy(attempts=2, base_delay=0, sleep=lambda s: None))
    with pytest.raises(LLMError) as info:
        m.generate(ask("hi"))
    assert info.value.kind == "timeout" and len(fake.requests) == 2


def test_key_never_in_errors_or_repr(fake: FakeServer, model: OpenAIModel) -> None:
    fake.fallback = openai_error(401, f"Incorrect API key provided: {KEY}")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "auth"
    assert KEY not in str(info.value) and "***" in str(info.value)
    assert KEY not in repr(model)


def test_registry_openai_and_fallback(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_model_cache()
    model, notice = resolve_model("openai:llama3", load_settings())
    assert model.provider == "offline" and notice and "SAIVERSE_OPENAI_BASE_URL" in notice
    monkeypatch.setenv("SAIVERSE_OPENAI_BASE_URL", f"{fake.url}/v1")
    model, notice = resolve_model("openai:llama3", load_settings())
    assert notice is None and isinstance(model, OpenAIModel) and model.model_id == "llama3"
    assert model.provider == "openai-compatible"
    fake.queue(openai_text("ok"))
    assert model.generate(ask("hi")).text == "ok"


# -- OpenAI-compatible servers: structured output negotiated once per server --------------------------

ROUTE = {"type": "object", "properties": {"playbook": {"type": "string", "enum": ["chat", "search"]}},
         "required": ["playbook"]}


def test_llama_cpp_style_server_steps_down_to_json_object_once_and_remembers(fake: FakeServer,
                                                                            model: OpenAIModel) -> None:
    refusal = Reply(status=500, json={"error": {"message": "1 validation error: response_format.type: "
                                                           "Input should be 'text' or 'json_object'"}})
    fake.queue(refusal, openai_text('{"playbook": "search"}'), openai_text('{"playbook": "chat"}'))
    assert model.generate(ask("調べて", response_schema=ROUTE)).data == {"playbook": "search"}
    assert model.generate(ask("話そう", response_schema=ROUTE)).data == {"playbook": "chat"}
    sent = [r.body.get("response_format", {}).get("type") for r in fake.requests]
    assert sent == ["json_schema", "json_object", "json_object"]  # refused once, then remembered
    assert fake.requests[1].body["response_format"]["schema"]["properties"]["playbook"]["enum"] == ["chat", "search"]
    assert "JSON Schema" in fake.requests[1].body["messages"][0]["content"]  # the schema in words too


def test_server_without_response_format_gets_a_forced_tool_call(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_error(400, "response_format json_schema is not supported"),
               openai_error(400, "unknown field: response_format"),
               openai_tool_call("answer", json.dumps({"playbook": "search"})))
    assert model.generate(ask("調べて", response_schema=ROUTE)).data == {"playbook": "search"}
    last = fake.requests[-1].body
    assert last["tool_choice"] == {"type": "function", "function": {"name": "answer"}}
    assert "response_format" not in last


def test_instructions_mode_repairs_a_wrong_answer_once(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_error(400, "response_format is not supported"), openai_error(400, "json_object unsupported"),
               openai_error(400, "tool_choice is not supported"),
               openai_text('{"playbook": "dance"}'), openai_text('{"playbook": "chat"}'))
    assert model.generate(ask("話そう", response_schema=ROUTE)).data == {"playbook": "chat"}
    repair = fake.requests[-1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"playbook": "dance"}'}
    assert "スキーマに合っていません" in repair[-1]["content"] and "dance" in repair[-1]["content"]


def test_max_tokens_per_purpose(fake: FakeServer, model: OpenAIModel) -> None:
    fake.queue(openai_text("短い要約"), openai_text('{"playbook": "chat"}'), openai_stream(["やあ"]),
               openai_text("第一章…"))
    model.generate(ask("要約して", max_tokens=400))
    model.generate(ask("話そう", response_schema=ROUTE))
    list(model.stream(ask("こんにちは")))
    model.generate(ask("第一章を書いて"))
    assert [r.body["max_tokens"] for r in fake.requests] == [400, 768, 1024, 2048]


# -- OpenAI itself ----------------------------------------------------------------------------------------

def test_official_openai_strict_schema_and_max_completion_tokens(fake: FakeServer, official: OpenAIModel) -> None:
    fake.queue(openai_text('{"playbook": "search"}'))
    assert official.generate(ask("調べて", response_schema=ROUTE)).data == {"playbook": "search"}
    body = fake.requests[0].body
    assert body["model"] == "gpt-4.1" and body["max_completion_tokens"] == 768 and "max_tokens" not in body
    assert body["response_format"]["json_schema"]["strict"] is True
    router = {"type": "object", "properties": {"playbook": {"type": "string"}, "args": {"type": "object"}},
              "required": ["playbook", "args"]}
    fake.queue(openai_text('{"playbook": "chat", "args": {"q": 1}}'))
    assert official.generate(ask("x", response_schema=router)).data == {"playbook": "chat", "args": {"q": 1}}
    assert fake.requests[1].body["response_format"]["json_schema"]["strict"] is False  # an open object


def test_official_stream_and_image(fake: FakeServer, official: OpenAIModel) -> None:
    fake.queue(openai_stream(["やあ", "！"]), openai_image(png_bytes((1, 2, 3))))
    assert list(official.stream(ask("hi"))) == ["やあ", "！"]
    assert official.generate_image("夜の猫")[1] == "image/png"
    body = fake.requests[1].body
    assert body["model"] == "gpt-image-1" and "response_format" not in body


def test_registry_resolves_upstream_openai_names(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_model_cache()
    for name in ("gpt-4.1", "gpt-5-mini", "o3", "o4-mini"):
        model, notice = resolve_model(name, load_settings())
        assert model.provider == "offline" and notice and "OPENAI_API_KEY" in notice
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
    model, notice = resolve_model("gpt-4.1", load_settings())
    assert notice is None and model.provider == "openai" and model.name == "gpt-4.1"
    fake.queue(openai_text("こんにちは"))
    assert model.generate(ask("hi")).text == "こんにちは"
    assert fake.requests[0].headers["Authorization"] == f"Bearer {KEY}"
