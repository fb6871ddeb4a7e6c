"""The pulse journal: the runtime's ports for one pulse, with all of the pulse's writes buffered.

A pulse's SAIMemory messages and building lines are buffered in a `PulseJournal` and committed in
one short transaction when the pulse ends well. Buffering instead of holding a database transaction
open keeps the SQLite write lock short while a model is thinking.

A failed or cancelled pulse follows one rule: the persona never keeps an effect it does not remember.
Tools change the world at once (a document made, a move, memory taken in) and such a change cannot be
taken back safely, so the journal records each one (`note_effect`). A pulse that stops before any
tool changed anything commits nothing; one that stops after commits its journal as it stands, an
`internal` note per change and an `internal` note that the pulse stopped (`commit_stopped`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from chat import ChatModel, ContextWindow, Message
from database.engine import Database
from saiverse.context import Snapshot, fit, token_counter
from saiverse.context_source import ContextSource
from saiverse.memory import SAIMemory
from saiverse.world import BuildingInfo, PersonaInfo, World
from sea.compat import shown_content, trim_history
from sea.playbook import Playbook
from sea.ports import MemoryLine, PersonaContext, PromptContext

ModelResolver = Callable[[PersonaContext, str], tuple[ChatModel, str | None]]
ToolCaller = Callable[..., Any]
"""(name, args, persona, building_id, pulse_id, notify, on_effect=) → result; `notify` receives item
events, `on_effect` a note for every change the tool makes (None: the change is a memory write)."""
EFFECT_TAGS = ["internal", "pulse_effect"]
"""Tags of the note a stopped pulse keeps for each change its tools made."""
STOPPED_TAGS = ["internal", "pulse_stopped"]
"""Tags of the note that says a pulse stopped before its end."""


@dataclass
class PulseServices:
    """What a pulse may reach: the stores, the model resolver, tools and playbooks."""

    db: Database
    memory: SAIMemory
    world: World
    resolve_model: ModelResolver
    call_tool: ToolCaller
    tool_specs: Callable[..., list[dict[str, Any]]]
    """(names, persona_id=None, notify=None) → specs of those tools (the persona's MCP tools too)."""
    playbook: Callable[[str], Playbook | None]
    router_playbooks: Callable[[], list[Playbook]]
    context: ContextSource
    """What a persona's memory offers a prompt (saiverse/context.py fits it to the budget)."""


def persona_context(p: PersonaInfo) -> PersonaContext:
    """The runtime's view of a persona (`_persona_obj`)."""
    return PersonaContext(
        persona_id=p.persona_id, name=p.name, avatar=p.avatar, system_prompt=p.system_prompt,
        description=p.description, default_model=p.default_model,
        lightweight_model=p.lightweight_model, lightweight_vision_model=p.lightweight_vision_model,
        vision_model=p.vision_model, building_id=p.building_id or "",
    )


def system_prompt_for(persona: PersonaContext, building: BuildingInfo) -> str:
    """Who the persona is and where: the system prompt of every model call it makes."""
    return (f"あなたは{persona.get('name', '')}です。\n{persona.get('system_prompt', '')}\n\n"
            f"現在地: {building.name}。{building.system_instruction}")


@dataclass
class PulseJournal:
    """The runtime's ports for one pulse; buffers writes until `commit`."""

    pulse_id: str
    services: PulseServices
    pending_memory: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    pending_history: list[tuple[str, PersonaContext, str]] = field(default_factory=list)
    _prompts: dict[tuple[str, str], str] = field(default_factory=dict)
    _snapshots: dict[str, tuple[Snapshot, list[MemoryLine]]] = field(default_factory=dict)
    effects: list[tuple[int, str, str | None]] = field(default_factory=list)
    """Changes tools made during the pulse: (place among pending memory, persona id, note or None)."""
    _noticed: set[str] = field(default_factory=set)

    def model_for(self, persona: PersonaContext, model_type: str) -> tuple[ChatModel, str | None]:
        model, notice = self.services.resolve_model(persona, model_type)
        if notice in self._noticed:
            return model, None  # every model call of a pulse falls back alike: say it once per pulse
        if notice:
            self._noticed.add(notice)
        return model, notice

    def remember(self, persona_id: str, role: str, content: str, tags: list[str], pulse_id: str) -> None:
        self.pending_memory.append((persona_id, role, content, list(tags)))

    def prompt_context(
        self, persona: PersonaContext, building_id: str, pulse_id: str, model: ChatModel, pending: list[Message],
        *, exclude_tags: frozenset[str] = frozenset(), history_depth: Any = None,
    ) -> PromptContext:
        persona_id = persona["persona_id"]
        if persona_id not in self._snapshots:
            # Stored memory does not change during the pulse (its own writes wait in the journal).
            own = self.services.memory.list_messages(persona_id, tag=f"pulse:{self.pulse_id}", limit=200)
            self._snapshots[persona_id] = (
                self.services.context.snapshot(persona_id, self.pulse_id),
                [MemoryLine(role=m["role"], content=m["content"], tags=m["tags"], pulse_id=self.pulse_id)
                 for m in reversed(own) if m["role"] in ("user", "assistant")],
            )
        snapshot, stored_own = self._snapshots[persona_id]
        lines = stored_own + [MemoryLine(role=role, content=content, tags=tags, pulse_id=self.pulse_id)
                              for pid, role, content, tags in self.pending_memory
                              if pid == persona_id and role in ("user", "assistant")]
        own = [Message(role=line["role"], content=shown_content(line))  # type: ignore[typeddict-item]
               for line in lines if not exclude_tags.intersection(line.get("tags") or [])]
        if history_depth is not None:
            kept = trim_history([{"content": line.content} for line in snapshot.history], history_depth)
            snapshot = replace(snapshot, history=snapshot.history[len(snapshot.history) - len(kept):])
        if isinstance(model, ContextWindow):  # a local model's window caps the persona's budget
            snapshot = replace(snapshot, budget=min(snapshot.budget, model.prompt_budget()))
        fitted = fit(snapshot, self.system_prompt(persona, building_id), own + pending, token_counter(model))
        return PromptContext(system=fitted.system, messages=fitted.messages, input_tokens=fitted.input_tokens)

    def post_to_building(self, building_id: str, persona: PersonaContext, text: str, pulse_id: str) -> int | None:
        self.pending_history.append((building_id, persona, text))
        return None

    def system_prompt(self, persona: PersonaContext, building_id: str) -> str:
        key = (persona["persona_id"], building_id)
        if key not in self._prompts:
            self._prompts[key] = system_prompt_for(persona, self.services.world.building(building_id))
        return self._prompts[key]

    def call_tool(
        self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str, pulse_id: str,
        emit: Callable[[dict[str, Any]], None],
    ) -> Any:
        persona_id = persona["persona_id"]
        return self.services.call_tool(name, args, persona, building_id, pulse_id, emit,
                                       on_effect=lambda note: self.note_effect(persona_id, note))

    def note_effect(self, persona_id: str, note: str | None) -> None:
        """A tool changed the world (`note` says how; None when the change is itself a memory write)."""
        self.effects.append((len(self.pending_memory), persona_id, note))

    def tool_specs(self, names: list[str], persona: PersonaContext | None = None,
                   emit: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        if persona is None:
            return self.services.tool_specs(names)
        return self.services.tool_specs(names, persona["persona_id"], emit)

    def playbook(self, name: str) -> Playbook | None:
        return self.services.playbook(name)

    def router_playbooks(self) -> list[Playbook]:
        return self.services.router_playbooks()

    def commit(self) -> None:
        """Write everything the pulse produced, in one transaction."""
        self._write(self.pending_memory)

    def commit_stopped(self, why: str) -> int:
        """The pulse failed or was cancelled (`why` says how): if no tool changed anything, drop the
        journal; else commit it with a note per change and one saying the pulse stopped. Returns how
        many changes were kept."""
        if not self.effects:
            self.pending_memory.clear()
            self.pending_history.clear()
            return 0
        memory: list[tuple[str, str, str, list[str]]] = []
        for n in range(len(self.pending_memory) + 1):
            # Each note goes where its change happened among the pulse's own messages.
            memory += [(persona_id, "user", f"このパルスでしたこと: {note}", list(EFFECT_TAGS))
                       for at, persona_id, note in self.effects if at == n and note]
            if n < len(self.pending_memory):
                memory.append(self.pending_memory[n])
        for persona_id in dict.fromkeys(e[1] for e in self.effects):
            stopped = f"このパルスは途中で止まりました ({why})。ここまでにしたことは残っています。"
            memory.append((persona_id, "user", stopped, list(STOPPED_TAGS)))
        self._write(memory)
        return len(self.effects)

    def _write(self, memory: list[tuple[str, str, str, list[str]]]) -> None:
        svc = self.services
        with svc.db.session() as s:
            for persona_id, role, content, tags in memory:
                svc.memory.add(persona_id, role, content, tags=tags, pulse_id=self.pulse_id, session=s)
            for building_id, persona, text in self.pending_history:
                svc.world.add_history(
                    building_id, speaker_kind="persona", speaker_id=persona["persona_id"],
                    speaker_name=persona.get("name", ""), content=text, pulse_id=self.pulse_id, session=s,
                )
        self.pending_memory.clear()
        self.pending_history.clear()
