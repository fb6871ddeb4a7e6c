"""pdf_read: the text of chosen pages of a PDF document item."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool


def page_numbers(spec: str | None, total: int, name: str) -> list[int]:
    """`"3"`, `"1-5"`, `"4-"` or `"1,3,7-9"` (1-based) → page numbers; all pages when empty."""
    if spec is None or not str(spec).strip():
        return list(range(1, total + 1))
    numbers: list[int] = []
    for part in str(spec).replace("、", ",").split(","):
        first, dash, last = part.strip().partition("-")
        if not first.strip().isdigit() or (last.strip() and not last.strip().isdigit()):
            raise ToolArgumentError(f"tool 'pdf_read': pages must look like '3', '1-5' or '1,3,7-9', got {spec!r}")
        lo = int(first)
        hi = int(last) if last.strip() else (total if dash else lo)  # '4-' reads to the end
        if lo < 1 or hi < lo:
            raise ToolArgumentError(f"tool 'pdf_read': page range {part.strip()!r} is not valid")
        if lo > total:
            raise ToolError(f"PDF「{name}」は {total} ページしかありません ({lo} ページ目はありません)。")
        numbers += [n for n in range(lo, min(hi, total) + 1) if n not in numbers]
    return numbers


@tool("pdf_read")
def pdf_read(
    ctx: ToolContext,
    item_id: Annotated[str, Field(description="Id of the PDF document item.")],
    pages: Annotated[str, Field(description="Pages to read, e.g. '3', '1-5', '1,3,7-9'; empty for all.")] = "",
    max_chars: Annotated[int, Field(description="Most characters to return.", ge=200)] = 8000,
) -> str:
    """Read the text of a PDF document item, all pages or the pages you name."""
    name = ctx.item(item_id.strip())["name"]
    texts = ctx.pdf_pages(item_id.strip())
    chosen = page_numbers(pages, len(texts), name)
    shown = f"、{pages.strip()} ページを表示" if pages.strip() else ""
    out = f"【PDF】{name} (全 {len(texts)} ページ{shown})\n"
    for n in chosen:
        body = texts[n - 1] or "(このページには文字がありません — 画像だけのページかもしれません)"
        block = f"\n--- {n} ページ ---\n{body}\n"
        if len(out) + len(block) > max_chars:
            room = max_chars - len(out)
            if room > 40:
                out += block[:room]
            out += f"\n…({max_chars} 文字で打ち切りました。続きは pages='{n}-' のようにページを指定して読めます)"
            break
        out += block
    return out.rstrip()
