"""production_run: plan and make a multi-step creative work (a picture book, a document set)."""

from __future__ import annotations

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool(
    "production_run",
    "Plan and produce a multi-step work (e.g. an illustrated short story) with writer, researcher, visualizer "
    "and data analyst steps; the results become items in your building.",
    {"type": "object", "properties": {"request": {"type": "string", "description": "What to make."}},
     "required": ["request"]},
)
def production_run(ctx: ToolContext, request: str) -> str:
    request = request.strip()
    if not request:
        raise ToolError("何を作るかが空です。")
    return ctx.run_production(request)
