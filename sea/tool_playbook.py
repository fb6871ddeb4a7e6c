"""A playbook run from a tool call (upstream v0.3's `run_playbook`): the tool names a playbook and gets
back its report, as a `subplay` node with `line: "sub"` would (sea/calls.py).

Tools do not see the run that called them, so `sea.nodes.run_tool` marks the run for the length of
the call (`calling_tool`); `run_named` then runs the callee as that run's child, on a new sub-line.
Upstream allows four nested `run_playbook` calls (a fifth is refused with a message, the caller goes on)
and only playbooks marked `router_callable`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from sea.playbook import Node

if TYPE_CHECKING:  # sea.nodes imports this module
    from sea.nodes import Emit, RunContext

MAX_NESTED = 4
"""Upstream's limit of nested `run_playbook` calls (the main line is 0)."""

_CALLING: ContextVar[tuple[tuple[RunContext, Emit], ...]] = ContextVar("sea_calling_tool", default=())
"""The runs currently inside a tool call, innermost last."""
_NESTED: ContextVar[int] = ContextVar("sea_run_playbook_depth", default=0)


class ToolPlaybookError(Exception):
    """`run_named` cannot run the playbook (outside a pulse, unknown, not callable, too deep)."""


@contextmanager
def calling_tool(ctx: RunContext, emit: Emit) -> Iterator[None]:
    """Mark `ctx` as the run a tool call belongs to, while the call lasts."""
    token = _CALLING.set((*_CALLING.get(), (ctx, emit)))
    try:
        yield
    finally:
        _CALLING.reset(token)


def run_named(name: str) -> str:
    """Run playbook `name` as a child of the run calling the current tool; its report to the caller."""
    stack = _CALLING.get()
    if not stack:
        raise ToolPlaybookError("run_playbook はパルスの中 (プレイブックの実行中) でだけ使えます。")
    ctx, emit = stack[-1]
    callee = ctx.ports.playbook(name)
    callable_names = sorted(pb.name for pb in ctx.ports.router_playbooks())
    offer = f"呼べるもの: {', '.join(callable_names) or 'なし'}"
    if callee is None:
        raise ToolPlaybookError(f"プレイブック {name!r} はありません。{offer}")
    if name not in callable_names:
        raise ToolPlaybookError(f"プレイブック {name!r} は run_playbook からは呼べません (router_callable でない、"
                                f"または必要な設定がありません)。{offer}")
    depth = _NESTED.get()
    if depth >= MAX_NESTED:
        raise ToolPlaybookError(f"run_playbook の入れ子が上限 ({MAX_NESTED} 段) を超えるので {name!r} は呼べません。")
    from sea import calls, runtime  # sea.runtime imports this module's callers: bound at call time

    node = Node(id=f"run_playbook:{name}", type="subplay", playbook=name, line="sub")
    kept = len(ctx.messages)
    token = _NESTED.set(depth + 1)
    try:
        updates = calls._call(ctx, node, callee, {}, {"input": ""}, emit, runtime._invoke)  # noqa: SLF001
    finally:
        _NESTED.reset(token)
        del ctx.messages[kept:]  # the report comes back as the tool's result, not a second time
    return str(updates.get("report_to_parent", ""))
