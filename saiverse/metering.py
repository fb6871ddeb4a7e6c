"""Model calls made outside a chat pulse, counted where they are made: a Chronicle summary, a production
run's plan, patches and chapters, a generated picture. A pulse adds up its own calls and records them when
it ends (saiverse/pulse/_controller.py); these calls have no pulse, so the model they are handed is
`Metered`: each answer is recorded at once, for the persona it was made for, in the same table
(saiverse/costs.py `Costs.record`) that 設定 → 💰 利用量, `python main.py usage` and the daily budget read.

An item's summary is asked of a model by name deep in the item store, which knows no persona: while a
persona's tool call or production run works, `acting_for` says whom it works for, and the summariser
(saiverse/world/_summaries.py) meters its call for her.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from chat import ChatModel, ChatRequest, ChatResult, estimate_tokens

Record = Callable[[str, list[tuple[str, int, int]]], None]
"""`Costs.record`: (persona id, [(model, input tokens, output tokens)])."""
ModelResolver = Callable[[Any, str], tuple[ChatModel, "str | None"]]

_acting: ContextVar[str] = ContextVar("saiverse_acting_for", default="")


@contextmanager
def acting_for(persona_id: str) -> Iterator[None]:
    """While the block runs (in this thread, and the context it hands on), calls are made for `persona_id`."""
    token = _acting.set(persona_id)
    try:
        yield
    finally:
        _acting.reset(token)


def acting() -> str:
    """The persona the calls made now are for ('' outside a persona's tool call or production run)."""
    return _acting.get()


def _asked(request: ChatRequest) -> int:
    """Input tokens of a request when the provider reports none (a stream): its text estimated."""
    said = (m.get("content") if isinstance(m, dict) else getattr(m, "content", "") for m in request.messages)
    text = (request.system or "") + "".join(str(s or "") for s in said)
    return estimate_tokens(text)


def _said(model: ChatModel, text: str) -> int:
    count = getattr(model, "count_tokens", None)
    return int(count(text)) if callable(count) and text else estimate_tokens(text)


class Metered:
    """`model`, except that every answer it gives is recorded for `persona_id` as it is given.

    Everything else (name, provider, what it supports, its tokenizer) is the model's own."""

    def __init__(self, model: ChatModel, persona_id: str, record: Record) -> None:
        self._model = model
        self._persona_id = persona_id
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def _count(self, model: str, took: int, gave: int) -> None:
        self._record(self._persona_id, [(model or self._model.name, max(0, took), max(0, gave))])

    def generate(self, request: ChatRequest) -> ChatResult:
        result = self._model.generate(request)
        usage = result.usage
        took = int(usage.get("input_tokens") or 0) or _asked(request)
        gave = int(usage.get("output_tokens") or 0) or _said(self._model, result.text or "")
        self._count(result.model, took, gave)
        return result

    def stream(self, request: ChatRequest) -> Iterator[str]:
        parts: list[str] = []
        try:
            ended = yield from _collect(self._model.stream(request), parts)
        finally:  # a stream stopped midway still cost what it said
            self._count("", _asked(request), _said(self._model, "".join(parts)))
        return ended

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        made = self._model.generate_image(prompt)
        self._count("", estimate_tokens(prompt), 0)  # one call; a picture's price is not in tokens
        return made


def _collect(stream: Iterator[str], parts: list[str]) -> Any:
    """The stream's chunks passed on and kept in `parts`; its return value (why it ended) returned."""
    while True:
        try:
            chunk = next(stream)
        except StopIteration as end:
            return end.value
        parts.append(chunk)
        try:
            yield chunk
        except GeneratorExit:
            close = getattr(stream, "close", None)
            if callable(close):
                close()  # a local model's child stops at its next token
            raise


def metered(resolve: ModelResolver, record: Record) -> ModelResolver:
    """`resolve`, with each persona's model `Metered` for her (a call for no persona is not counted)."""

    def model_for(persona: Any, kind: str) -> tuple[ChatModel, str | None]:
        model, notice = resolve(persona, kind)
        persona_id = str((persona or {}).get("persona_id") or "")
        return (Metered(model, persona_id, record) if persona_id else model), notice  # type: ignore[return-value]

    return model_for
