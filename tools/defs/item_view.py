"""item_view: see a picture (given to a vision model as an image), read a document in full, or learn what an audio
item holds (its length and what is said in it: a persona reads, she does not hear)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, ToolOutput, tool

NOT_VIEWABLE = "このアイテムは view 操作に対応していません。"


@tool("item_view")
def item_view(ctx: ToolContext, item_id: Annotated[str, Field(description="Identifier of the item to view.")]) -> Any:
    """View the full content of a picture, document or audio item. Returns image data for pictures, full text
    for documents, and for audio its length and what is said in it.
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
    if item["type"] == "audio":
        seconds = (item.get("state") or {}).get("seconds")
        length = f" ({float(seconds):.1f} 秒)" if isinstance(seconds, (int, float)) else ""
        said = " ".join(str(item["description"]).split()) or "(話されている内容は分かりません)"
        return f"音声「{item['name']}」{length}。話されていること: {said}"
    raise ToolError(NOT_VIEWABLE)
