"""item_view: see a picture (given to a vision model as an image) or read a document in full."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, ToolOutput, tool

NOT_VIEWABLE = "このアイテムは view 操作に対応していません。"


@tool("item_view")
def item_view(ctx: ToolContext, item_id: Annotated[str, Field(description="Identifier of the item to view.")]) -> Any:
    """View the full content of a picture or document item. Returns image data for pictures and full text
    for documents.
    """
    item = ctx.item(item_id.strip())
    if item["type"] == "document":
        text = ctx.read_document(item["item_id"])
        return f"文書「{item['name']}」の全文:\n{text}"
    if item["type"] == "picture":
        path = ctx.picture_file(item["item_id"])
        value = {"type": "picture", "item_id": item["item_id"], "name": item["name"],
                 "file_path": item["file_path"], "summary": item["description"]}
        return ToolOutput(value=value, images=[path])
    raise ToolError(NOT_VIEWABLE)
