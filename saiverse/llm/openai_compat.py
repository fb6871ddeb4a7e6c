"""OpenAI-compatible servers (Ollama, LM Studio, llama.cpp, OpenAI itself) over plain httpx.

`POST {base}/chat/completions` for text, SSE streaming, `response_format: json_schema`, tools and
`image_url` data URLs; `POST {base}/images/generations` (`b64_json`) for images. The base URL
includes the version, e.g. `http://127.0.0.1:11434/v1`. The key, if any, goes in a Bearer header
and nowhere else: error texts are redacted.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx

from chat import ChatRequest, ChatResult, LLMError, ToolCall, Usage
from saiverse.llm.imagefile import read_image, sniff_mime
from saiverse.llm.retry import (
    RetryPolicy,
    TransientError,
    call_with_retry,
    invalid_json_error,
    kind_for_status,
    parse_retry_after,
    redact,
    with_json_retry,
)
from saiverse.llm.schema import strict_schema


class OpenAICompatModel:
    """A model on an OpenAI-compatible server (provider `openai`); `name` is `openai:<model>`."""

    provider = "openai"
    supports_vision = True
    follows_instructions = True

    def __init__(self, name: str, *, base_url: str, api_key: str | None = None, timeout: float = 60.0,
                 retry: RetryPolicy | None = None, image_model: str | None = None,
                 image_size: str = "1024x1024") -> None:
        self.name = name
        self.model_id = name.split(":", 1)[1] if name.startswith("openai:") else name
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self.image_model = image_model or self.model_id
        self.image_size = image_size
        self._key = api_key
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(timeout=timeout, headers=headers)

    def __repr__(self) -> str:
        return f"OpenAICompatModel(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    # -- request building -------------------------------------------------------------------

    def _messages(self, request: ChatRequest) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if request.system:
            out.append({"role": "system", "content": request.system})
        for msg in request.messages:
            role = msg.get("role", "user")
            text = msg.get("content") or ""
            images = msg.get("images") or []
            item: dict[str, Any] = {"role": role, "content": text}
            if images:
                parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                for path in images:
                    data, mime = read_image(path)
                    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                item["content"] = parts
            if msg.get("name") and role != "system":
                # OpenAI allows only [A-Za-z0-9_-] here; other names are left out, not mangled.
                if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", msg["name"]):
                    item["name"] = msg["name"]
            out.append(item)
        return out

    def _body(self, request: ChatRequest, *, stream: bool = False) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model_id, "messages": self._messages(request)}
        if stream:
            body["stream"] = True
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.response_schema is not None:
            title = str(request.response_schema.get("title") or "response")
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": re.sub(r"[^A-Za-z0-9_-]", "_", title)[:64] or "response",
                "schema": strict_schema(request.response_schema), "strict": True}}
        if request.tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t["name"], "description": t.get("description", ""),
                "parameters": t.get("parameters") or {"type": "object", "properties": {}}}}
                for t in request.tools]
        return body

    # -- transport --------------------------------------------------------------------------

    def _status_error(self, response: httpx.Response) -> LLMError:
        try:
            payload = response.json()
            err = payload.get("error") if isinstance(payload, dict) else None
            detail = err.get("message") if isinstance(err, dict) else (err or payload)
        except (ValueError, UnicodeDecodeError):
            detail = response.text
        message = redact(f"{self.model_id}: HTTP {response.status_code}: {detail}", [self._key])[:300]
        kind = kind_for_status(response.status_code)
        if kind == "bad_request":
            return LLMError(message, kind=kind, retryable=False)
        return TransientError(message, kind=kind,
                              retry_after=parse_retry_after(response.headers.get("retry-after")))

    def _transport_error(self, exc: httpx.HTTPError) -> LLMError:
        if isinstance(exc, httpx.TimeoutException):
            return TransientError(f"{self.base_url} の応答がタイムアウトしました", kind="timeout")
        if isinstance(exc, httpx.TransportError):
            text = redact(f"{self.base_url} に接続できません: {type(exc).__name__}", [self._key])
            return TransientError(text, kind="connection")
        return LLMError(redact(f"{self.base_url}: {type(exc).__name__}: {exc}", [self._key])[:300])

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._http.post(f"{self.base_url}{path}", json=body)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        if response.status_code >= 400:
            raise self._status_error(response)
        try:
            return response.json()
        except ValueError as exc:
            raise TransientError(f"{self.model_id}: JSON でない応答を受け取りました",
                                 kind="server_error") from exc

    # -- calls ------------------------------------------------------------------------------

    def _once(self, request: ChatRequest) -> ChatResult:
        payload = self._post("/chat/completions", self._body(request))
        choices = payload.get("choices") or []
        if not choices:
            raise TransientError(f"{self.model_id}: choices のない応答を受け取りました", kind="server_error")
        message = choices[0].get("message") or {}
        calls: list[ToolCall] = []
        for i, tc in enumerate(message.get("tool_calls") or []):
            fn = tc.get("function") or {}
            raw = fn.get("arguments") or "{}"
            try:
                args = json.loads(raw) if isinstance(raw, str) else dict(raw)
            except ValueError as exc:
                raise invalid_json_error(str(raw), ["ツール引数が JSON ではありません"]) from exc
            calls.append(ToolCall(name=fn.get("name", ""), arguments=args, id=tc.get("id") or f"call-{i}"))
        usage = payload.get("usage") or {}
        return ChatResult(text=message.get("content") or "", tool_calls=calls, model=self.name,
                          usage=Usage(input_tokens=int(usage.get("prompt_tokens") or 0),
                                      output_tokens=int(usage.get("completion_tokens") or 0)))

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once; retried on 429/5xx/timeouts; `data` holds the validated JSON for a schema."""
        return with_json_retry(
            lambda: call_with_retry(lambda: self._once(request), self.retry, what=self.model_id),
            request.response_schema, strict=True)

    def stream(self, request: ChatRequest) -> Iterator[str]:
        """Answer as text chunks (SSE `data:` lines up to `[DONE]`); opening is retried."""
        body = self._body(request, stream=True)

        def open_stream() -> httpx.Response:
            try:
                response = self._http.send(
                    self._http.build_request("POST", f"{self.base_url}/chat/completions", json=body),
                    stream=True)
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            if response.status_code >= 400:
                response.read()
                response.close()
                raise self._status_error(response)
            return response

        response = call_with_retry(open_stream, self.retry, what=self.model_id)
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                try:
                    event = json.loads(data)
                except ValueError:
                    continue  # keep-alive comments and partial junk carry no text
                for choice in event.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        yield text
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        finally:
            response.close()

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """Draw through `/images/generations` with `response_format: b64_json`."""
        body = {"model": self.image_model, "prompt": prompt, "n": 1, "size": self.image_size,
                "response_format": "b64_json"}

        def once() -> tuple[bytes, str]:
            payload = self._post("/images/generations", body)
            items = payload.get("data") or []
            b64 = items[0].get("b64_json") if items else None
            if not b64:
                raise LLMError(f"{self.image_model}: 画像が返されませんでした", kind="no_image")
            try:
                data = base64.b64decode(b64, validate=True)
            except ValueError as exc:
                raise LLMError(f"{self.image_model}: 画像データが壊れています", kind="no_image") from exc
            return data, sniff_mime(data)

        return call_with_retry(once, self.retry, what=self.image_model)
