"""Shared fixtures: every test gets its own data home (a temp dir), never ~/.saiverse.

`manager` opens a world there; `make_manager(model=...)` opens one whose every model call goes to
the given model (through the manager's `models` hook, not by patching). `ScriptedModel` answers from
a script (`enqueue`) and keeps every request in `history`; with nothing scripted for a request it
answers like the offline model, optionally slowly (a remote model's latency, for cancel tests).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import words
from chat import ChatModel, ChatRequest, ChatResult, LLMError, ToolCall
from saiverse.llm.offline import OfflineModel
from saiverse.settings import HOME_ENV, OPTIONS
from tests.pg import pg_cluster, pg_url  # noqa: F401 - the PostgreSQL fixtures, for every test module

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

ENV_KEYS = [
    HOME_ENV, *(option.env for option in OPTIONS),
    # Read by the pulse workers' modules themselves (saiverse/pulse/_remote.py, _queue.py), not through OPTIONS.
    "SAIVERSE_PULSE_WORKERS_REMOTE", "SAIVERSE_WORKER_HEARTBEAT", "SAIVERSE_WORKER_TICK",
]
"""Every variable the app reads: derived from saiverse/settings.py's `OPTIONS`, so a new setting is cleared too."""


@pytest.fixture(autouse=True)
def saiverse_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point SAIVERSE_HOME at a fresh temp dir and clear every other SAIVerse variable.

    SAIVERSE_RAISE_ERRORS is set, so a bug in a CLI subprocess shows its traceback in the test.
    SAIVERSE_DEFAULT_MODEL=offline keeps the deterministic model answering, so the suite stays fast
    and exact; tests marked `local_model` run the real llama.cpp model.
    """
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "offline")
    monkeypatch.setenv("SAIVERSE_DETECT_SERVERS", "0")  # no probing of this machine's model servers
    home = tmp_path / "home"
    monkeypatch.setenv("SAIVERSE_HOME", str(home))
    monkeypatch.setenv("SAIVERSE_RAISE_ERRORS", "1")
    monkeypatch.setattr(words, "_lang", "ja")  # a world opened in English by one test leaves the next in Japanese
    # A developer's .env must not leak into tests.
    monkeypatch.chdir(tmp_path)
    return home


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


@pytest.fixture
def make_manager(saiverse_home: Path) -> Iterator[Callable[..., SAIVerseManager]]:
    """Open managers on the test's data home (closed at the end); `model=` answers every call."""
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    opened: list[SAIVerseManager] = []

    def make(model: ChatModel | None = None, **kwargs: Any) -> SAIVerseManager:
        m = SAIVerseManager(load_settings(), models=only(model) if model is not None else None, **kwargs)
        opened.append(m)
        return m

    yield make
    for m in opened:
        m.close()


@pytest.fixture
def manager(make_manager: Callable[..., SAIVerseManager]) -> SAIVerseManager:
    """A world on the configured (offline) models."""
    return make_manager()


@pytest.fixture(scope="module")
def browser(running: Any) -> Iterator[Any]:
    """One headless Chromium per browser-test module (its `running` fixture serves the app)."""
    from tests.browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture
def page(running: Any, browser: Any) -> Iterator[Any]:
    """A fresh page on the served app, the user in the library."""
    from tests.browser import new_page

    running.manager.move_user("library")
    with new_page(browser, running.url) as p:
        p.wait_for_selector("#chat-header :text('図書館')")
        yield p
