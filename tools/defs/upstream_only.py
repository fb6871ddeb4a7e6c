"""Upstream tools built on parts of upstream this app does not have (tasks, threads, phenomena, …).

Registered with upstream's arguments so a playbook naming one loads and fails, when it reaches the
tool, with a message saying what is missing and what to use instead.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.defs.network import unavailable
from tools.registry import tool

CALL_PLAYBOOK = ("旧い call_playbook の代わりに v0.3 の run_playbook (引数 name) を使ってください。"
                 "プレイブックの subplay / exec ノードでも呼べます。")
TASKS = "アップストリームのタスク管理 (task_*) はこのアプリにはありません。予定は schedule_add で立てられます。"
VISUAL = "建物の内装画像やアバター画像の仕組みがないため使えません。絵は item_view で見られます。"
PHENOMENON = "アップストリームの「現象」(phenomenon) の仕組みはこのアプリにはありません。"
URI = "saiverse:// の参照は使えません。アイテムは item_view / document_read、記憶は memory_recall で読めます。"
SAVE_PLAYBOOK = ("ペルソナがプレイブックを保存する仕組みはありません。"
                 "ユーザーが python main.py import-playbook FILE で取り込めます。")
THREADS = "会話スレッドの切り替えはありません (ペルソナの記憶はひとつの流れです)。"


@tool("call_playbook", unavailable=CALL_PLAYBOOK)
def call_playbook(ctx: ToolContext, playbook_name: str) -> str:
    """Run another playbook by name."""
    return unavailable("call_playbook", CALL_PLAYBOOK)


@tool("get_task_summary", unavailable=TASKS)
def get_task_summary(ctx: ToolContext, limit: int = 12) -> str:
    """Summarise your tasks."""
    return unavailable("get_task_summary", TASKS)


@tool("task_change_active", unavailable=TASKS)
def task_change_active(ctx: ToolContext, task_id: str | None = None) -> str:
    """Switch the task you are working on."""
    return unavailable("task_change_active", TASKS)


@tool("task_request_creation", unavailable=TASKS)
def task_request_creation(ctx: ToolContext, summary: str, context: str | None = None, priority: str = "normal") -> str:
    """Ask for a new task to be created."""
    return unavailable("task_request_creation", TASKS)


@tool("get_visual_context", unavailable=VISUAL)
def get_visual_context(
    ctx: ToolContext, building_id: str | None = None, include_self: bool = True, include_building: bool = True,
    include_other_personas: bool = True,
) -> str:
    """Images of the building and of the personas in it."""
    return unavailable("get_visual_context", VISUAL)


@tool("invoke_phenomenon", unavailable=PHENOMENON)
def invoke_phenomenon(ctx: ToolContext, phenomenon_name: str, arguments: str | None = None) -> str:
    """Trigger a phenomenon of the world."""
    return unavailable("invoke_phenomenon", PHENOMENON)


@tool("resolve_uri", unavailable=URI)
def resolve_uri(ctx: ToolContext, uris: list[str], max_total_chars: int = 8000) -> str:
    """Read what saiverse:// URIs point at."""
    return unavailable("resolve_uri", URI)


@tool("save_playbook", unavailable=SAVE_PLAYBOOK)
def save_playbook(
    ctx: ToolContext, name: str, description: str, playbook_json: str,
    scope: Literal["public", "personal", "building"] = "public", created_by_persona_id: str | None = None,
    building_id: str | None = None, router_callable: bool | None = None, user_selectable: bool | None = None,
    display_name: str | None = None,
) -> str:
    """Save a playbook you wrote."""
    return unavailable("save_playbook", SAVE_PLAYBOOK)


@tool("switch_active_thread", unavailable=THREADS)
def switch_active_thread(
    ctx: ToolContext, target_thread: str, summary: str | None = None,
    range_before: Annotated[int | None, Field(ge=0)] = None,
) -> str:
    """Switch your active conversation thread."""
    return unavailable("switch_active_thread", THREADS)


UPSTREAM_ONLY_TOOLS = (call_playbook, get_task_summary, task_change_active, task_request_creation,
                       get_visual_context, invoke_phenomenon, resolve_uri, save_playbook, switch_active_thread)
"""Every tool of this module, for `BUILTIN_TOOLS`."""
