"""document_read: chosen lines of a document (numbered), for reading a long one part by part."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool

MAX_LINES = 500


@tool("document_read")
def document_read(
    ctx: ToolContext,
    item_id: Annotated[str, Field(description="Id of the document item.")],
    start_line: Annotated[int, Field(description="First line to read (1-based).", ge=1)] = 1,
    end_line: Annotated[int | None, Field(description="Last line to read (inclusive); default: 'limit' lines.",
                                          ge=1)] = None,
    limit: Annotated[int, Field(description="Lines to read when end_line is not given (1-500).", ge=1)] = 100,
) -> str:
    """Read lines of a document item, numbered from 1 (useful for long documents, section by section)."""
    if end_line is not None and end_line < start_line:
        raise ToolArgumentError(f"tool 'document_read': end_line ({end_line}) is before start_line ({start_line})")
    name = ctx.item(item_id.strip())["name"]
    lines = ctx.read_document(item_id.strip()).split("\n")
    total = len(lines)
    if start_line > total:
        raise ToolError(f"文書「{name}」は {total} 行しかありません ({start_line} 行目からは読めません)。")
    last = min(total, end_line if end_line is not None else start_line + min(limit, MAX_LINES) - 1,
               start_line + MAX_LINES - 1)
    body = [f"{i:6d}  {lines[i - 1]}" for i in range(start_line, last + 1)]
    more = f"\n(続きは start_line={last + 1} で読めます)" if last < total else ""
    return f"[{name}] {start_line}〜{last} 行目 / 全 {total} 行\n" + "\n".join(body) + more
