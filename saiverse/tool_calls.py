"""Tool calls: the registry's tools and a persona's MCP tools, as a pulse or the CLI calls them.

A service the manager builds (saiverse/manager.py): each call gets a `ManagerToolContext` bound to its
persona, building and pulse over the shared `ToolServices` (saiverse/pulse/_toolctx.py); a name the
registry does not know may be one of the persona's MCP tools (saiverse/mcp_tools.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from saiverse.mcp_tools import McpTools
from saiverse.metering import acting_for
from saiverse.pulse import ManagerToolContext, ToolServices
from saiverse.world import World
from sea.ports import PersonaContext
from tools import TOOL_REGISTRY, ToolOutput, call_tool


class ToolCalls:
    """Runs one tool as a persona, and lists the tools a playbook node offers its model."""

    def __init__(self, *, services: ToolServices, mcp: McpTools, world: World,
                 user_building: Callable[[], str]) -> None:
        self.services = services
        """What a tool call reaches (built once)."""
        self.mcp = mcp
        self.world = world
        self.user_building = user_building
        """→ where the user is: the CLI's tool call of a persona without a building runs there."""

    def call(
        self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str, pulse_id: str,
        notify: Callable[[dict[str, Any]], None], *, on_effect: Callable[[str | None], None] | None = None,
        before_change: Callable[[], None] | None = None, after_change: Callable[[], None] | None = None,
    ) -> Any:
        """A pulse's tool call (`PulseServices.call_tool`); the journal hears every change and each one's intent."""
        ctx = ManagerToolContext(self.services, persona["persona_id"], building_id, pulse_id, notify)
        if on_effect is not None:
            ctx.on_effect = on_effect  # the pulse journal keeps every change (saiverse/pulse/_journal.py)
        if before_change is not None and after_change is not None:
            ctx.before_change, ctx.after_change = before_change, after_change  # and each one's intent
        if name not in TOOL_REGISTRY and self.mcp.owns(persona["persona_id"], name):
            return self.mcp.call(persona["persona_id"], name, args, notify)
        with acting_for(persona["persona_id"]):  # an item summary the tool asks for is counted as hers
            return call_tool(name, args, ctx)

    def specs(self, names: list[str], persona_id: str | None = None,
              notify: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        """The specs of the tools `names` (`PulseServices.tool_specs`), the persona's MCP tools included."""
        # A tool registered as unavailable (it needs a service this install lacks) is not offered.
        specs = [TOOL_REGISTRY[n].spec() for n in names if n in TOOL_REGISTRY and not TOOL_REGISTRY[n].unavailable]
        others = [n for n in names if n not in TOOL_REGISTRY]
        if persona_id is not None and others:  # the persona's MCP tools (saiverse/mcp_tools.py)
            specs += self.mcp.specs(persona_id, others, notify)
        return specs

    def run_tool(self, name: str, persona_id: str, building_id: str | None, args: dict[str, Any],
                 notify: Callable[[dict[str, Any]], None] | None = None) -> Any:
        """Run one tool as a persona (CLI `tool`); `notify` hears notices (an MCP server that failed)."""
        persona = self.world.persona(persona_id)
        if building_id is not None:
            self.world.building(building_id)
        ctx = ManagerToolContext(self.services, persona_id,
                                 building_id or persona.building_id or self.user_building())
        if name not in TOOL_REGISTRY and self.mcp.owns(persona_id, name):
            return self.mcp.call(persona_id, name, args, notify)
        with acting_for(persona_id):
            result = call_tool(name, args, ctx)
        return result.value if isinstance(result, ToolOutput) else result
