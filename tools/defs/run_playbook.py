"""run_playbook (upstream v0.3): run a playbook by name on a sub-line and get its report back.

The callee runs inside the current pulse as a child of the playbook that called the tool
(sea/tool_playbook.py): its own messages stay on its sub-line, the caller gets its `report_to_parent`.
Only playbooks marked `router_callable` may be run, at most four calls deep, as upstream allows.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, tool


@tool("run_playbook")
def run_playbook(
    ctx: ToolContext,
    name: Annotated[str, Field(description="The playbook to run (one list_available_playbooks shows).")],
) -> str:
    """Run a playbook on a sub-line and return its report (report_to_parent)."""
    if not name.strip():
        raise ToolArgumentError(
            "name に実行するプレイブックの名前を指定してください (list_available_playbooks で一覧)。")
    return ctx.run_playbook(name.strip())
