"""Tools personas can use: TOOL_REGISTRY (built from `tools.defs.BUILTIN_TOOLS`) and call_tool."""

from tools.context import ToolContext
from tools.defs import BUILTIN_TOOLS
from tools.registry import (
    ToolArgumentError,
    ToolDef,
    ToolError,
    ToolOutput,
    ToolUnavailableError,
    build_registry,
    call_tool,
    tool,
)

TOOL_REGISTRY: dict[str, ToolDef] = build_registry(BUILTIN_TOOLS)
"""Every builtin tool by name."""

__all__ = [
    "BUILTIN_TOOLS", "TOOL_REGISTRY", "ToolArgumentError", "ToolContext", "ToolDef", "ToolError", "ToolOutput",
    "ToolUnavailableError", "build_registry", "call_tool", "tool",
]
