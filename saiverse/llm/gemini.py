"""Gemini through `google-genai`: text, streaming, JSON schema, function calling, vision, images.

Requests go to `POST /v1beta/models/{model}:generateContent` (and `:streamGenerateContent?alt=sse`).
The SDK does not retry (a 429 raises `errors.ClientError` at once), so every call goes through
`retry.call_with_retry`; SDK and transport errors become `LLMError`s with the key redacted.
"""

from __future__ import annotations

import itertools
from collections.abc import Generator, Iterator
from typing import Any

import httpx
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from chat import CUT_LENGTH, ChatRequest, ChatResult, LLMError, ToolCall, Usage
from saiverse.llm.imagefile import read_image
from saiverse.llm.retry import (
    RetryPolicy,
    TransientError,
    call_with_retry,
    kind_for_status,
    parse_retry_after,
    redact,
    with_json_retry,
)
from saiverse.llm.schema import EXTENSIONS

try:  # SDK 3.3.0 uses httpx2 (a fork under its own namespace) when installed, else httpx
    import httpx2
except ImportError:  # pragma: no cover - depends on the environment
    httpx2 = None  # type: ignore[assignment]
_TIMEOUTS: tuple[type[Exception], ...] = tuple(
    m.TimeoutException for m in (httpx, httpx2) if m is not None)
_TRANSPORT: tuple[type[Exception], ...] = tuple(m.TransportError for m in (httpx, httpx2) if m is not None)

DEFAULT_IMAGE_MODEL = "gemini-2.5-flash-image"
"""Model used by `generate_image` when the chat model itself cannot draw."""
# The SDK 3.3.0 defaults to `v1`; JSON schema, function calling and image output are documented
# (and served first) on `v1beta`, so the version is pinned.
API_VERSION = "v1beta"
_EMPTY_PARAMS = {"type": "object", "properties": {}}


