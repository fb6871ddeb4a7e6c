"""production_run: plan and make a multi-step creative work (a picture book, a document set)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool("production_run")
def production_run(ctx: ToolContext, request: Annotated[str, Field(description="What to make.")]) -> str:
    """Plan and produce a multi-step work (e.g. an illustrated short story) with writer, researcher,
    visualizer and data analyst steps; the results become items in your building.
    """
    request = request.strip()
    if not request:
        raise ToolError("何を作るかが空です。")
    return ctx.run_production(request)
