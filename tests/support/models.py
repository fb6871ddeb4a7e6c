"""The tests' scripted model and the `make_manager` type (the fixtures themselves are tests/conftest.py's).

`ScriptedModel` answers from a script (`enqueue`) and keeps every request in `history`; with nothing
scripted for a request it answers like the offline model, optionally slowly (a remote model's latency, for
cancel tests); `CuttingModel` streams the replies in its `cut` as an answer length would stop them.
`only(model)` is the manager's `models` hook that answers every persona and kind with it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chat import CUT_LENGTH, ChatModel, ChatRequest, ChatResult, LLMError, ToolCall
from saiverse.llm.offline import OfflineModel

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

MakeManager = Callable[..., "SAIVerseManager"]
"""The `make_manager` fixture: opens a manager on the test's home and store (`model=` answers every call)."""

@dataclass
class Scripted:
    """One scripted answer."""

    text: str = ""
    """The reply text (for structured output: made from `data` when empty)."""
    data: Any = None
    """The parsed structured answer, when the request has a `response_schema`."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    when: str | None = None
    """Only for a request whose last message contains this text (None: the next request)."""
    error: LLMError | None = None
    """Raise this instead of answering."""


class ScriptedModel(OfflineModel):
    """A model that answers from a script, like llm's MockModel.

    `enqueue()` adds answers, taken in order by the first request they fit; a request with nothing
    scripted gets the offline model's answer. `history` holds every request. `follows_instructions`
    says what the model reports about itself (True: production asks it to plan, patch and write).
    """

    name = "scripted"
    provider = "scripted"

    def __init__(self, *, follows_instructions: bool = True, chunk_delay: float = 0.0,
                 generate_delay: float = 0.0) -> None:
        self.follows_instructions = follows_instructions  # type: ignore[misc]
        self.chunk_delay = chunk_delay
        self.generate_delay = generate_delay
        self.queue: list[Scripted] = []
        self.history: list[ChatRequest] = []

    def enqueue(self, text: str = "", *, data: Any = None, tool_calls: list[ToolCall] | None = None,
                when: str | None = None, error: LLMError | None = None) -> None:
        self.queue.append(Scripted(text=text, data=data, tool_calls=list(tool_calls or []), when=when, error=error))

    def _take(self, request: ChatRequest) -> Scripted | None:
        last = request.messages[-1].get("content", "") if request.messages else ""
        for n, answer in enumerate(self.queue):
            if answer.when is None or answer.when in last:
                return self.queue.pop(n)
        return None

    def generate(self, request: ChatRequest) -> ChatResult:
        self.history.append(request)
        time.sleep(self.generate_delay)
        answer = self._take(request)
        if answer is None:
            return super().generate(request)
        if answer.error is not None:
            raise answer.error
        text = answer.text or (json.dumps(answer.data, ensure_ascii=False) if answer.data is not None else "")
        return ChatResult(text=text, data=answer.data, tool_calls=answer.tool_calls, model=self.name)

    def stream(self, request: ChatRequest) -> Iterator[str]:
        text = self.generate(request).text
        for i in range(0, len(text), 4):
            time.sleep(self.chunk_delay)
            yield text[i:i + 4]


def only(model: ChatModel) -> Callable[[Any, str], tuple[ChatModel, None]]:
    """A `models` hook for SAIVerseManager that answers every persona and kind with `model`."""
    return lambda persona, kind: (model, None)


class CuttingModel(ScriptedModel):
    """A scripted model whose streamed replies in `cut` stop as an answer length would stop them."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.cut: set[str] = set()

    def stream(self, request: ChatRequest) -> Generator[str, None, str | None]:  # type: ignore[override]
        text = self.generate(request).text
        for i in range(0, len(text), 4):
            time.sleep(self.chunk_delay)
            yield text[i:i + 4]
        return CUT_LENGTH if text in self.cut else None
