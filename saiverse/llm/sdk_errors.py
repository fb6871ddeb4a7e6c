"""The official SDKs' exceptions (openai, anthropic) → `LLMError`s that say what went wrong.

Both SDKs raise the same family: `APITimeoutError`, `APIConnectionError`, `APIStatusError` (with
`status_code` and the response body). Their own retries are switched off (`max_retries=0`) and
`retry.call_with_retry` repeats only what may succeed when tried again. A request the server
rejected as invalid — any 4xx but 429, or a 500 whose body says the input was invalid (llama.cpp's
server answers a bad `response_format` so) — is never retried. Keys are redacted from every text.
"""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

from chat import LLMError
from saiverse.llm.retry import TransientError, parse_retry_after, redact

_INVALID_INPUT = re.compile(
    r"input should be|validation error|invalid|not supported|unsupported|unrecognized|unknown (field|parameter|"
    r"argument)|extra (inputs|fields) (are )?not permitted|must be|is required|missing required|not allowed|"
    r"cannot be|does not support|expected",
    re.I,
)
_QUOTA = re.compile(r"insufficient_quota|quota|billing|credit balance|exceeded your current", re.I)
_FEATURE = re.compile(r"response_format|json_schema|json_object|schema|tool|function|grammar|output_config|format",
                      re.I)


def detail_of(body: Any, fallback: str = "") -> str:
    """The human part of an error body (`{"error": {"message": …}}` and the like)."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            message = err.get("message") or err.get("detail") or json.dumps(err, ensure_ascii=False)
            return str(message)
        return str(err)
    if isinstance(body, str | bytes):
        return body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return fallback


def rejected_as_invalid(status: int, detail: str) -> bool:
    """Whether a status and body mean "this request is wrong" (so trying it again cannot help)."""
    if 400 <= status < 500:
        return status not in (408, 409, 429)
    return status == 500 and bool(_INVALID_INPUT.search(detail))


def about_structured_output(detail: str) -> bool:
    """Whether a rejection names the structured-output or tool part of the request."""
    return bool(_FEATURE.search(detail))


class RejectedRequest(LLMError):
    """The server refused the request as invalid; `detail` is its reason (never retried)."""

    def __init__(self, message: str, *, kind: str, detail: str, status: int) -> None:
        super().__init__(message, kind=kind, retryable=False)
        self.detail = detail
        self.status = status


def status_error(what: str, model_id: str, status: int, detail: str, headers: Any,
                 secrets: list[str | None]) -> LLMError:
    """The `LLMError` for an HTTP error answer of a model server."""
    shown = redact(detail, secrets)[:240]
    if status == 401:
        return RejectedRequest(f"{what}: API キーが受け付けられませんでした (HTTP 401): {shown}",
                               kind="auth", detail=detail, status=status)
    if status == 403:
        return RejectedRequest(f"{what}: このキーでは「{model_id}」を使えません (HTTP 403): {shown}",
                               kind="permission", detail=detail, status=status)
    if status == 404:
        return RejectedRequest(f"{what}: モデル「{model_id}」が見つかりません (HTTP 404): {shown}",
                               kind="not_found", detail=detail, status=status)
    if status in (402, 429) and _QUOTA.search(detail):
        return RejectedRequest(f"{what}: 利用枠 (クォータ・残高) を使い切っています (HTTP {status}): {shown}",
                               kind="quota", detail=detail, status=status)
    retry_after = parse_retry_after(headers.get("retry-after") if headers is not None else None)
    if status == 429:
        return TransientError(f"{what}: HTTP 429: {shown}", kind="rate_limited", retry_after=retry_after)
    if rejected_as_invalid(status, detail):
        return RejectedRequest(f"{what}: リクエストが受け付けられませんでした (HTTP {status}): {shown}",
                               kind="bad_request", detail=detail, status=status)
    if status >= 500:
        return TransientError(f"{what}: HTTP {status}: {shown}", kind="server_error", retry_after=retry_after)
    return RejectedRequest(f"{what}: HTTP {status}: {shown}", kind="bad_request", detail=detail, status=status)


def sdk_error(exc: Exception, sdk: ModuleType, *, what: str, model_id: str, base_url: str,
              secrets: list[str | None]) -> LLMError:
    """The `LLMError` for an exception an official SDK (`openai` or `anthropic`) raised."""
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, sdk.APITimeoutError):
        return TransientError(f"{what}: {base_url} の応答がタイムアウトしました", kind="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return TransientError(redact(f"{what}: {base_url} に接続できません ({type(exc).__name__})", secrets),
                              kind="connection")
    if isinstance(exc, sdk.APIStatusError):
        response = getattr(exc, "response", None)
        body: Any = getattr(exc, "body", None)
        if body is None and response is not None:
            try:
                body = response.json()
            except ValueError:
                body = response.text
        detail = detail_of(body, getattr(exc, "message", "") or str(exc))
        return status_error(what, model_id, int(exc.status_code), detail,
                            getattr(response, "headers", None), secrets)
    return LLMError(redact(f"{what}: {type(exc).__name__}: {exc}", secrets)[:300])
