"""TOOL_REGISTRY: name → ToolDef. A tool is a plain function `fn(ctx, **args)` with a JSON schema.

Arguments are checked against the function's signature with pydantic before the call, so a model
that sends a wrong or missing argument gets a message naming the tool and the argument.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from tools.context import ToolContext


class ToolError(Exception):
    """A tool call that failed; the message is for the persona and the user to read."""


class ToolArgumentError(ToolError, ValueError):
    """A tool called with arguments that do not fit its signature."""


@dataclass(frozen=True)
class ToolDef:
    """One tool: its name, description, JSON-schema parameters and implementation."""

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    args_model: type[BaseModel]

    def spec(self) -> dict[str, Any]:
        """What a model is shown (name, description, parameters)."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass
class ToolOutput:
    """A tool result with images the next model call should see (vision input)."""

    value: Any
    """What the playbook gets (`last`, `output_key`)."""
    images: list[str] = field(default_factory=list)
    """Absolute paths of images (inside the data home) to show the model."""


TOOL_REGISTRY: dict[str, ToolDef] = {}


def tool(name: str, description: str, parameters: dict[str, Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register `fn(ctx, **args)` as a tool."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOL_REGISTRY[name] = ToolDef(name, description, parameters, fn, _args_model(name, fn))
        return fn

    return wrap


def _args_model(name: str, fn: Callable[..., Any]) -> type[BaseModel]:
    """A pydantic model of the function's arguments after `ctx` (extra arguments forbidden)."""
    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    for i, (pname, param) in enumerate(inspect.signature(fn).parameters.items()):
        if i == 0:
            continue  # ctx
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (hints.get(pname, Any), default)
    return create_model(f"{name}_args", __config__=ConfigDict(extra="forbid", strict=False), **fields)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"] if p != "ctx") or "arguments"
        if err["type"] in ("missing_argument", "missing"):
            parts.append(f"argument {loc!r} is required")
        elif err["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            parts.append(f"unknown argument {loc!r}")
        else:
            parts.append(f"argument {loc!r}: {err['msg']}")
    return "; ".join(parts)


def call_tool(name: str, args: dict[str, Any], ctx: ToolContext) -> Any:
    """Run a registered tool; wrong arguments raise ToolArgumentError with a precise message."""
    tool_def = TOOL_REGISTRY.get(name)
    if tool_def is None:
        raise ToolError(f"unknown tool {name!r} (known: {', '.join(sorted(TOOL_REGISTRY))})")
    if not isinstance(args, dict):
        raise ToolArgumentError(f"tool {name!r}: arguments must be an object, got {type(args).__name__}")
    try:
        checked = tool_def.args_model.model_validate(args)
    except ValidationError as exc:
        raise ToolArgumentError(f"tool {name!r}: {_describe(exc)}") from exc
    return tool_def.fn(ctx, **{k: getattr(checked, k) for k in type(checked).model_fields})
