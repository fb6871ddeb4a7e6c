"""Model providers behind one interface (docs/ARCHITECTURE.md, "Models"): local (llama.cpp), offline,
OpenAI, Anthropic, Gemini and OpenAI-compatible servers (saiverse/llm/names.py lists the name forms).

Callers use `resolve_model(name, settings)` to get a `ChatModel` (and a notice when it fell back to
offline), then `generate` / `stream` / `generate_image`. Failures surface as `LLMError`.

The providers that load an SDK or llama.cpp (`gemini`, `openai_sdk`, `anthropic_sdk`, `local`) are not
named here: each costs 0.4-1 s to import, and `resolve_model` imports only the one configured. A test that
builds one directly imports it from its own module (`from saiverse.llm.gemini import GeminiModel`).
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
from saiverse.llm.registry import clear_model_cache, describe_default, installed_models, provider_status, resolve_model
from saiverse.llm.retry import RetryPolicy, TransientError
from saiverse.llm.schema import parse_json_text, validate

__all__ = [
    "OFFLINE_NOTE",
    "ChatModel",
    "ChatRequest",
    "ChatResult",
    "LLMError",
    "Message",
    "OfflineModel",
    "describe_default",
    "installed_models",
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
