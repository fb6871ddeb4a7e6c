"""Pulses: one activation of one persona, run through the SEA runtime with all writes journaled.

A pulse's SAIMemory messages and building lines are buffered in a `PulseJournal` and committed in
one short transaction when the pulse ends well; a failed or cancelled pulse commits nothing (the
error event says what happened) and the persona stays usable. Buffering instead of holding a
database transaction open keeps the SQLite write lock short while a model is thinking.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from database.engine import Database
from saiverse.llm.base import ChatModel
from saiverse.memory import SAIMemory
from saiverse.world import PersonaInfo, World
from sea.events import Event, event
from sea.playbook import Playbook
from sea.ports import CancellationToken, MemoryLine, PersonaContext
from sea.runtime import PulseCancelled, run_playbook

ModelResolver = Callable[[PersonaContext, str], tuple[ChatModel, str | None]]
ToolCaller = Callable[[str, dict[str, Any], PersonaContext, str], Any]


@dataclass
class PulseServices:
    """What a pulse may reach: the stores, the model resolver, tools and playbooks."""

    db: Database
    memory: SAIMemory
    world: World
    resolve_model: ModelResolver
    call_tool: ToolCaller
    tool_specs: Callable[[list[str]], list[dict[str, Any]]]
    playbook: Callable[[str], Playbook | None]
    router_playbooks: Callable[[], list[Playbook]]


def persona_context(p: PersonaInfo) -> PersonaContext:
    """The runtime's view of a persona (`_persona_obj`)."""
    return PersonaContext(
        persona_id=p.persona_id, name=p.name, avatar=p.avatar, system_prompt=p.system_prompt,
        description=p.description, default_model=p.default_model,
        lightweight_model=p.lightweight_model, building_id=p.building_id or "",
    )


@dataclass
class PulseJournal:
    """The runtime's ports for one pulse; buffers writes until `commit`."""

    pulse_id: str
    services: PulseServices
    pending_memory: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    pending_history: list[tuple[str, PersonaContext, str]] = field(default_factory=list)

    def model_for(self, persona: PersonaContext, model_type: str) -> tuple[ChatModel, str | None]:
        return self.services.resolve_model(persona, model_type)

    def remember(self, persona_id: str, role: str, content: str, tags: list[str], pulse_id: str) -> None:
        self.pending_memory.append((persona_id, role, content, list(tags)))

    def recent_messages(self, persona_id: str, pulse_id: str, limit: int = 40) -> list[MemoryLine]:
        stored = self.services.memory.recent_persona_messages(
            persona_id, ("conversation",), pulse_id=pulse_id, limit=limit
        )
        lines: list[MemoryLine] = [
            MemoryLine(role=m["role"], content=m["content"], tags=m.get("tags", []), pulse_id=m.get("pulse_id"))
            for m in stored
        ]
        lines += [
            MemoryLine(role=role, content=content, tags=tags, pulse_id=self.pulse_id)
            for pid, role, content, tags in self.pending_memory if pid == persona_id
        ]
        return lines

    def post_to_building(self, building_id: str, persona: PersonaContext, text: str, pulse_id: str) -> int | None:
        self.pending_history.append((building_id, persona, text))
        return None

    def system_prompt(self, persona: PersonaContext, building_id: str) -> str:
        building = self.services.world.building(building_id)
        return (
            f"あなたは{persona.get('name', '')}です。\n{persona.get('system_prompt', '')}\n\n"
            f"現在地: {building.name}。{building.system_instruction}"
        )

    def call_tool(self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str) -> Any:
        return self.services.call_tool(name, args, persona, building_id)

    def tool_specs(self, names: list[str]) -> list[dict[str, Any]]:
        return self.services.tool_specs(names)

    def playbook(self, name: str) -> Playbook | None:
        return self.services.playbook(name)

    def router_playbooks(self) -> list[Playbook]:
        return self.services.router_playbooks()

    def commit(self) -> None:
        """Write everything the pulse produced, in one transaction."""
        svc = self.services
        with svc.db.session() as s:
            for persona_id, role, content, tags in self.pending_memory:
                svc.memory.add(persona_id, role, content, tags=tags, pulse_id=self.pulse_id, session=s)
            for building_id, persona, text in self.pending_history:
                svc.world.add_history(
                    building_id, speaker_kind="persona", speaker_id=persona["persona_id"],
                    speaker_name=persona.get("name", ""), content=text, pulse_id=self.pulse_id, session=s,
                )
        self.pending_memory.clear()
        self.pending_history.clear()


class PulseController:
    """Starts pulses; pulses of the same persona never overlap; the stop button cancels them."""

    def __init__(self, services: PulseServices) -> None:
        self.services = services
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._active: dict[str, CancellationToken] = {}

    def _lock_for(self, persona_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(persona_id, threading.Lock())

    def cancel_all(self) -> int:
        """Cancel every running pulse; returns how many were asked to stop."""
        with self._guard:
            tokens = list(self._active.values())
        for t in tokens:
            t.cancel()
        return len(tokens)

    def run(
        self, persona: PersonaInfo, building_id: str, playbook: Playbook, *,
        args: dict[str, Any] | None = None, pulse_id: str | None = None,
    ) -> Iterator[Event]:
        """Run one pulse of `persona`; yields its events, ending with `pulse_end`."""
        pulse_id = pulse_id or uuid.uuid4().hex
        ctx = persona_context(persona)
        token = CancellationToken()
        journal = PulseJournal(pulse_id, self.services)
        base = {"pulse_id": pulse_id, "persona_id": persona.persona_id, "persona_name": persona.name}
        with self._lock_for(persona.persona_id):
            with self._guard:
                self._active[pulse_id] = token
            status = "ok"
            try:
                yield event("pulse_start", building_id=building_id, playbook=playbook.name,
                            avatar=persona.avatar, **base)
                yield from run_playbook(
                    playbook, persona=ctx, building_id=building_id, pulse_id=pulse_id,
                    ports=journal, args=args, cancel=token,
                )
                journal.commit()
            except PulseCancelled:
                status = "cancelled"
            except Exception as exc:  # noqa: BLE001 - any failure ends the pulse visibly, not the app
                status = "error"
                if not _already_reported(exc):
                    yield event("error", kind=type(exc).__name__, message=str(exc) or repr(exc), **base)
            finally:
                with self._guard:
                    self._active.pop(pulse_id, None)
            yield event("pulse_end", status=status, **base)


def _already_reported(exc: Exception) -> bool:
    """run_playbook has already yielded an error event for these."""
    from saiverse.llm.base import LLMError
    from sea.playbook import PlaybookError

    return isinstance(exc, (PlaybookError, LLMError))
