"""What the OpenAI and Anthropic adapters share: one SDK client, mapped errors, retries, streams.

Each adapter builds its request body and reads its response (`_once`, the stream's text); this
class owns the parts that are the same for both: every SDK or transport failure goes through
`sdk_error` (never raw, never retried when the request itself was invalid), a call is retried by
`retry.call_with_retry`, and a stream is opened with retries and closed whatever happens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from chat import ChatRequest, ChatResult
from saiverse.llm.retry import RetryPolicy, call_with_retry
from saiverse.llm.sdk_errors import sdk_error

T = TypeVar("T")


class SdkChatModel:
    """Base of the SDK adapters; subclasses set the attributes below in `__init__` and define `_once`."""

    name: str
    model_id: str
    base_url: str
    retry: RetryPolicy
    _sdk: Any
    _client: Any
    _key: str | None
    _what: str
    """How errors name this model (`OpenAI gpt-4.1`)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def _guard(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except Exception as exc:  # every SDK/transport failure is mapped, none escapes raw
            raise sdk_error(exc, self._sdk, what=self._what, model_id=self.model_id, base_url=self.base_url,
                            secrets=[self._key]) from exc

    def _once(self, request: ChatRequest, mode: str | None) -> ChatResult:
        raise NotImplementedError

    def _retrying(self, request: ChatRequest, mode: str | None) -> ChatResult:
        return call_with_retry(lambda: self._once(request, mode), self.retry, what=self._what)

    def _stream_text(self, open_stream: Callable[[], Any], texts: Callable[[Any], Iterable[str]]) -> Iterator[str]:
        """Open a stream (retried), then yield the text of each event; a broken stream raises `LLMError`."""
        stream = call_with_retry(lambda: self._guard(open_stream), self.retry, what=self._what)
        try:
            iterator = iter(stream)
            while True:
                event = self._guard(lambda: next(iterator, None))
                if event is None:
                    return
                yield from texts(event)
        finally:
            stream.close()
