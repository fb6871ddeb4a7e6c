"""Model providers behind one interface (docs/ARCHITECTURE.md, "Models"): local (llama.cpp), offline,
OpenAI, Anthropic, Gemini and OpenAI-compatible servers (saiverse/llm/names.py lists the name forms).

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
from saiverse.llm.registry import clear_model_cache, describe_default, provider_status, resolve_model
from saiverse.llm.retry import RetryPolicy, TransientError
from saiverse.llm.schema import parse_json_text, validate


def __getattr__(name: str) -> object:
    # The SDKs and llama.cpp take 0.4-1 s each to import; only a configured model pays for its own.
    if name == "GeminiModel":
        from saiverse.llm.gemini import GeminiModel

        return GeminiModel
    if name == "OpenAIModel":
        from saiverse.llm.openai_sdk import OpenAIModel

        return OpenAIModel
    if name == "AnthropicModel":
        from saiverse.llm.anthropic_sdk import AnthropicModel

        return AnthropicModel
    if name == "LocalModel":
        from saiverse.llm.local import LocalModel

        return LocalModel
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
    "OpenAIModel",
    "AnthropicModel",
    "LocalModel",
    "describe_default",
    "provider_status",
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
