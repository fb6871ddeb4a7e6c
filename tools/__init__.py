"""Tools personas can use: TOOL_REGISTRY (built from `tools.defs.BUILTIN_TOOLS`) and call_tool."""

from typing import Any

from tools.context import ToolContext
from tools.defs import BUILTIN_TOOLS
from tools.registry import (
    ToolArgumentError,
    ToolDef,
    ToolError,
    ToolOutput,
    ToolUnavailableError,
    build_registry,
    run_tool,
    tool,
)

TOOL_REGISTRY: dict[str, ToolDef] = build_registry(BUILTIN_TOOLS)
"""Every builtin tool by name."""


def call_tool(name: str, args: dict[str, Any], ctx: ToolContext, registry: dict[str, ToolDef] | None = None) -> Any:
    """Run a tool of `registry` (the builtin TOOL_REGISTRY unless given); wrong arguments raise
    ToolArgumentError with a precise message."""
    return run_tool(TOOL_REGISTRY if registry is None else registry, name, args, ctx)


__all__ = [
    "BUILTIN_TOOLS", "TOOL_REGISTRY", "ToolArgumentError", "ToolContext", "ToolDef", "ToolError", "ToolOutput",
    "ToolUnavailableError", "build_registry", "call_tool", "run_tool", "tool",
]
