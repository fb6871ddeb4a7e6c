"""Anthropic (`claude-…`) through the official `anthropic` SDK: Messages API, streaming, tools, JSON.

`ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`, as the SDK reads them. Structured output is asked as
`output_config.format` (a JSON schema) where the schema allows it; a model that refuses that — or a
schema with open objects — gets a forced call of one tool whose input is the answer; either way the
answer is validated and repaired once (saiverse/llm/structured.py). Every request carries
`max_tokens` (the API requires it). Claude cannot draw: `draws_images` is False and the registry
draws with another model. The SDK's own retries are off; `retry.call_with_retry` retries what may
succeed, and a request rejected as invalid is never retried (saiverse/llm/sdk_errors.py).
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Generator
from typing import Any

from chat import ChatRequest, ChatResult, LLMError, ToolCall, Usage, default_max_tokens
from saiverse.llm.imagefile import read_image
from saiverse.llm.retry import RetryPolicy
from saiverse.llm.schema import strict_schema
from saiverse.llm.sdk_base import SdkCalls
from saiverse.llm.sdk_errors import RejectedRequest, about_structured_output
from saiverse.llm.structured import ANSWER_TOOL, answer_json, schema_text, strict_ok, unwrap_answer_tool

OFFICIAL_URL = "https://api.anthropic.com"
_EMPTY = {"type": "object", "properties": {}}
_NO_FORMAT: set[tuple[str, str]] = set()
"""(base URL, model) pairs that refused `output_config.format`: they get the forced tool from then on."""
_NO_FORMAT_LOCK = threading.Lock()


class AnthropicModel:
    """A Claude model (provider `anthropic`); `name` is as configured, e.g. `claude-sonnet-4-5`."""

    provider = "anthropic"
    supports_vision = True
    follows_instructions = True
    draws_images = False

    def __init__(self, name: str, *, model_id: str, api_key: str, base_url: str | None = None,
                 timeout: float = 60.0, retry: RetryPolicy | None = None) -> None:
        import anthropic  # imported here: slow to load, and only a configured model needs it

        self.name = name
        self.model_id = model_id
        self.base_url = (base_url or OFFICIAL_URL).rstrip("/")
        self.retry = retry or RetryPolicy()
        self._client = anthropic.Anthropic(api_key=api_key, base_url=self.base_url, timeout=timeout,
                                           max_retries=0)
        self._what = f"Anthropic {model_id}"
        self._calls = SdkCalls(sdk=anthropic, client=self._client, key=api_key, what=self._what,
                               model_id=model_id, base_url=self.base_url, retry=self.retry)
        """The client's calls, guarded and retried (saiverse/llm/sdk_base.py)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._calls.close()

    def _retrying(self, request: ChatRequest, mode: str | None) -> ChatResult:
        return self._calls.retrying(lambda: self._once(request, mode))

    # -- request building -------------------------------------------------------------------

    def _messages(self, request: ChatRequest) -> tuple[list[dict[str, Any]], str]:
        system = [request.system] if request.system else []
        out: list[dict[str, Any]] = []
        for msg in request.messages:
            role = msg.get("role", "user")
            text = msg.get("content") or ""
            if role == "system":
                if text:
                    system.append(text)  # Claude has one system prompt; system messages join it in order
                continue
            blocks: list[dict[str, Any]] = []
            for path in msg.get("images") or []:
                data, mime = read_image(path)
                blocks.append({"type": "image", "source": {
                    "type": "base64", "media_type": mime, "data": base64.b64encode(data).decode("ascii")}})
            if text:
                blocks.append({"type": "text", "text": text})
            if not blocks:
                continue
            if out and out[-1]["role"] == role:
                out[-1]["content"].extend(blocks)  # the API wants turns to alternate
            else:
                out.append({"role": role, "content": blocks})
        if not out or out[0]["role"] != "user":
            # The conversation must open with the user (a node may run on the system prompt alone).
            out.insert(0, {"role": "user", "content": [{"type": "text", "text": "（続けてください）"}]})
        return out, "\n\n".join(system)

    def _body(self, request: ChatRequest, mode: str | None, *, streaming: bool = False) -> dict[str, Any]:
        messages, system = self._messages(request)
        body: dict[str, Any] = {"model": self.model_id, "messages": messages,
                                "max_tokens": default_max_tokens(request, streaming=streaming)}
        if system:
            body["system"] = system
        tools = [{"name": t["name"], "description": t.get("description", ""),
                  "input_schema": t.get("parameters") or _EMPTY} for t in request.tools]
        schema = request.response_schema
        if schema is not None and mode == "format":
            body["output_config"] = {"format": {"type": "json_schema", "schema": strict_schema(schema)}}
        elif schema is not None and mode == "tool":
            tools = [{"name": ANSWER_TOOL, "description": "答えをこの形で返す",
                      "input_schema": json.loads(schema_text(schema))}]
            body["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        if tools:
            body["tools"] = tools
        return body

    # -- transport --------------------------------------------------------------------------

    def _once(self, request: ChatRequest, mode: str | None) -> ChatResult:
        body = self._body(request, mode)
        response = self._calls.guard(lambda: self._client.messages.create(**body))
        texts: list[str] = []
        calls: list[ToolCall] = []
        for i, block in enumerate(response.content or []):
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(name=block.name, arguments=dict(block.input or {}), id=block.id or f"call-{i}"))
        text, calls = unwrap_answer_tool("".join(texts), calls, mode)
        usage = response.usage
        return ChatResult(text=text, tool_calls=calls, model=self.name,
                          usage=Usage(input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                                      output_tokens=int(getattr(usage, "output_tokens", 0) or 0)))

    # -- calls ------------------------------------------------------------------------------

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once; `data` holds the validated JSON for a schema."""
        schema = request.response_schema
        if schema is None:
            return self._retrying(request, None)
        key = (self.base_url, self.model_id)
        if strict_ok(schema) and key not in _NO_FORMAT:
            try:
                return answer_json(lambda r: self._retrying(r, "format"), request, strict=True)
            except RejectedRequest as exc:
                if exc.kind != "bad_request" or not about_structured_output(exc.detail):
                    raise
                with _NO_FORMAT_LOCK:
                    _NO_FORMAT.add(key)
        return answer_json(lambda r: self._retrying(r, "tool"), request)

    def stream(self, request: ChatRequest) -> Generator[str, None, str | None]:
        """Answer as text chunks (`content_block_delta` events); opening the stream is retried. Returns
        `CUT_LENGTH` when `stop_reason` is `max_tokens`."""
        body = {**self._body(request, None, streaming=True), "stream": True}

        def texts(event: Any) -> list[str]:
            delta = getattr(event, "delta", None)
            if event.type == "content_block_delta" and getattr(delta, "type", "") == "text_delta" and delta.text:
                return [delta.text]
            return []

        def cut(event: Any) -> bool:
            return event.type == "message_delta" and getattr(event.delta, "stop_reason", None) == "max_tokens"

        return (yield from self._calls.stream_text(lambda: self._client.messages.create(**body), texts, cut))

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """Claude cannot draw; the registry hands drawing to another model (see `draws_images`)."""
        raise LLMError(f"{self.name} は画像を生成できません (画像生成には gemini-… か gpt-… を使います)",
                       kind="no_image")
