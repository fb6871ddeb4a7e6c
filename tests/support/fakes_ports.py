"""`FakePorts`: sea/ports.py `RuntimePorts` in memory, so sea/runtime.py runs without the domain.

Memory lines, building lines, tools and playbooks are plain Python values; the `pulse:<id>` tag is
added as SAIMemory adds it. What it keeps is what a test then asserts on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from chat import ChatModel, Message
from saiverse.llm.offline import OfflineModel
from sea.playbook import Playbook
from sea.ports import MemoryLine, PersonaContext, PromptContext


class FakePorts:
    """A world of one building: memory and lines in lists, tools as functions, playbooks by name."""

    def __init__(self, *, model: ChatModel | None = None, playbooks: Iterable[Playbook] = (),
                 tools: dict[str, Callable[..., Any]] | None = None) -> None:
        self.model = model or OfflineModel()
        self.playbooks = {pb.name: pb for pb in playbooks}
        self.tools = dict(tools or {})
        self.memory: list[dict[str, Any]] = []
        """Every message remembered: persona_id, role, content, tags (with `pulse:<id>`), pulse_id."""
        self.lines: list[tuple[str, str, str]] = []
        """(building_id, persona_id, text) of every line posted to a building."""

    def model_for(self, persona: PersonaContext, model_type: str) -> tuple[ChatModel, str | None]:
        return self.model, None

    def remember(self, persona_id: str, role: str, content: str, tags: list[str], pulse_id: str,
                 *, line: dict[str, Any] | None = None) -> None:
        self.memory.append({"persona_id": persona_id, "role": role, "content": content,
                            "tags": [*tags, f"pulse:{pulse_id}"], "pulse_id": pulse_id, "line": dict(line or {})})

    def _recent(self, persona_id: str, pulse_id: str, limit: int = 40) -> list[MemoryLine]:
        mine = [m for m in self.memory if m["persona_id"] == persona_id]
        talk = [m for m in mine if "conversation" in m["tags"] and m["pulse_id"] != pulse_id][-limit:]
        chosen = talk + [m for m in mine if m["pulse_id"] == pulse_id]
        return [MemoryLine(role=m["role"], content=m["content"], tags=m["tags"], pulse_id=m["pulse_id"])
                for m in sorted(chosen, key=mine.index)]

    def prompt_context(self, persona: PersonaContext, building_id: str, pulse_id: str, model: Any,
                       pending: list[Message], *, exclude_tags: frozenset[str] = frozenset(),
                       history_depth: Any = None, line_id: str | None = None) -> PromptContext:
        """No budget here: the recent messages as they are, then `pending` (the manager fits a budget)."""
        lines = [m for m in self._recent(persona["persona_id"], pulse_id)
                 if m["role"] in ("user", "assistant") and not exclude_tags.intersection(m["tags"])]
        messages = [Message(role=m["role"], content=m["content"]) for m in lines] + pending
        system = self.system_prompt(persona, building_id)
        tokens = len(system) + sum(len(m.get("content") or "") for m in messages)
        return PromptContext(system=system, messages=messages, input_tokens=tokens)

    def post_to_building(self, building_id: str, persona: PersonaContext, text: str, pulse_id: str, *,
                         cut: str | None = None) -> int | None:
        self.lines.append((building_id, persona["persona_id"], text))
        return len(self.lines)

    def system_prompt(self, persona: PersonaContext, building_id: str) -> str:
        return f"あなたは{persona.get('name', '')}です。\n{persona.get('system_prompt', '')}"

    def call_tool(self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str,
                  pulse_id: str, emit: Callable[[dict[str, Any]], None]) -> Any:
        if name not in self.tools:
            raise LookupError(f"unknown tool {name!r}")
        return self.tools[name](**args)

    def tool_specs(self, names: list[str], persona: Any = None, emit: Any = None) -> list[dict[str, Any]]:
        return [{"name": n, "description": n, "parameters": {"type": "object", "properties": {}}}
                for n in names if n in self.tools]

    def playbook(self, name: str) -> Playbook | None:
        return self.playbooks.get(name)

    def router_playbooks(self) -> list[Playbook]:
        return [pb for pb in self.playbooks.values() if pb.router_callable]

    def target_names(self, kind: str, building_id: str) -> list[str]:
        return []

    def decision_rules(self) -> ChatModel:
        return OfflineModel()
