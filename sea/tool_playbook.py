"""A playbook run from a tool call (upstream v0.3's `run_playbook`): the tool names a playbook and gets
back its report, as a `subplay` node with `line: "sub"` would (sea/calls.py).

Tools do not see the run that called them, so `sea.nodes.run_tool` marks the run for the length of
the call (`sea.nodes.calling_tool`); `run_named` then runs the callee as that run's child, on a new
sub-line, through the run's own `invoke`. Upstream allows four nested `run_playbook` calls (a fifth is
refused with a message, the caller goes on) and only playbooks marked `router_callable`.
"""

from __future__ import annotations

from contextvars import ContextVar

from sea.calls import run_subplay
from sea.nodes import calling_run
from sea.playbook import Node

MAX_NESTED = 4
"""Upstream's limit of nested `run_playbook` calls (the main line is 0)."""

_NESTED: ContextVar[int] = ContextVar("sea_run_playbook_depth", default=0)


class ToolPlaybookError(Exception):
    """`run_named` cannot run the playbook (outside a pulse, unknown, not callable, too deep)."""


def run_named(name: str) -> str:
    """Run playbook `name` as a child of the run calling the current tool; its report to the caller."""
    calling = calling_run()
    if calling is None or calling[0].invoke is None:
        raise ToolPlaybookError("run_playbook はパルスの中 (プレイブックの実行中) でだけ使えます。")
    ctx, emit = calling
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
    node = Node(id=f"run_playbook:{name}", type="subplay", playbook=name, line="sub")
    kept = len(ctx.messages)
    token = _NESTED.set(depth + 1)
    try:
        updates = run_subplay(ctx, node, {"input": ""}, emit, ctx.invoke)
    finally:
        _NESTED.reset(token)
        del ctx.messages[kept:]  # the report comes back as the tool's result, not a second time
    return str(updates.get("report_to_parent", ""))
