"""Retry with exponential backoff for the online providers, and secret redaction for their errors.

A provider turns every failure of one attempt into an `LLMError` (a `TransientError` when trying
again may help: 429, 5xx, timeout, connection). `call_with_retry` repeats transient failures with
backoff — honouring the server's `Retry-After` — and finally raises a plain `LLMError` of the same
kind with `retryable=True`, so the runtime can show an error event and the user can try again.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from chat import ChatResult, InvalidAnswer, LLMError
from saiverse.llm.schema import drop_added_nulls, parse_json_text, validate

log = logging.getLogger(__name__)
T = TypeVar("T")

_KIND_TEXT = {
    "rate_limited": "レート制限（429）",
    "server_error": "サーバーエラー",
    "timeout": "タイムアウト",
    "connection": "接続エラー",
}


class TransientError(LLMError):
    """One failed attempt that may succeed when tried again; carries the server's `Retry-After`."""

    def __init__(self, message: str, *, kind: str, retry_after: float | None = None) -> None:
        super().__init__(message, kind=kind, retryable=True)
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry. Tests pass tiny delays."""

    attempts: int = 4
    """Total attempts, the first included."""
    base_delay: float = 1.0
    """Delay before the second attempt; doubles each time."""
    max_delay: float = 30.0
    """Cap of one delay, `Retry-After` included (a server asking for minutes is not waited for)."""
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    """How to wait (tests may record instead of sleeping)."""

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay)
        return min(self.base_delay * (2 ** (attempt - 1)), self.max_delay)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header (delta-seconds or an HTTP date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def kind_for_status(status: int) -> str:
    """Error kind of an HTTP status: 429 → rate_limited, 5xx → server_error, other → bad_request."""
    if status == 429:
        return "rate_limited"
    if status >= 500:
        return "server_error"
    return "bad_request"


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every secret replaced by `***` (keys must never reach a message or a log)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def call_with_retry(fn: Callable[[], T], policy: RetryPolicy, *, what: str = "model call") -> T:
    """Run `fn`, retrying `TransientError`s per `policy`; other errors pass through at once."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except TransientError as exc:
            if attempt >= policy.attempts:
                reason = _KIND_TEXT.get(exc.kind, exc.kind)
                raise LLMError(
                    f"{what}: {reason}のため {attempt} 回試みて失敗しました: {exc}",
                    kind=exc.kind, retryable=True,
                ) from exc
            wait = policy.delay(attempt, exc.retry_after)
            log.info("%s failed (%s), retrying in %.2fs (attempt %d/%d)",
                     what, exc.kind, wait, attempt + 1, policy.attempts)
            policy.sleep(wait)


def problem_of(text: str, problems: list[str] | None = None) -> str:
    """What is wrong with an answer that failed validation (`chat.InvalidAnswer.PROBLEMS`): `prose`
    (no JSON in it at all), `broken_json` (JSON that does not parse) or `schema` (parsed, but wrong)."""
    try:
        parse_json_text(text)
    except ValueError:
        return "broken_json" if text.strip().startswith(("{", "[", "```")) else "prose"
    return "schema" if problems else "broken_json"


def invalid_json_error(text: str, problems: list[str] | None = None, *, retried_as: str = "") -> InvalidAnswer:
    """The error for a model that answered invalid JSON twice; quotes a short prefix of it."""
    prefix = text.strip().replace("\n", " ")[:80]
    detail = f"（{problems[0]}）" if problems else ""
    return InvalidAnswer(
        f"モデルが不正な JSON を返しました (model answered invalid JSON){detail}: "
        f"「{prefix}{'…' if len(text.strip()) > 80 else ''}」",
        problem=problem_of(text, problems), retried_as=retried_as,
    )


def with_json_retry(call: Callable[[], ChatResult], schema: dict | None, *,
                    strict: bool = False) -> ChatResult:
    """Run `call`; with a schema, parse and validate its text into `data`, asking once more when
    the answer is not valid JSON for the schema, then raising `invalid_json`.

    `strict`: the schema was sent through `strict_schema`, so optional fields may come back null.
    """
    result = call()
    if schema is None or result.tool_calls:
        return result
    problems: list[str] = []
    for attempt in range(2):
        if attempt:
            log.info("model answered invalid JSON (%s), asking once more", problems[:1])
            result = call()
            if result.tool_calls:
                return result
        try:
            data = parse_json_text(result.text)
        except ValueError as exc:
            problems = [f"JSON として読めません: {exc.msg}" if hasattr(exc, "msg") else str(exc)]
            continue
        if strict:
            data = drop_added_nulls(data, schema)
        problems = validate(data, schema)
        if not problems:
            result.data = data
            return result
    raise invalid_json_error(result.text, problems)
