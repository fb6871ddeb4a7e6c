"""The model interface: what the SEA runtime needs of a model, with no provider in it.

Like langgraph's `checkpoint.base`, this is an interface package: `sea/` depends on it, and the
providers in `saiverse/llm/` implement it.
"""

from chat.base import (
    CUT_LENGTH,
    CUT_STOPPED,
    ChatModel,
    ChatRequest,
    ChatResult,
    ContextWindow,
    InvalidAnswer,
    LLMError,
    Message,
    ModelNotice,
    Role,
    TokenCounter,
    ToolCall,
    ToolSpec,
    Usage,
    default_max_tokens,
    estimate_tokens,
)

__all__ = [
    "CUT_LENGTH", "CUT_STOPPED", "ChatModel", "ChatRequest", "ChatResult", "ContextWindow", "InvalidAnswer",
    "LLMError", "Message", "ModelNotice", "Role",
    "TokenCounter", "ToolCall", "ToolSpec", "Usage", "default_max_tokens",
    "estimate_tokens",
]
