"""update_working_memory: a small note (key → JSON value) the persona keeps across turns."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool

MAX_KEY = 100
MAX_VALUE = 20_000
MAX_KEYS = 100


@tool("update_working_memory")
def update_working_memory(
    ctx: ToolContext,
    key: Annotated[str, Field(description="Name of the note (e.g. 'current_goal').")],
    value: Annotated[Any, Field(description="Its value: text, a number, a list or an object; null removes it.")],
) -> str:
    """Keep (or update) a note in your working memory — short facts you want at hand in later turns."""
    name = key.strip()
    if not name or len(name) > MAX_KEY:
        raise ToolArgumentError(f"tool 'update_working_memory': key must be 1-{MAX_KEY} characters, got {key!r}")
    try:
        size = len(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ToolArgumentError(f"tool 'update_working_memory': value for {name!r} is not JSON ({exc})") from exc
    if size > MAX_VALUE:
        raise ToolArgumentError(
            f"tool 'update_working_memory': value for {name!r} is {size} characters (at most {MAX_VALUE})")
    memory = ctx.working_memory()
    if value is None:
        if name not in memory:
            return f"作業メモ「{name}」はもともとありません。"
        ctx.set_working_memory(name, None)
        return f"作業メモ「{name}」を消しました。"
    if name not in memory and len(memory) >= MAX_KEYS:
        raise ToolArgumentError(f"tool 'update_working_memory': working memory already holds {MAX_KEYS} notes; "
                                "remove one (value null) first")
    ctx.set_working_memory(name, value)
    return f"作業メモ「{name}」を{'更新' if name in memory else '追加'}しました。"
