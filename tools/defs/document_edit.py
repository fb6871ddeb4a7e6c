"""document_edit (upstream v0.3): replace a document's whole text, or a range of its lines.

Line numbers are those `document_read` shows (from 1). `start_line`..`end_line` (inclusive; `end_line`
defaults to `start_line`) are replaced by `replacement`'s lines — an empty replacement deletes them;
`start_line` one past the last line appends. The edit runs on the document's newest text under its
lock (saiverse/world/_items.py `edit_document`), so two edits never lose one another.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool


def replace_lines(text: str, start_line: int, end_line: int | None, replacement: str) -> str:
    """`text` with lines start..end (1-based, inclusive) replaced by `replacement`'s lines."""
    lines = text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a final newline is not a line of its own
        tail = "\n"
    else:
        tail = ""
    count = len(lines) if text else 0
    end = start_line if end_line is None else end_line
    if start_line < 1 or start_line > count + 1:
        raise ToolArgumentError(f"start_line は 1〜{count + 1} にしてください (文書は {count} 行です)。")
    if start_line == count + 1:
        if end_line is not None and end_line != start_line:
            raise ToolArgumentError(f"末尾に足すときは end_line を省いてください (文書は {count} 行です)。")
        end = start_line - 1
    elif end < start_line or end > count:
        raise ToolArgumentError(f"end_line は {start_line}〜{count} にしてください (文書は {count} 行です)。")
    new = replacement.split("\n") if replacement != "" else []
    kept = (lines if text else [])
    return "\n".join(kept[:start_line - 1] + new + kept[end:]) + tail


@tool("document_edit")
def document_edit(
    ctx: ToolContext,
    item_id: Annotated[str, Field(description="The document item to edit.")],
    new_content: Annotated[str | None, Field(description="The whole new text (replaces everything).")] = None,
    start_line: Annotated[int | None, Field(description="First line to replace (from 1, as document_read numbers).")
                          ] = None,
    end_line: Annotated[int | None, Field(description="Last line to replace (default: start_line).")] = None,
    replacement: Annotated[str | None, Field(description="Text that replaces those lines (empty: delete).")] = None,
) -> str:
    """Edit a document: replace its whole text (new_content), or lines start_line..end_line with replacement."""
    if new_content is not None and (start_line is not None or replacement is not None):
        raise ToolArgumentError(
            "new_content (全文置換) と start_line/replacement (行の置換) はどちらか一方だけ指定してください。")
    if new_content is None and start_line is None:
        raise ToolArgumentError("new_content (全文) か start_line と replacement (行の置換) を指定してください。")
    if new_content is None and replacement is None:
        raise ToolArgumentError("行を置き換えるときは replacement を指定してください (空文字で削除)。")

    def edit(text: str) -> str:
        if new_content is not None:
            return new_content
        return replace_lines(text, start_line or 1, end_line, replacement or "")

    info = ctx.edit_document(item_id.strip(), edit)
    what = "全文を置き換えました" if new_content is not None else (
        f"{start_line}行目{'' if end_line in (None, start_line) else f'〜{end_line}行目'}を置き換えました")
    return json.dumps({"item_id": info["item_id"], "name": info["name"], "result": what}, ensure_ascii=False)
