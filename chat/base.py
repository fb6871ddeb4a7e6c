"""The model interface every provider implements.

One request shape (`ChatRequest`), one result shape (`ChatResult`), one error type (`LLMError`).
This package sits below `sea/`: the runtime sees only `ChatModel` and never a provider; the
providers live in the domain (`saiverse/llm/`) and are handed in (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

Role = Literal["system", "user", "assistant"]
"""Who said a message in a model conversation."""


class Message(TypedDict, total=False):
    """One message of a model conversation."""

    role: Role
    """`system`, `user` or `assistant`."""
    content: str
    """The text."""
    images: list[str]
    """Absolute paths of images attached to this message (vision input)."""
    name: str
    """Display name of the speaker, when the conversation has several."""


class ToolSpec(TypedDict, total=False):
    """A tool the model may call: name, description and JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]
    aliases: list[str]
    """Older argument names the tool also accepts (not shown to models; playbooks may use them)."""


class ToolCall(TypedDict, total=False):
    """A tool call the model asked for."""

    name: str
    arguments: dict[str, Any]
    id: str


class Usage(TypedDict, total=False):
    """Token counts reported by the provider (estimates for the offline model)."""

    input_tokens: int
    output_tokens: int


@dataclass
class ChatRequest:
    """Everything a provider needs for one call."""

    messages: list[Message]
    """The conversation, oldest first; `system` messages may appear anywhere."""
    system: str | None = None
    """The system prompt (persona profile, building instruction)."""
    response_schema: dict[str, Any] | None = None
    """JSON schema the answer must satisfy; the result's `data` then holds the parsed object."""
    tools: list[ToolSpec] = field(default_factory=list)
    """Tools the model may call instead of answering."""
    temperature: float | None = None
    """Sampling temperature, if the provider supports one."""
    persona_name: str | None = None
    """Name of the persona speaking; the offline model uses it for its voice."""
    max_tokens: int | None = None
    """Most tokens the answer may take; None: the provider's default for the kind of request
    (`default_max_tokens`). Callers that want a short answer (summaries) set it."""


@dataclass
class ChatResult:
    """A provider's answer."""

    text: str
    """The text (for structured output: the raw JSON text)."""
    data: Any = None
    """Parsed JSON when `response_schema` was given."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    """Tool calls the model asked for, if any."""
    usage: Usage = field(default_factory=lambda: Usage())
    """Token counts."""
    model: str = ""
    """The model that actually answered (after any fallback)."""


class ModelNotice(str):
    """A notice a model resolver returns beside the model, with its own event kind: `model_fallback` (a
    configured model is unavailable) or `budget` (a persona's daily budget is used up)."""

    kind: str

    def __new__(cls, text: str, kind: str = "model_fallback") -> ModelNotice:
        made = super().__new__(cls, text)
        made.kind = kind
        return made


def estimate_tokens(text: str) -> int:
    """Tokens of `text` when the model cannot count them (a stream reports none): a non-ASCII character
    (Japanese) is about one token, four ASCII characters about one."""
    wide = sum(1 for ch in text if ord(ch) > 127)
    return wide + (len(text) - wide + 3) // 4


class LLMError(Exception):
    """A model call that failed after retries; `kind` says how, for the error event."""

    def __init__(self, message: str, *, kind: str = "error", retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


class InvalidAnswer(LLMError):
    """A decision (structured output, a tool call's arguments) that the model answered with prose or
    broken JSON even after its one retry. Its `kind` is `invalid_json`. A pulse then lets the
    deterministic rules decide (sea/decisions.py)."""

    PROBLEMS = ("prose", "broken_json", "schema")
    """What can be wrong: no JSON at all, JSON that does not parse, or JSON that breaks the schema."""

    def __init__(self, message: str, *, problem: str = "broken_json", retried_as: str = "") -> None:
        super().__init__(message, kind="invalid_json", retryable=True)
        self.problem = problem
        """One of `PROBLEMS`: what was wrong with the last answer."""
        self.retried_as = retried_as
        """How the one retry enforced the format (`json_object`, `json_schema`, `tool`, …); empty: as the
        first try."""


class ChatModel(Protocol):
    """A model that can answer, stream, follow a JSON schema, call tools, see and draw."""

    name: str
    """Model name as configured (e.g. `offline`, `gemini-2.5-flash`, `openai:llama3`)."""
    provider: str
    """`offline`, `local`, `gemini`, `openai`, `openai-compatible` or `anthropic`."""
    supports_vision: bool
    """Whether `Message.images` are given to the model."""
    follows_instructions: bool
    """Whether the model writes what a free-form instruction asks: a plan, plan-patch ops, a chapter, a
    summary. False for the deterministic offline model, whose answers are mechanical; callers then use
    their own rules and templates instead of asking it."""

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once. With `response_schema`, `data` holds the validated JSON."""
        ...

    def stream(self, request: ChatRequest) -> Iterator[str]:
        """Answer as text chunks, in order; their concatenation is the full reply. A stream the answer
        length cut short (the provider's `length` / `max_tokens` / `MAX_TOKENS`) returns `CUT_LENGTH` as
        its generator's return value (`StopIteration.value`); a finished one returns None."""
        ...

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """Draw an image for `prompt`; returns (bytes, mime type)."""
        ...

    # Optional: a provider with its own tokenizer also implements `TokenCounter.count_tokens`;
    # callers check with `isinstance(model, TokenCounter)` and estimate otherwise. A model with a
    # fixed context window implements `ContextWindow.prompt_budget`.


CUT_LENGTH = "length"
"""What a stream returns when the answer length cut the reply short (it can be continued)."""
CUT_STOPPED = "stopped"
"""A reply the user stopped half-way (the pulse was cancelled while it streamed)."""

STRUCTURED_TOKENS = 768
"""Default answer length of a structured answer or a tool choice (routing, fields, plans)."""
REPLY_TOKENS = 1024
"""Default answer length of a streamed reply (what a persona says)."""
LONG_TEXT_TOKENS = 2048
"""Default answer length of free text asked for at once (chapters, documents)."""


def default_max_tokens(request: ChatRequest, *, streaming: bool = False) -> int:
    """The answer length a provider sends when `request.max_tokens` is None (every request carries one)."""
    if request.max_tokens:
        return request.max_tokens
    if request.response_schema is not None or request.tools:
        return STRUCTURED_TOKENS
    return REPLY_TOKENS if streaming else LONG_TEXT_TOKENS


@runtime_checkable
class ContextWindow(Protocol):
    """The optional part of `ChatModel`: a model whose prompt must fit a fixed window (a local model).

    The context builder caps a persona's token budget to `prompt_budget()`; callers check with
    `isinstance(model, ContextWindow)`.
    """

    def prompt_budget(self) -> int:
        """The most tokens a prompt may take, leaving room for the answer."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """The optional part of `ChatModel`: counting tokens with the provider's own tokenizer."""

    def count_tokens(self, text: str) -> int:
        """How many tokens `text` is for this model (locally: no network call)."""
        ...
