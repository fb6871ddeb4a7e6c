"""generate_image: draw a picture and hang it in the current building as a picture item."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool("generate_image")
def generate_image(
    ctx: ToolContext, prompt: Annotated[str, Field(description="What to draw.")],
) -> tuple[str, str, str, dict[str, object]]:
    """Generate an image from a prompt; it becomes a picture item in your current building.

    Returns (text, snippet, file_path, metadata): the node's `output_keys`.
    """
    prompt = prompt.strip()
    if not prompt:
        raise ToolError("何を描くかが空です。")
    item = ctx.generate_picture(prompt)
    text = f"絵「{item['name']}」を描いて飾りました (item_id: {item['item_id']})。{item['description']}"
    snippet = f"[picture:{item['item_id']}] {item['name']}"
    return text, snippet, item["file_path"], {"item_id": item["item_id"], "prompt": prompt, **item["state"]}
