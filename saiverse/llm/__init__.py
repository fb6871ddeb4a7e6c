"""Model providers behind one interface (docs/ARCHITECTURE.md, "Models"): offline (default), Gemini, OpenAI-compatible.

Callers use `resolve_model(name, settings)` to get a `ChatModel` (and a notice when it fell back to
offline), then `generate` / `stream` / `generate_image`. Failures surface as `LLMError`.
"""

from chat import (
    ChatModel,
    ChatRequest,
    ChatResult,
    LLMError,
    Message,
    Role,
    ToolCall,
    ToolSpec,
    Usage,
)
from saiverse.llm.offline import OFFLINE_NOTE, OfflineModel, describe_image, read_voice, summarize_text
from saiverse.llm.openai_compat import OpenAICompatModel
from saiverse.llm.registry import clear_model_cache, resolve_model
from saiverse.llm.retry import RetryPolicy, TransientError
from saiverse.llm.schema import parse_json_text, validate


def __getattr__(name: str) -> object:
    # google-genai takes ~0.6 s to import; only a configured Gemini model pays for it.
    if name == "GeminiModel":
        from saiverse.llm.gemini import GeminiModel

        return GeminiModel
    raise AttributeError(f"module 'saiverse.llm' has no attribute {name!r}")


__all__ = [
    "OFFLINE_NOTE",
    "ChatModel",
    "ChatRequest",
    "ChatResult",
    "GeminiModel",
    "LLMError",
    "Message",
    "OfflineModel",
    "OpenAICompatModel",
    "RetryPolicy",
    "Role",
    "ToolCall",
    "ToolSpec",
    "TransientError",
    "Usage",
    "clear_model_cache",
    "describe_image",
    "parse_json_text",
    "read_voice",
    "resolve_model",
    "summarize_text",
    "validate",
]
