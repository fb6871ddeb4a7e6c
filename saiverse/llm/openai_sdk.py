"""OpenAI and OpenAI-compatible servers through the official `openai` SDK.

Two kinds of server, one class:
- OpenAI itself (`gpt-…`, `o3…`; `OPENAI_API_KEY`, `OPENAI_BASE_URL`): structured output as a strict
  `json_schema`, answer length as `max_completion_tokens`, images through `gpt-image-1`.
- an OpenAI-compatible server (`openai:<model>` at `SAIVERSE_OPENAI_BASE_URL`: Ollama, LM Studio,
  llama.cpp's server, vLLM): structured output negotiated once per server (saiverse/llm/structured.py),
  answer length as `max_tokens`, which every such server reads.
Every request carries an answer length (`chat.default_max_tokens`). The SDK's own retries are off;
`retry.call_with_retry` retries what may succeed, and a request rejected as invalid is never retried
(saiverse/llm/sdk_errors.py). The SDK is imported when the first such model is built (it takes ~0.8 s).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Generator
from typing import Any

from chat import ChatRequest, ChatResult, LLMError, ToolCall, Usage, default_max_tokens
from saiverse.llm.imagefile import read_image, sniff_mime
from saiverse.llm.retry import RetryPolicy, call_with_retry, invalid_json_error
from saiverse.llm.schema import strict_schema
from saiverse.llm.sdk_base import SdkCalls
from saiverse.llm.sdk_errors import RejectedRequest, about_structured_output
from saiverse.llm.structured import (
    ANSWER_TOOL,
    SERVER_MODES,
    Enforced,
    ModeMemory,
    answer_json,
    answer_tools,
    schema_text,
    strict_ok,
    unwrap_answer_tool,
    with_instructions,
)

OFFICIAL_URL = "https://api.openai.com/v1"
DEFAULT_IMAGE_MODEL = "gpt-image-1"
NO_KEY = "no-key"
"""Sent as the key to a compatible server configured without one (the SDK insists on a key; local
servers ignore it)."""
_REASONING = re.compile(r"^(o\d|gpt-5)", re.I)


class OpenAIModel:
    """A chat model on OpenAI or on an OpenAI-compatible server."""

    supports_vision = True
    follows_instructions = True

    def __init__(self, name: str, *, model_id: str, api_key: str | None, base_url: str | None = None,
                 compatible: bool = False, timeout: float = 60.0, retry: RetryPolicy | None = None,
                 image_model: str | None = None, image_size: str = "1024x1024",
                 modes: ModeMemory = SERVER_MODES) -> None:
        import openai  # imported here: slow to load, and only a configured model needs it

        self.name = name
        self.model_id = model_id
        self.compatible = compatible
        self.provider = "openai-compatible" if compatible else "openai"
        self.base_url = (base_url or OFFICIAL_URL).rstrip("/")
        self.retry = retry or RetryPolicy()
        self.image_model = image_model or (model_id if compatible else DEFAULT_IMAGE_MODEL)
        self.image_size = image_size
        self._modes = modes
        self._client = openai.OpenAI(api_key=api_key or NO_KEY, base_url=self.base_url, timeout=timeout,
                                     max_retries=0)
        self._what = f"{'OpenAI 互換サーバー' if compatible else 'OpenAI'} {model_id}"
        self._calls = SdkCalls(sdk=openai, client=self._client, key=api_key, what=self._what, model_id=model_id,
                               base_url=self.base_url, retry=self.retry)
        """The client's calls, guarded and retried (saiverse/llm/sdk_base.py)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._calls.close()

    def _retrying(self, request: ChatRequest, mode: str | None) -> ChatResult:
        return self._calls.retrying(lambda: self._once(request, mode))

    # -- request building -------------------------------------------------------------------

    def _messages(self, request: ChatRequest) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if request.system:
            out.append({"role": "system", "content": request.system})
        for msg in request.messages:
            role = msg.get("role", "user")
            text = msg.get("content") or ""
            item: dict[str, Any] = {"role": role, "content": text}
            images = msg.get("images") or []
            if images:
                parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                for path in images:
                    data, mime = read_image(path)
                    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                item["content"] = parts
            # OpenAI allows only [A-Za-z0-9_-] in `name`; other names are left out, not mangled.
            if msg.get("name") and role != "system" and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", msg["name"]):
                item["name"] = msg["name"]
            out.append(item)
        return out

    def _body(self, request: ChatRequest, mode: str | None, *, streaming: bool = False) -> dict[str, Any]:
        if mode in ("json_object", "prompt"):
            request = with_instructions(request)
        body: dict[str, Any] = {"model": self.model_id, "messages": self._messages(request)}
        length = default_max_tokens(request, streaming=streaming)
        body["max_tokens" if self.compatible else "max_completion_tokens"] = length
        if request.temperature is not None and not _REASONING.match(self.model_id):
            body["temperature"] = request.temperature
        schema = request.response_schema
        if schema is not None and mode == "json_schema":
            title = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "response"))[:64] or "response"
            strict = strict_ok(schema)
            sent = strict_schema(schema) if strict else json.loads(schema_text(schema))
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": title, "schema": sent, "strict": strict}}
        elif schema is not None and mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": json.loads(schema_text(schema))}
        tools = [{"type": "function", "function": {
            "name": t["name"], "description": t.get("description", ""),
            "parameters": t.get("parameters") or {"type": "object", "properties": {}}}} for t in request.tools]
        if schema is not None and mode == "tool":
            tools = [{"type": "function", "function": {
                "name": ANSWER_TOOL, "description": "答えをこの形で返す",
                "parameters": json.loads(schema_text(schema))}}]
            body["tool_choice"] = {"type": "function", "function": {"name": ANSWER_TOOL}}
        if tools:
            body["tools"] = tools
        return body

    # -- transport --------------------------------------------------------------------------

    def _once(self, request: ChatRequest, mode: str | None) -> ChatResult:
        body = self._body(request, mode)
        response = self._calls.guard(lambda: self._client.chat.completions.create(**body))
        if not response.choices:
            raise LLMError(f"{self._what}: choices のない応答を受け取りました", kind="server_error")
        message = response.choices[0].message
        calls: list[ToolCall] = []
        for i, tc in enumerate(message.tool_calls or []):
            fn = getattr(tc, "function", None)
            raw = (fn.arguments if fn else None) or "{}"
            try:
                args = json.loads(raw) if isinstance(raw, str) else dict(raw)
            except ValueError as exc:
                if mode == "tool" and fn is not None and fn.name == ANSWER_TOOL:
                    # The forced answer tool's arguments are the answer: answer_json judges and retries them.
                    return ChatResult(text=str(raw), model=self.name)
                raise invalid_json_error(str(raw), ["ツール引数が JSON ではありません"]) from exc
            calls.append(ToolCall(name=fn.name if fn else "", arguments=args, id=tc.id or f"call-{i}"))
        text, calls = unwrap_answer_tool(message.content or "", calls, mode)
        usage = response.usage
        return ChatResult(text=text, tool_calls=calls, model=self.name,
                          usage=Usage(input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                                      output_tokens=int(getattr(usage, "completion_tokens", 0) or 0)))

    # -- calls ------------------------------------------------------------------------------

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once; `data` holds the validated JSON for a schema (see the module docstring)."""
        if request.response_schema is None:
            return answer_tools(lambda r: self._retrying(r, None), request) if request.tools \
                else self._retrying(request, None)
        if not self.compatible:
            return answer_json(lambda r: self._retrying(r, "json_schema"), request,
                               strict=strict_ok(request.response_schema),
                               retry=lambda _problem: Enforced(lambda r: self._retrying(r, "json_schema"),
                                                               "json_schema"))
        mode = self._modes.mode(self.base_url)
        while True:
            try:
                return answer_json(lambda r, m=mode: self._retrying(r, m), request,
                                   strict=mode == "json_schema" and strict_ok(request.response_schema),
                                   retry=lambda problem, m=mode: self._enforced(m, problem))
            except RejectedRequest as exc:
                if exc.kind != "bad_request" or not about_structured_output(exc.detail):
                    raise
                following = self._modes.refused(self.base_url, mode)
                if following is None:
                    raise
                mode = following

    def _enforced(self, mode: str, problem: str) -> Enforced:
        """The one retry of a decision a compatible server answered wrongly in `mode`.

        Prose or broken JSON through `json_schema` means the server did not enforce it (an older
        Ollama ignored it on `/v1`; llama-cpp-python's server reads a schema from `json_object`):
        the retry asks for `json_object` with the schema, which Ollama enforces as `format: "json"`
        and llama.cpp's server as a grammar. When that works after prose, the server keeps
        `json_object` from then on. A server refusing `json_object` gets the retry as before.
        """
        if mode != "json_schema" or problem == "schema":
            return Enforced(lambda r: self._retrying(r, mode), mode)

        def call(request: ChatRequest) -> ChatResult:
            try:
                return self._retrying(request, "json_object")
            except RejectedRequest as exc:
                if exc.kind != "bad_request" or not about_structured_output(exc.detail):
                    raise
                enforced.how = mode  # the trace says how the retry really went
                return self._retrying(request, mode)

        def worked() -> None:
            if problem == "prose" and enforced.how == "json_object":
                self._modes.refused(self.base_url, mode, how="ignored")  # json_object from now on

        enforced = Enforced(call, "json_object", worked)
        return enforced

    def stream(self, request: ChatRequest) -> Generator[str, None, str | None]:
        """Answer as text chunks; opening the stream is retried, a broken stream raises `LLMError`.
        Returns `CUT_LENGTH` when `finish_reason` says the answer length cut it short."""
        body = {**self._body(request, None, streaming=True), "stream": True}

        def texts(chunk: Any) -> list[str]:
            return [text for choice in chunk.choices or []
                    if (text := getattr(choice.delta, "content", None) if choice.delta else None)]

        def cut(chunk: Any) -> bool:
            return any(getattr(choice, "finish_reason", None) == "length" for choice in chunk.choices or [])

        return (yield from self._calls.stream_text(lambda: self._client.chat.completions.create(**body), texts, cut))

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """Draw through the images endpoint; the picture comes back as base64."""
        body: dict[str, Any] = {"model": self.image_model, "prompt": prompt, "n": 1, "size": self.image_size}
        if self.compatible or self.image_model.startswith("dall-e"):
            body["response_format"] = "b64_json"  # gpt-image models always answer base64 and refuse the field

        def once() -> tuple[bytes, str]:
            response = self._calls.guard(lambda: self._client.images.generate(**body))
            b64 = response.data[0].b64_json if response.data else None
            if not b64:
                raise LLMError(f"{self.image_model}: 画像が返されませんでした", kind="no_image")
            try:
                data = base64.b64decode(b64, validate=True)
            except ValueError as exc:
                raise LLMError(f"{self.image_model}: 画像データが壊れています", kind="no_image") from exc
            return data, sniff_mime(data)

        return call_with_retry(once, self.retry, what=self.image_model)

    def embed(self, texts: list[str], *, query: bool = False, dimensions: int | None = None) -> list[list[float]]:
        """One vector per text (`/v1/embeddings`): recall's embeddings (saiverse/llm/embeddings.py). `dimensions`
        is sent to OpenAI itself only (text-embedding-3 shortens its vectors; a compatible server may refuse it)."""
        del query  # OpenAI's embedding models take questions and passages alike
        body: dict[str, Any] = {"model": self.model_id, "input": list(texts), "encoding_format": "float"}
        if dimensions and not self.compatible:
            body["dimensions"] = dimensions

        def once() -> list[list[float]]:
            response = self._calls.guard(lambda: self._client.embeddings.create(**body))
            vectors = [list(d.embedding) for d in sorted(response.data or [], key=lambda d: d.index)]
            if len(vectors) != len(texts) or not all(vectors):
                raise LLMError(f"{self._what}: 埋め込みが {len(vectors)} 件 (求めたのは {len(texts)} 件)",
                               kind="bad_response")
            return vectors

        return self._calls.retrying(once)
