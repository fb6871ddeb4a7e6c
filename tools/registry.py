"""Tools as plain functions: `@tool("name")` derives everything a model is shown from the function.

A tool is `fn(ctx, **args)`. Its description is the docstring's first paragraph; its arguments are
the signature after `ctx` (types, defaults, and `Annotated[..., Field(description=...)]`), turned
into a pydantic model that both checks a call's arguments and produces the JSON schema. There is no
second, hand-written schema to drift from the code. Which tools exist is an explicit list
(`tools/defs/__init__.py`, `BUILTIN_TOOLS`), built into a registry by `build_registry`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from tools.context import ToolContext


class ToolError(Exception):
    """A tool call that failed; the message is for the persona and the user to read."""


class ToolArgumentError(ToolError, ValueError):
    """A tool called with arguments that do not fit its signature."""


class ToolUnavailableError(ToolError):
    """A tool that exists upstream but cannot work here (it needs a service this install lacks)."""


@dataclass(frozen=True)
class ToolDef:
    """One tool: its name, description, JSON-schema parameters and implementation.

    The pydantic model of its arguments (and the JSON schema made from it) is built on first use,
    not when the tool is registered: the app's start registers every tool and uses none
    (README, "Benchmarks": start-up)."""

    name: str
    """The name playbooks and models call it by."""
    description: str
    """What the model is told the tool does (the function's docstring)."""
    fn: Callable[..., Any]
    """The implementation, `fn(ctx, **args)`."""
    arg_names: tuple[str, ...]
    """The arguments' names (the signature after `ctx`), in order."""
    unavailable: str | None = None
    """Why the tool cannot run here (None when it can)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Older argument names still accepted (old name → the name in the signature); not in the schema."""

    @cached_property
    def args_model(self) -> type[BaseModel]:
        """Pydantic model of the arguments (extra arguments forbidden)."""
        return _args_model(self.name, self.fn)

    @cached_property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments, derived from `args_model`."""
        return json_schema(self.args_model)

    def spec(self) -> dict[str, Any]:
        """What a model is shown (name, description, parameters)."""
        spec: dict[str, Any] = {"name": self.name, "description": self.description, "parameters": self.parameters}
        if self.aliases:
            spec["aliases"] = sorted(self.aliases)
        return spec


@dataclass
class ToolOutput:
    """A tool result with images the next model call should see (vision input)."""

    value: Any
    """What the playbook gets (`last`, `output_key`)."""
    images: list[str] = field(default_factory=list)
    """Absolute paths of images (inside the data home) to show the model."""


def tool(
    name: str, *, unavailable: str | None = None, aliases: dict[str, str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark `fn(ctx, **args)` as the tool `name`; `build_registry` collects it.

    `unavailable` registers a tool that exists upstream but needs a service this install does not
    have: calling it raises `ToolUnavailableError` with that message. `aliases` maps older argument
    names to the signature's names, so calls written before a rename keep working.
    """

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = inspect.getdoc(fn) or ""
        description = doc.split("\n\n")[0].replace("\n", " ").strip()
        if not description:
            raise TypeError(f"tool {name!r}: the function needs a docstring (it is the tool's description)")
        arg_names = tuple(list(inspect.signature(fn).parameters)[1:])  # after ctx
        renames = dict(aliases or {})
        unknown = sorted(set(renames.values()) - set(arg_names))
        if unknown:
            raise TypeError(f"tool {name!r}: aliases point at arguments it does not have: {', '.join(unknown)}")
        fn.tool_def = ToolDef(name, description, fn, arg_names, unavailable, renames)  # type: ignore[attr-defined]
        return fn

    return wrap


def build_registry(functions: Iterable[Callable[..., Any]]) -> dict[str, ToolDef]:
    """name → ToolDef for functions decorated with `@tool`; a duplicate name is an error."""
    registry: dict[str, ToolDef] = {}
    for fn in functions:
        tool_def = getattr(fn, "tool_def", None)
        if not isinstance(tool_def, ToolDef):
            raise TypeError(f"{getattr(fn, '__name__', fn)!r} is not decorated with @tool")
        if tool_def.name in registry:
            raise ValueError(f"two tools are named {tool_def.name!r}")
        registry[tool_def.name] = tool_def
    return registry


def _args_model(name: str, fn: Callable[..., Any]) -> type[BaseModel]:
    """A pydantic model of the function's arguments after `ctx` (extra arguments forbidden)."""
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for i, (pname, param) in enumerate(inspect.signature(fn).parameters.items()):
        if i == 0:
            continue  # ctx
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (hints.get(pname, Any), default)
    return create_model(f"{name}_args", __config__=ConfigDict(extra="forbid", strict=False), **fields)


def _clean(schema: Any, *, names: bool = False) -> Any:
    """Drop pydantic's titles and fold `X | None` into `X`: model APIs want plain JSON schema.
    `names`: `schema` maps property names to schemas, so a property called `title` stays."""
    if isinstance(schema, list):
        return [_clean(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _clean(v) for k, v in schema.items() if k not in ("title", "properties")}
    if isinstance(schema.get("properties"), dict):  # property names are data: an argument may be called "title"
        out["properties"] = {name: _clean(sub) for name, sub in schema["properties"].items()}
    options = out.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(options):
            out.pop("anyOf")
            out = {**kept[0], **out}
    if out.get("default", 0) is None:
        out.pop("default")
    return out


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema a model is shown for a tool's arguments."""
    schema = _clean(model.model_json_schema())
    schema.setdefault("properties", {})
    schema["type"] = "object"
    if not schema.get("required"):
        schema.pop("required", None)
    schema.pop("additionalProperties", None)
    return schema


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


def _renamed(tool_def: ToolDef, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with old argument names replaced by the current ones (both given is an error)."""
    if not tool_def.aliases or not any(k in tool_def.aliases for k in args):
        return args
    out = {k: v for k, v in args.items() if k not in tool_def.aliases}
    for old, new in tool_def.aliases.items():
        if old in args:
            if new in args:
                raise ToolArgumentError(f"tool {tool_def.name!r}: give {new!r} or its old name {old!r}, not both")
            out[new] = args[old]
    return out


def _accepts_text(annotation: Any) -> bool:
    if annotation is str or annotation is Any:
        return True
    return any(_accepts_text(a) for a in get_args(annotation) if a is not type(None))


def _drop_unset(tool_def: ToolDef, args: dict[str, Any]) -> dict[str, Any]:
    """Optional arguments given as null (or as "" where no text fits) count as not given.

    Models send nulls for what they leave out, and upstream playbooks pass "" for an unset state
    path (upstream's tools treat both as absent), so the signature's default applies instead.
    """
    fields = tool_def.args_model.model_fields
    out = {}
    for key, value in args.items():
        field_info = fields.get(key)
        if field_info is not None and not field_info.is_required() and (
                (value is None and field_info.default is not None)
                or (value == "" and not _accepts_text(field_info.annotation))):
            continue
        out[key] = value
    return out


def run_tool(tools: dict[str, ToolDef], name: str, args: dict[str, Any], ctx: ToolContext) -> Any:
    """Run the tool `name` of `tools`; wrong arguments raise ToolArgumentError with a precise message.
    (`tools.call_tool` runs one of the builtin registry: the package's face owns that registry.)"""
    tool_def = tools.get(name)
    if tool_def is None:
        raise ToolError(f"unknown tool {name!r} (known: {', '.join(sorted(tools))})")
    if tool_def.unavailable:
        raise ToolUnavailableError(f"tool {name!r} is not available here: {tool_def.unavailable}")
    if not isinstance(args, dict):
        raise ToolArgumentError(f"tool {name!r}: arguments must be an object, got {type(args).__name__}")
    args = _renamed(tool_def, args)
    args = _drop_unset(tool_def, args)
    try:
        checked = tool_def.args_model.model_validate(args)
    except ValidationError as exc:
        raise ToolArgumentError(f"tool {name!r}: {_describe(exc)}") from exc
    return tool_def.fn(ctx, **{k: getattr(checked, k) for k in type(checked).model_fields})
