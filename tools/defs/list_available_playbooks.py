"""list_available_playbooks: the playbooks a router may choose, as upstream's JSON list."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool


@tool("list_available_playbooks")
def list_available_playbooks(
    ctx: ToolContext,
    persona_id: Annotated[str | None, Field(description="Persona ID (optional, defaults to current context)")] = None,
    building_id: Annotated[str | None, Field(description="Building ID (optional, defaults to current context)")] = None,
) -> str:
    """List playbooks available for router selection based on persona and building context.

    A JSON list of `{name, display_name, description, keywords}`, sorted by name, as upstream's
    router prompt expects. `persona_id` / `building_id` keep upstream's argument shape; the list is
    the same for every persona and building here (playbook scopes and permissions are not kept).
    """
    return ctx.router_playbooks_json()  # the same text, made once per catalogue version
