"""GeminiModel against a fake Gemini server speaking the real REST/SSE wire format."""

from __future__ import annotations

import base64
import io
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from saiverse.llm import ChatRequest, LLMError, RetryPolicy, resolve_model
from saiverse.llm.gemini import GeminiModel
from saiverse.llm.registry import clear_model_cache
from saiverse.settings import load_settings
from tests.support.fakes_llm import (
    FakeServer,
    Reply,
    gemini_call,
    gemini_error,
    gemini_image,
    gemini_stream,
    gemini_text,
)

KEY = "AIzaFAKE-secret-key-1234567890"


@pytest.fixture()
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture()
def sleeps() -> list[float]:
    return []


@pytest.fixture()
def model(fake: FakeServer, sleeps: list[float]) -> GeminiModel:
    policy = RetryPolicy(attempts=3, base_delay=0.01, sleep=sleeps.append)
    return GeminiModel("gemini-2.5-flash", api_key=KEY, base_url=fake.url, timeout=5, retry=policy)


def ask(text: str, **kw: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], **kw)  # type: ignore[arg-type]


def png_bytes(colour: tuple[int, int, int] = (0, 0, 255)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_text_request_path_body_and_usage(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_text("こんにちは、ミナです。"))
    request = ChatRequest(
        messages=[{"role": "user", "content": "やあ"}, {"role": "assistant", "content": "はい"},
                  {"role": "user", "content": "元気？"}],
        system="あなたはミナです。", temperature=0.3,
    )
    result = model.generate(request)
    assert result.text == "こんにちは、ミナです。"
    assert result.usage == {"input_tokens": 7, "output_tokens": 3}
    assert result.model == "gemini-2.5-flash"
    [req] = fake.requests
    assert req.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert req.headers["x-goog-api-key"] == KEY
    assert [c["role"] for c in req.body["contents"]] == ["user", "model", "user"]
    assert req.body["contents"][2]["parts"] == [{"text": "元気？"}]
    assert req.body["systemInstruction"]["parts"][0]["text"] == "あなたはミナです。"
    assert req.body["generationConfig"]["temperature"] == 0.3


def test_system_messages_join_the_system_instruction(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_text("ok"))
    model.generate(ChatRequest(messages=[{"role": "system", "content": "建物: 図書館"},
                                         {"role": "user", "content": "hi"}], system="あなたはミナです。"))
    body = fake.requests[0].body
    assert body["systemInstruction"]["parts"][0]["text"] == "あなたはミナです。\n\n建物: 図書館"
    assert [c["role"] for c in body["contents"]] == ["user"]


def test_stream_yields_sse_chunks_in_order(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_stream(["こん", "にち", "は"]))
    assert list(model.stream(ask("hi"))) == ["こん", "にち", "は"]
    assert fake.requests[0].path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"


def test_stream_retries_a_429_before_the_first_chunk(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_error(429, "slow down"), gemini_stream(["a", "b"]))
    assert "".join(model.stream(ask("hi"))) == "ab"
    assert len(fake.requests) == 2


def test_json_schema_is_sent_and_parsed(fake: FakeServer, model: GeminiModel) -> None:
    schema = {"type": "object", "properties": {"mood": {"type": "string", "enum": ["happy", "sad"],
                                                        "x-keywords": {"happy": ["嬉"]}}},
              "required": ["mood"]}
    fake.queue(gemini_text('{"mood": "happy"}'))
    result = model.generate(ask("今日は嬉しい", response_schema=schema))
    assert result.data == {"mood": "happy"}
    config = fake.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    # The project's x-keywords extension is stripped before sending.
    assert config["responseJsonSchema"]["properties"]["mood"] == {"type": "string", "enum": ["happy", "sad"]}


def test_function_call_becomes_tool_call(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_call("memory_recall", {"query": "猫", "limit": 3}))
    tools = [{"name": "memory_recall", "description": "記憶を検索",
              "parameters": {"type": "object", "properties": {"query": {"type": "string"},
                                                              "limit": {"type": "integer"}}}}]
    result = model.generate(ask("猫のこと覚えてる？", tools=tools))
    assert result.tool_calls and result.tool_calls[0]["name"] == "memory_recall"
    assert result.tool_calls[0]["arguments"] == {"query": "猫", "limit": 3}
    decl = fake.requests[0].body["tools"][0]["functionDeclarations"][0]
    assert decl["name"] == "memory_recall" and decl["description"] == "記憶を検索"


def test_image_input_is_sent_inline(fake: FakeServer, model: GeminiModel, tmp_path: Path) -> None:
    data = png_bytes()
    path = tmp_path / "blue.png"
    path.write_bytes(data)
    fake.queue(gemini_text("青い四角です"))
    request = ChatRequest(messages=[{"role": "user", "content": "これは何？", "images": [str(path)]}])
    assert model.generate(request).text == "青い四角です"
    parts = fake.requests[0].body["contents"][0]["parts"]
    assert parts[0] == {"text": "これは何？"}
    inline = parts[1]["inlineData"]
    # SDK 3.3.0 writes this field as `mime_type` (the API accepts proto names in either case).
    assert inline.get("mimeType", inline.get("mime_type")) == "image/png"
    assert base64.b64decode(inline["data"]) == data


def test_generate_image_returns_inline_bytes(fake: FakeServer, model: GeminiModel) -> None:
    data = png_bytes((255, 0, 0))
    fake.queue(gemini_image(data))
    out, mime = model.generate_image("赤い四角")
    assert (out, mime) == (data, "image/png")
    req = fake.requests[0]
    assert req.path == "/v1beta/models/gemini-2.5-flash-image:generateContent"
    assert req.body["generationConfig"]["responseModalities"] == ["IMAGE"]
    assert req.body["contents"][0]["parts"][0]["text"] == "赤い四角"


def test_429_then_success_is_retried_honouring_retry_after(
        fake: FakeServer, model: GeminiModel, sleeps: list[float]) -> None:
    fake.queue(gemini_error(429, "quota", retry_after="0.02"), gemini_text("ok"))
    assert model.generate(ask("hi")).text == "ok"
    assert len(fake.requests) == 2
    assert sleeps == [0.02]


def test_429_forever_raises_rate_limited(fake: FakeServer, model: GeminiModel, sleeps: list[float]) -> None:
    fake.fallback = gemini_error(429, "quota exhausted")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "rate_limited" and info.value.retryable
    assert len(fake.requests) == 3
    assert sleeps == [0.01, 0.02]  # exponential backoff without Retry-After


def test_server_error_then_success(fake: FakeServer, model: GeminiModel) -> None:
    fake.queue(gemini_error(503, "overloaded"), gemini_text("ok"))
    assert model.generate(ask("hi")).text == "ok"


def test_bad_request_is_not_retried(fake: FakeServer, model: GeminiModel) -> None:
    fake.fallback = gemini_error(400, "bad field")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "bad_request" and not info.value.retryable
    assert "bad field" in str(info.value)
    assert len(fake.requests) == 1


def test_invalid_json_is_asked_once_more_then_raises(fake: FakeServer, model: GeminiModel) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    fake.queue(gemini_text("Sure! here it is"), gemini_text("{not json"))
    with pytest.raises(LLMError) as info:
        model.generate(ask("json please", response_schema=schema))
    assert info.value.kind == "invalid_json"
    assert "invalid JSON" in str(info.value) and "{not json" in str(info.value)
    assert len(fake.requests) == 2


def test_invalid_json_then_valid_succeeds(fake: FakeServer, model: GeminiModel) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    fake.queue(gemini_text('{"b": 1}'), gemini_text('```json\n{"a": "x"}\n```'))
    assert model.generate(ask("json please", response_schema=schema)).data == {"a": "x"}


def test_key_never_appears_in_errors_or_repr(fake: FakeServer, model: GeminiModel) -> None:
    fake.fallback = gemini_error(400, f"API key {KEY} not valid")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert "***" in str(info.value)
    assert KEY not in repr(model)
    fake.fallback = gemini_error(429, f"quota for {KEY}")
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert KEY not in str(info.value)


def test_timeout_becomes_llm_error(fake: FakeServer) -> None:
    fake.fallback = Reply(json={}, delay=1.5)
    model = GeminiModel("gemini-2.5-flash", api_key=KEY, base_url=fake.url, timeout=0.3,
                        retry=RetryPolicy(attempts=2, base_delay=0, sleep=lambda s: None))
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "timeout" and info.value.retryable
    assert len(fake.requests) == 2


def test_connection_refused_becomes_llm_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = GeminiModel("gemini-2.5-flash", api_key=KEY, base_url=f"http://127.0.0.1:{port}", timeout=2,
                        retry=RetryPolicy(attempts=2, base_delay=0, sleep=lambda s: None))
    with pytest.raises(LLMError) as info:
        model.generate(ask("hi"))
    assert info.value.kind == "connection" and KEY not in str(info.value)


def test_registry_builds_gemini_when_key_set(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_model_cache()
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("SAIVERSE_GEMINI_BASE_URL", fake.url)
    settings = load_settings()
    model, notice = resolve_model("gemini-2.5-flash", settings)
    assert notice is None and isinstance(model, GeminiModel)
    assert resolve_model("gemini-2.5-flash", settings)[0] is model  # cached
    fake.queue(gemini_text("hello"))
    assert model.generate(ask("hi")).text == "hello"


def test_registry_falls_back_without_key() -> None:
    model, notice = resolve_model("gemini-2.5-flash", load_settings())
    assert model.provider == "offline"
    assert notice and "GEMINI_API_KEY" in notice and "オフライン" in notice
