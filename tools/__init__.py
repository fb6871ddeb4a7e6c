"""Tools personas can use: TOOL_REGISTRY (one module per tool in tools/defs/) and call_tool."""

from tools import defs as _defs  # noqa: F401  (registers every tool)
from tools.context import ToolContext
from tools.registry import TOOL_REGISTRY, ToolArgumentError, ToolDef, ToolError, ToolOutput, call_tool, tool

__all__ = [
    "TOOL_REGISTRY", "ToolArgumentError", "ToolContext", "ToolDef", "ToolError", "ToolOutput", "call_tool", "tool",
]
