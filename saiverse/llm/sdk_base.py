"""What the OpenAI and Anthropic adapters share: one SDK client, mapped errors, retries, streams.

Each adapter builds its request body and reads its response (its `_once`, the stream's text) and holds
one `SdkCalls` for the parts that are the same for both: every SDK or transport failure goes through
`sdk_error` (never raw, never retried when the request itself was invalid), a call is retried by
`retry.call_with_retry`, and a stream is opened with retries and closed whatever happens.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import Any, TypeVar

from chat import CUT_LENGTH
from saiverse.llm.retry import RetryPolicy, call_with_retry
from saiverse.llm.sdk_errors import sdk_error

T = TypeVar("T")


class SdkCalls:
    """The calls of one SDK client, guarded and retried alike for every adapter."""

    def __init__(self, *, sdk: Any, client: Any, key: str | None, what: str, model_id: str, base_url: str,
                 retry: RetryPolicy) -> None:
        self.sdk = sdk
        """The SDK module (`openai`, `anthropic`): its exception types are mapped."""
        self.client = client
        self.key = key
        """Never shown: an error's text is scrubbed of it."""
        self.what = what
        """How errors name the model (`OpenAI gpt-4.1`)."""
        self.model_id = model_id
        self.base_url = base_url
        self.retry = retry

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.client.close()

    def guard(self, fn: Callable[[], T]) -> T:
        """`fn()`, every SDK or transport failure raised as `LLMError` (saiverse/llm/sdk_errors.py)."""
        try:
            return fn()
        except Exception as exc:  # every SDK/transport failure is mapped, none escapes raw
            raise sdk_error(exc, self.sdk, what=self.what, model_id=self.model_id, base_url=self.base_url,
                            secrets=[self.key]) from exc

    def retrying(self, once: Callable[[], T]) -> T:
        """`once()` under the retry policy."""
        return call_with_retry(once, self.retry, what=self.what)

    def stream_text(self, open_stream: Callable[[], Any], texts: Callable[[Any], Iterable[str]],
                    cut: Callable[[Any], bool] = lambda _event: False) -> Generator[str, None, str | None]:
        """Open a stream (retried), then yield the text of each event; a broken stream raises `LLMError`.
        Returns `CUT_LENGTH` when an event says the answer length cut the reply short (`cut`)."""
        stream = call_with_retry(lambda: self.guard(open_stream), self.retry, what=self.what)
        stopped = None
        try:
            iterator = iter(stream)
            while True:
                event = self.guard(lambda: next(iterator, None))
                if event is None:
                    return stopped
                yield from texts(event)
                if cut(event):
                    stopped = CUT_LENGTH
        finally:
            stream.close()
