"""The tool registry: schemas come from the functions, the list is explicit, misuse is refused."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from tools import BUILTIN_TOOLS, TOOL_REGISTRY, ToolArgumentError, ToolUnavailableError, build_registry, call_tool, tool


@pytest.mark.parametrize("name", sorted(TOOL_REGISTRY))
def test_schema_is_the_signature(name: str) -> None:
    t = TOOL_REGISTRY[name]
    fields = t.args_model.model_fields
    assert t.description, "the docstring is the description"
    assert set(t.parameters["properties"]) == set(fields)
    assert set(t.parameters.get("required", [])) == {k for k, f in fields.items() if f.is_required()}
    assert t.parameters["type"] == "object"
    assert all("title" not in prop for prop in t.parameters["properties"].values())  # no pydantic titles


def test_registry_is_built_from_the_explicit_list() -> None:
    assert set(build_registry(BUILTIN_TOOLS)) == set(TOOL_REGISTRY)


def test_annotated_descriptions_and_optional_arguments() -> None:
    @tool("greet")
    def greet(ctx: object, who: Annotated[str, Field(description="Whom to greet.")],
              times: int | None = None) -> str:
        """Say hello."""
        return f"hello {who} x{times or 1}"

    reg = build_registry([greet])
    params = reg["greet"].parameters
    assert params["properties"]["who"] == {"description": "Whom to greet.", "type": "string"}
    assert params["properties"]["times"] == {"type": "integer"}
    assert params["required"] == ["who"]
    assert call_tool("greet", {"who": "ミナ"}, None, reg) == "hello ミナ x1"  # type: ignore[arg-type]
    with pytest.raises(ToolArgumentError, match="unknown argument 'whom'"):
        call_tool("greet", {"whom": "ミナ"}, None, reg)  # type: ignore[arg-type]
    with pytest.raises(ToolArgumentError, match="argument 'who' is required"):
        call_tool("greet", {}, None, reg)  # type: ignore[arg-type]


def test_misuse_is_refused() -> None:
    def plain(ctx: object) -> None:
        """Not a tool."""

    with pytest.raises(TypeError, match="not decorated"):
        build_registry([plain])
    with pytest.raises(TypeError, match="needs a docstring"):
        @tool("nodoc")
        def nodoc(ctx: object) -> None:
            pass

    @tool("twin")
    def a(ctx: object) -> None:
        """A."""

    @tool("twin")
    def b(ctx: object) -> None:
        """B."""

    with pytest.raises(ValueError, match="two tools are named 'twin'"):
        build_registry([a, b])


def test_unavailable_tool_says_what_it_needs() -> None:
    @tool("searxng_search", unavailable="it needs a SearXNG server (set SAIVERSE_SEARXNG_URL)")
    def searxng_search(ctx: object, query: str) -> str:
        """Search the web."""
        raise AssertionError("never runs")

    reg = build_registry([searxng_search])
    with pytest.raises(ToolUnavailableError, match="not available here: it needs a SearXNG server"):
        call_tool("searxng_search", {"query": "x"}, None, reg)  # type: ignore[arg-type]
