"""document_search: lines of a document matching a pattern (a regular expression), with context lines."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool

if TYPE_CHECKING:
    import regex as re

MAX_PATTERN = 200
MAX_MATCHES = 100
MAX_CONTEXT = 20
MAX_SEARCH_SECONDS = 2.0
"""Longest one search may take (the `regex` package counts the matcher's own time, so on a busy
machine the wall clock may show more): a pattern like `(a|aa)+$` can need years on a line of 40
characters (catastrophic backtracking); it is stopped here and refused, naming the pattern."""


@tool("document_search")
def document_search(
    ctx: ToolContext,
    item_id: Annotated[str, Field(description="Id of the document item to search.")],
    pattern: Annotated[str, Field(description="What to look for: plain words or a regular expression.")],
    case_sensitive: Annotated[bool, Field(description="Match upper/lower case exactly.")] = False,
    context_lines: Annotated[int, Field(description="Lines to show before and after each match (0-20).", ge=0)] = 2,
    max_matches: Annotated[int, Field(description="Most matches to show (1-100).", ge=1)] = 10,
) -> str:
    """Search a document item for a pattern (regular expressions work); shows matching lines with
    their line numbers and the lines around them, like grep. Read more with document_read.
    """
    if not pattern.strip():
        raise ToolArgumentError("tool 'document_search': pattern is empty")
    if len(pattern) > MAX_PATTERN:
        raise ToolArgumentError(f"tool 'document_search': pattern is longer than {MAX_PATTERN} characters")
    # The `regex` package (same syntax as `re`, and a match can be given a timeout) is loaded by the
    # first search: a C extension the app's start does not need.
    import regex as re

    try:
        regex = re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    except re.error as exc:
        raise ToolArgumentError(
            f"tool 'document_search': pattern {pattern!r} is not a valid regular expression ({exc}); "
            "put a backslash before ( ) [ ] * + ? . to search for them literally") from exc
    name = ctx.item(item_id.strip())["name"]
    lines = ctx.read_document(item_id.strip()).split("\n")
    limit, around = min(max_matches, MAX_MATCHES), min(context_lines, MAX_CONTEXT)
    hits = _matching_lines(regex, lines, pattern)
    if not hits:
        return f"文書「{name}」に「{pattern}」は見つかりませんでした (全 {len(lines)} 行)。"
    out = [f"[{name}] 「{pattern}」: {len(hits)} 件 (全 {len(lines)} 行)"]
    for i in hits[:limit]:
        out.append(f"--- {i + 1} 行目 ---")
        for j in range(max(0, i - around), min(len(lines), i + around + 1)):
            out.append(f"{'>' if j == i else ' '}{j + 1:6d}  {lines[j]}")
    if len(hits) > limit:
        out.append(f"(ほか {len(hits) - limit} 件。max_matches を増やすと表示します)")
    return "\n".join(out)


def _matching_lines(regex: re.Pattern[str], lines: list[str], pattern: str) -> list[int]:
    """Numbers of the lines `regex` finds something in, within MAX_SEARCH_SECONDS for the whole search."""
    deadline = time.monotonic() + MAX_SEARCH_SECONDS
    hits: list[int] = []
    try:
        for i, line in enumerate(lines):
            if regex.search(line, timeout=max(deadline - time.monotonic(), 0.001)):
                hits.append(i)
    except TimeoutError:
        raise ToolArgumentError(
            f"tool 'document_search': pattern {pattern!r} took longer than {MAX_SEARCH_SECONDS:g} seconds and was "
            "stopped (nested repeats such as (a+)+ can take forever); search for plain words or a simpler "
            "pattern") from None
    return hits