class GeminiModel:
    """A Gemini model (provider `gemini`); `name` is the model id, e.g. `gemini-2.5-flash`."""

    provider = "gemini"
    supports_vision = True
    follows_instructions = True

    def __init__(self, name: str, *, api_key: str, base_url: str | None = None, timeout: float = 60.0,
                 retry: RetryPolicy | None = None, image_model: str | None = None) -> None:
        self.name = name
        self.model_id = name.split(":", 1)[1] if name.startswith("gemini:") else name
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self.image_model = image_model or (self.model_id if "image" in self.model_id else DEFAULT_IMAGE_MODEL)
        self._key = api_key
        # HttpOptions.timeout is in milliseconds.
        options = types.HttpOptions(api_version=API_VERSION, timeout=int(timeout * 1000),
                                    base_url=base_url or None)
        self._client = genai.Client(api_key=api_key, http_options=options)

    def __repr__(self) -> str:
        return f"GeminiModel(name={self.name!r}, base_url={self.base_url!r})"

    # -- request building -------------------------------------------------------------------

    def _contents(self, request: ChatRequest) -> tuple[list[types.Content], str | None]:
        system_parts = [request.system] if request.system else []
        contents: list[types.Content] = []
        for msg in request.messages:
            role = msg.get("role", "user")
            text = msg.get("content") or ""
            if role == "system":
                # Gemini has one system instruction; system messages join it in order.
                if text:
                    system_parts.append(text)
                continue
            parts: list[types.Part] = [types.Part.from_text(text=text)] if text else []
            for path in msg.get("images") or []:
                data, mime = read_image(path)
                parts.append(types.Part.from_bytes(data=data, mime_type=mime))
            if parts:
                contents.append(types.Content(role="model" if role == "assistant" else "user", parts=parts))
        if not contents:
            # The API rejects a request without contents (a node may run on the system prompt alone).
            nudge = types.Part.from_text(text="（続けてください）")
            contents.append(types.Content(role="user", parts=[nudge]))
        return contents, "\n\n".join(system_parts) or None

    def _config(self, request: ChatRequest, system: str | None) -> types.GenerateContentConfig:
        config = types.GenerateContentConfig(system_instruction=system, temperature=request.temperature)
        if request.response_schema is not None:
            config.response_mime_type = "application/json"
            config.response_json_schema = _clean(request.response_schema)
        if request.tools:
            config.tools = [types.Tool(function_declarations=[
                types.FunctionDeclaration(
                    name=t["name"], description=t.get("description", ""),
                    parameters_json_schema=_clean(t.get("parameters") or _EMPTY_PARAMS),
                ) for t in request.tools
            ])]
        return config

    # -- errors -----------------------------------------------------------------------------

    def _error(self, exc: Exception) -> LLMError:
        """The `LLMError` for one failed attempt (transient ones are retried by the caller)."""
        if isinstance(exc, LLMError):
            return exc
        secrets = [self._key]
        if isinstance(exc, genai_errors.APIError):
            code = int(exc.code or 0)
            detail = redact(f"Gemini {code} {exc.status or ''}: {exc.message or ''}".strip(), secrets)[:300]
            kind = kind_for_status(code)
            if kind == "bad_request":
                return LLMError(detail, kind=kind, retryable=False)
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None)
            retry_after = parse_retry_after(headers.get("retry-after") if headers is not None else None)
            return TransientError(detail, kind=kind, retry_after=retry_after)
        if isinstance(exc, _TIMEOUTS):
            return TransientError("Gemini の応答がタイムアウトしました", kind="timeout")
        if isinstance(exc, _TRANSPORT):
            text = redact(f"Gemini に接続できません: {type(exc).__name__}", secrets)
            return TransientError(text, kind="connection")
        return LLMError(redact(f"Gemini 呼び出しに失敗しました: {type(exc).__name__}: {exc}", secrets)[:300])

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except Exception as exc:  # every SDK/transport failure is mapped, none escapes raw
            raise self._error(exc) from exc

    # -- calls ------------------------------------------------------------------------------

    def _once(self, request: ChatRequest) -> ChatResult:
        contents, system = self._contents(request)
        config = self._config(request, system)
        response = self._guard(lambda: self._client.models.generate_content(
            model=self.model_id, contents=contents, config=config))
        return self._result(response)

    def _result(self, response: types.GenerateContentResponse) -> ChatResult:
        texts: list[str] = []
        calls: list[ToolCall] = []
        candidates = response.candidates or []
        if not candidates and response.prompt_feedback and response.prompt_feedback.block_reason:
            raise LLMError(f"Gemini が応答を拒否しました: {response.prompt_feedback.block_reason}",
                           kind="blocked")
        parts = (candidates[0].content.parts if candidates and candidates[0].content else None) or []
        for i, part in enumerate(parts):
            if part.function_call is not None:
                fc = part.function_call
                calls.append(ToolCall(name=fc.name or "", arguments=dict(fc.args or {}),
                                      id=fc.id or f"call-{i}"))
            elif part.text and not part.thought:
                texts.append(part.text)
        meta = response.usage_metadata
        usage = Usage(input_tokens=(meta.prompt_token_count or 0) if meta else 0,
                      output_tokens=(meta.candidates_token_count or 0) if meta else 0)
        return ChatResult(text="".join(texts), tool_calls=calls, usage=usage, model=self.name)

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once; retried on 429/5xx/timeouts; `data` holds the validated JSON for a schema."""
        return with_json_retry(
            lambda: call_with_retry(lambda: self._once(request), self.retry, what=f"Gemini {self.model_id}"),
            request.response_schema)

    def stream(self, request: ChatRequest) -> Generator[str, None, str | None]:
        """Answer as text chunks (SSE); failures before the first chunk are retried. Returns `CUT_LENGTH`
        when a candidate's `finish_reason` is `MAX_TOKENS`."""
        contents, system = self._contents(request)
        config = self._config(request, system)

        Chunk = types.GenerateContentResponse

        def open_stream() -> tuple[Chunk | None, Iterator[Chunk]]:
            def start() -> tuple[Chunk | None, Iterator[Chunk]]:
                it = iter(self._client.models.generate_content_stream(
                    model=self.model_id, contents=contents, config=config))
                return next(it, None), it
            return self._guard(start)

        chunk, iterator = call_with_retry(open_stream, self.retry, what=f"Gemini {self.model_id}")
        stopped = None
        while True:
            if chunk is None:
                return stopped
            text = _chunk_text(chunk)
            if text:
                yield text
            if chunk.candidates and chunk.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS:
                stopped = CUT_LENGTH
            chunk = self._guard(lambda: next(iterator, None))

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """Draw with an image-output model (`response_modalities=["IMAGE"]`); returns inline bytes."""
        config = types.GenerateContentConfig(response_modalities=["IMAGE"])

        def once() -> tuple[bytes, str]:
            response = self._guard(lambda: self._client.models.generate_content(
                model=self.image_model, contents=prompt, config=config))
            for cand in itertools.islice(response.candidates or [], 1):
                for part in (cand.content.parts if cand.content else None) or []:
                    if part.inline_data is not None and part.inline_data.data:
                        return part.inline_data.data, part.inline_data.mime_type or "image/png"
            raise LLMError("Gemini が画像を返しませんでした", kind="no_image")

        return call_with_retry(once, self.retry, what=f"Gemini {self.image_model}")

    def embed(self, texts: list[str], *, query: bool = False, dimensions: int | None = None) -> list[list[float]]:
        """One vector per text (`batchEmbedContents`): recall's embeddings (saiverse/llm/embeddings.py).
        `query`: the texts are questions (RETRIEVAL_QUERY), else stored passages (RETRIEVAL_DOCUMENT)."""
        config = types.EmbedContentConfig(task_type="RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT",
                                          output_dimensionality=dimensions)

        def once() -> list[list[float]]:
            response = self._guard(lambda: self._client.models.embed_content(
                model=self.model_id, contents=list(texts), config=config))
            vectors = [list(e.values or []) for e in response.embeddings or []]
            if len(vectors) != len(texts) or not all(vectors):
                raise LLMError(f"Gemini {self.model_id}: 埋め込みが {len(vectors)} 件 (求めたのは {len(texts)} 件)",
                               kind="bad_response")
            return vectors

        return call_with_retry(once, self.retry, what=f"Gemini {self.model_id}")


def _chunk_text(chunk: types.GenerateContentResponse) -> str:
    content = chunk.candidates[0].content if chunk.candidates else None
    parts = (content.parts if content else None) or []
    return "".join(p.text for p in parts if p.text and not p.thought)


def _clean(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without this project's routing extensions (`x-keywords`, `x-targets`: the API rejects
    unknown keys)."""
    if isinstance(schema, dict):
        return {k: _clean(v) for k, v in schema.items() if k not in EXTENSIONS}  # type: ignore[misc]
    if isinstance(schema, list):
        return [_clean(v) for v in schema]  # type: ignore[return-value]
    return schema
