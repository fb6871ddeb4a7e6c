"""document_create: write a new document item and place it in the current building.

The document limits (length, NUL characters, the name) are the item store's, one rule for every
writer: a refusal comes back from `ctx.create_document` as a ToolError naming the limit.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool


@tool("document_create")
def document_create(
    ctx: ToolContext,
    name: Annotated[str, Field(description="Name of the document (e.g., '私の日記', 'SAIVerse使い方ガイド').")],
    description: Annotated[str, Field(
        description="Brief description of the document. This will be visible in item lists.")],
    content: Annotated[str, Field(description="Full text content of the document.")],
) -> str:
    """Create a new document item with text content and place it in the current building."""
    if not name.strip():
        raise ToolError("文書の名前が空です。")
    if not content.strip():
        raise ToolError("文書の内容が空です。")
    item = ctx.create_document(name.strip(), description.strip(), content)
    return f"文書「{item['name']}」を作成しました (item_id: {item['item_id']})。要約: {item['description']}"
