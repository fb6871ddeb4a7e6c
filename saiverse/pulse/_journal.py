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

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import text

from chat import CUT_STOPPED, ChatModel, ContextWindow, Message
from database import Database
from database.direct import run_many
from saiverse.llm import OfflineModel
from saiverse.memory import ContextSource, Fitted, SAIMemory, Snapshot, conforms, fit, reflex_section, token_counter
from saiverse.pulse._open import EFFECT_TAGS, OpenPulse, close, close_in, closing_notes, effect_note, record_effects
from saiverse.world import BuildingInfo, PersonaInfo, World
from sea.compat import shown_content, trim_history
from sea.playbook import Playbook
from sea.ports import MemoryLine, PersonaContext, PromptContext

log = logging.getLogger(__name__)
ModelResolver = Callable[[PersonaContext, str], tuple[ChatModel, str | None]]
ToolCaller = Callable[..., Any]
"""(name, args, persona, building_id, pulse_id, notify, on_effect=, before_change=, after_change=) → result;
`notify` receives item events, `on_effect` a note for every change the tool makes (None: the change is a
memory write), `before_change`/`after_change` frame each world change (saiverse/pulse/_intent.py)."""


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
    """What a persona's memory offers a prompt (saiverse/memory/_context.py fits it to the budget)."""
    target_names: Callable[[str, str], list[str]] = lambda kind, building_id: []
    """(kind, building id) → what a request may name for a playbook acting on `kind` (sea/ports.py)."""
    persona_playbooks: Callable[[str], list[Playbook]] = lambda persona_id: []
    """persona id → the playbooks only she may be routed to (one per MCP tool of hers, saiverse/mcp_playbooks.py)."""
    record_usage: Callable[[str, list[tuple[str, int, int]]], None] = lambda persona_id, spent: None
    """(persona id, (model, input, output) per call) → added to her day's usage (saiverse/costs.py)."""


def persona_context(p: PersonaInfo) -> PersonaContext:
    """The runtime's view of a persona (`_persona_obj`)."""
    return PersonaContext(
        persona_id=p.persona_id, name=p.name, avatar=p.avatar, system_prompt=p.system_prompt,
        description=p.description, default_model=p.default_model,
        lightweight_model=p.lightweight_model, lightweight_vision_model=p.lightweight_vision_model,
        vision_model=p.vision_model, building_id=p.building_id or "",
    )


COMPANY_LABEL = "一緒にいるペルソナ"
"""The system prompt's line naming the other personas in the building (`一緒にいるペルソナ: ソラ、ハル`)."""


def system_prompt_for(persona: PersonaContext, building: BuildingInfo, company: Sequence[str] = ()) -> str:
    """Who the persona is, where, and who else is there: the system prompt of every model call it
    makes. `company`: the names of the other personas in the building (in a group chat each answers
    as one of several, and the offline model words its reply unlike theirs)."""
    here = f"\n{COMPANY_LABEL}: {'、'.join(company)}" if company else ""
    return (f"あなたは{persona.get('name', '')}です。\n{persona.get('system_prompt', '')}\n\n"
            f"現在地: {building.name}。{building.system_instruction}{here}")


@dataclass
class PulseJournal:
    """The runtime's ports for one pulse; buffers writes until `commit`."""

    pulse_id: str
    services: PulseServices
    pending_memory: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    pending_lines: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Line fields (sea/lines.py) of `pending_memory` entries, by position; none for a plain message."""
    pending_history: list[tuple[str, PersonaContext, str, str | None]] = field(default_factory=list)
    """(building, persona, text, cut) of each line the pulse said (`cut`: it stopped before its end)."""
    keep_cut: bool = False
    """A reply the user stopped half-way was said: a cancelled pulse keeps it, to be continued."""
    persona_id: str = ""
    """Whose pulse this is: her own playbooks (her MCP tools) join the router's choices."""
    _prompts: dict[tuple[str, str], str] = field(default_factory=dict)
    _snapshots: dict[str, tuple[Snapshot, list[MemoryLine]]] = field(default_factory=dict)
    effects: list[tuple[int, str, str | None]] = field(default_factory=list)
    """Changes tools made during the pulse: (place among pending memory, persona id, note or None)."""
    _noticed: set[str] = field(default_factory=set)
    _counted: dict[Any, dict[str, int]] = field(default_factory=dict)
    """Token counts by counter, shared by the pulse's prompts (they hold the same history)."""
    _sums: dict[Any, dict[int, Any]] = field(default_factory=dict)
    """The history's running costs by counter (saiverse/memory/_context.py `fit`), shared the same way."""
    _shown: dict[int, Any] = field(default_factory=dict)
    """The history's lines as prompt messages, made once for the pulse's prompts (`fit`)."""
    stored: tuple[str, list[tuple[str, str, list[str]]]] | None = None
    """(persona id, its messages stored under this pulse id before the run) when the controller knows
    them exactly — it minted the pulse id and stored them itself — so the first prompt need not read them."""
    known_building: BuildingInfo | None = None
    """The pulse's building as the user's turn read it just before the pulse (`PulseController.say`):
    the system prompt is made from it instead of a second read."""
    opened: OpenPulse | None = None
    """The pulse as `pulse_open` keeps it until it ends (saiverse/pulse/_open.py): recorded by `say`
    with its user's message, or here at its tools' first change."""
    stop_line: tuple[str, str] | None = None
    """(building id, text) of the line a stopped user's pulse leaves in its building (`commit_stopped`)."""
    intent: tuple[str, str] | None = None
    """(persona id, tool name) of a tool about to change the world whose change is not reported yet
    (saiverse/pulse/_intent.py)."""

    def model_for(self, persona: PersonaContext, model_type: str) -> tuple[ChatModel, str | None]:
        model, notice = self.services.resolve_model(persona, model_type)
        if notice in self._noticed:
            return model, None  # every model call of a pulse falls back alike: say it once per pulse
        if notice:
            self._noticed.add(notice)
        return model, notice

    def remember(self, persona_id: str, role: str, content: str, tags: list[str], pulse_id: str,
                 *, line: dict[str, Any] | None = None) -> None:
        if line:
            self.pending_lines[len(self.pending_memory)] = dict(line)
        self.pending_memory.append((persona_id, role, content, list(tags)))

    def _visible(self, n: int, line_id: str | None) -> bool:
        """Whether pending message `n` is shown to a prompt on `line_id` (sea/lines.py)."""
        line = self.pending_lines.get(n) or {}
        return line.get("scope") != "discardable" and line.get("line_id") in (None, line_id)

    def prompt_context(
        self, persona: PersonaContext, building_id: str, pulse_id: str, model: ChatModel, pending: list[Message],
        *, exclude_tags: frozenset[str] = frozenset(), history_depth: Any = None, line_id: str | None = None,
    ) -> PromptContext:
        fitted = self.fitted(persona, building_id, model, pending, exclude_tags=exclude_tags,
                             history_depth=history_depth, line_id=line_id)
        return PromptContext(system=fitted.system, messages=fitted.messages, input_tokens=fitted.input_tokens)

    def fitted(self, persona: PersonaContext, building_id: str, model: ChatModel, pending: list[Message], *,
               exclude_tags: frozenset[str] = frozenset(), history_depth: Any = None,
               line_id: str | None = None) -> Fitted:
        """`prompt_context` with what went into it (saiverse/memory/_context.py `Fitted`): the one
        assembly of a pulse's prompt, which `python main.py context` shows (saiverse/pulse/_sight.py)."""
        persona_id = persona["persona_id"]
        if persona_id not in self._snapshots:
            # Stored memory does not change during the pulse (its own writes wait in the journal):
            # it is read once, the snapshot and the pulse's stored messages on one connection.
            # A tool may have stored more under the pulse id since (it reports it: `note_effect`).
            known = self.stored[1] if self.stored and self.stored[0] == persona_id and not self.effects else None
            snapshot, own = self.services.context.pulse_view(persona_id, self.pulse_id, own=known)
            snapshot = self._with_reflex(persona_id, snapshot, own)
            self._snapshots[persona_id] = (
                snapshot,
                [MemoryLine(role=role, content=content, tags=tags, pulse_id=self.pulse_id)
                 for role, content, tags in own if role in ("user", "assistant")],
            )
        snapshot, stored_own = self._snapshots[persona_id]
        lines = stored_own + [MemoryLine(role=role, content=content, tags=tags, pulse_id=self.pulse_id)
                              for n, (pid, role, content, tags) in enumerate(self.pending_memory)
                              if pid == persona_id and role in ("user", "assistant") and self._visible(n, line_id)]
        own = [Message(role=line["role"], content=shown_content(line))  # type: ignore[typeddict-item]
               for line in lines if not exclude_tags.intersection(line.get("tags") or [])]
        if history_depth is not None:
            kept = trim_history([{"content": line.content} for line in snapshot.history], history_depth)
            cut = len(snapshot.history) - len(kept)
            snapshot = replace(snapshot, history=snapshot.history[cut:],  # what the reader made, cut alike
                               costs=snapshot.costs[cut:] if snapshot.costs is not None else None,
                               shown=snapshot.shown[cut:] if snapshot.shown is not None else None)
        if conforms(model, ContextWindow):  # a local model's window caps the persona's budget
            snapshot = replace(snapshot, budget=min(snapshot.budget, model.prompt_budget()))
        count = token_counter(model)
        return fit(snapshot, self.system_prompt(persona, building_id), own + pending, count,
                   self._counted.setdefault(count, {}), self._sums.setdefault(count, {}), self._shown)

    def _with_reflex(self, persona_id: str, snapshot: Snapshot,
                     own: list[tuple[str, str, list[str]]]) -> Snapshot:
        """The snapshot with what reflex recall finds on the user's message of this pulse
        (saiverse/memory/_reflex.py); unchanged when the pulse has none or recall is off."""
        said = [c for role, c, tags in own if role == "user" and "conversation" in tags]
        said += [c for pid, role, c, tags in self.pending_memory
                 if pid == persona_id and role == "user" and "conversation" in tags]
        if not said:
            return snapshot
        try:
            found = self.services.context.recalled(persona_id, said[0], self.pulse_id, snapshot)
        except Exception:  # noqa: BLE001 - remembering more is a help, never a reason to fail the answer
            log.warning("pulse %s: reflex recall failed", self.pulse_id, exc_info=True)
            return snapshot
        return replace(snapshot, reflex=reflex_section(found), recalled=found) if found else snapshot

    def post_to_building(self, building_id: str, persona: PersonaContext, text: str, pulse_id: str, *,
                         cut: str | None = None) -> int | None:
        self.pending_history.append((building_id, persona, text, cut))
        self.keep_cut = self.keep_cut or cut == CUT_STOPPED
        return None

    def system_prompt(self, persona: PersonaContext, building_id: str) -> str:
        key = (persona["persona_id"], building_id)
        if key not in self._prompts:
            known = self.known_building
            building = known if known is not None and known.building_id == building_id else \
                self.services.world.building(building_id)
            company = [p.name for p in self.services.world.personas(building_id)
                       if p.persona_id != persona["persona_id"]]
            self._prompts[key] = system_prompt_for(persona, building, company)
        return self._prompts[key]

    def call_tool(
        self, name: str, args: dict[str, Any], persona: PersonaContext, building_id: str, pulse_id: str,
        emit: Callable[[dict[str, Any]], None],
    ) -> Any:
        persona_id = persona["persona_id"]
        return self.services.call_tool(name, args, persona, building_id, pulse_id, emit,
                                       on_effect=lambda note: self.note_effect(persona_id, note),
                                       before_change=lambda: self.note_intent(persona_id, name),
                                       after_change=self.settle_intent)

    def note_intent(self, persona_id: str, tool: str) -> None:
        """A tool is about to change the world: keep its intent at once, so a kill before its change's
        note still leaves a trace (saiverse/pulse/_intent.py)."""
        if self.intent == (persona_id, tool):
            return  # already kept (a marked method calling another)
        self.intent = (persona_id, tool)
        self._keep("the intent of a tool")

    def settle_intent(self) -> None:
        """A marked method returned or refused: an intent its note did not replace changed nothing."""
        if self.intent is not None:
            self.intent = None
            self._keep("the end of a tool that changed nothing")

    def note_effect(self, persona_id: str, note: str | None) -> None:
        """A tool changed the world (`note` says how; None when the change is itself a memory write)."""
        self.effects.append((len(self.pending_memory), persona_id, note))
        self.intent = None  # the note replaces the intent, in the same write
        self._keep("the note of a change")

    def _keep(self, what: str) -> None:
        if self.opened is None:
            return
        try:  # kept at once: a kill before the pulse ends still finds it (saiverse/pulse/_open.py)
            if not self.effects and self.intent is None and self.opened.kind != "user":
                close(self.services.db, self.opened)  # a tool that changed nothing: nothing to account for
                return
            record_effects(self.services.db, self.opened, [(p, n) for _, p, n in self.effects], self.intent)
        except Exception:  # noqa: BLE001 - the journal holds it; only a kill loses it now
            log.warning("pulse %s: %s could not be kept at once", self.pulse_id, what, exc_info=True)

    def tool_specs(self, names: list[str], persona: PersonaContext | None = None,
                   emit: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        if persona is None:
            return self.services.tool_specs(names)
        return self.services.tool_specs(names, persona["persona_id"], emit)

    def playbook(self, name: str) -> Playbook | None:
        found = self.services.playbook(name)
        if found is None and self.persona_id and "__" in name:
            found = next((pb for pb in self.services.persona_playbooks(self.persona_id) if pb.name == name), None)
        return found

    def router_playbooks(self) -> list[Playbook]:
        own = self.services.persona_playbooks(self.persona_id) if self.persona_id else []
        return self.services.router_playbooks() + own if own else self.services.router_playbooks()

    def target_names(self, kind: str, building_id: str) -> list[str]:
        return self.services.target_names(kind, building_id)

    def decision_rules(self) -> ChatModel:
        """The offline model's deterministic rules (sea/decisions.py)."""
        return OfflineModel()

    def commit(self) -> None:
        """Write everything the pulse produced, in one transaction (`volatile` lines end with the pulse)."""
        self._write(self.pending_memory)

    def commit_stopped(self, why: str, line: str | None = None) -> int:
        """The pulse failed or was cancelled (`why` says how): if no tool changed anything, drop the
        journal; else commit it with a note per change and one saying the pulse stopped (and one for a
        tool that failed in the middle of a change, its result unknown). `line`: a `system` line for the
        pulse's building saying its reply stopped and why, written now — where and when it happened, before
        any later reply. Returns how many changes were kept."""
        building = self.opened.building_id if self.opened is not None else None
        self.stop_line = (building, line) if line and building else None
        if not self.effects and self.intent is None and self.keep_cut:
            self._write(self.pending_memory)  # the user's stop: what was said so far stays, as said
            return 0
        if not self.effects and self.intent is None:
            self.pending_memory.clear()
            self.pending_lines.clear()
            self.pending_history.clear()
            if self.stop_line is None:
                close(self.services.db, self.opened)
            else:
                self._write([])
            return 0
        memory: list[tuple[str, str, str, list[str]]] = []
        lines: dict[int, dict[str, Any]] = {}
        for n in range(len(self.pending_memory) + 1):
            # Each note goes where its change happened among the pulse's own messages.
            memory += [(persona_id, "user", effect_note(note), list(EFFECT_TAGS))
                       for at, persona_id, note in self.effects if at == n and note]
            if n < len(self.pending_memory):
                if n in self.pending_lines:
                    lines[len(memory)] = self.pending_lines[n]
                memory.append(self.pending_memory[n])
        memory += closing_notes([e[1] for e in self.effects], [self.intent] if self.intent else [], why,
                                kept=bool(self.effects))
        self.pending_lines = lines
        self._write(memory)
        return len(self.effects)

    def _write(self, memory: list[tuple[str, str, str, list[str]]]) -> None:
        """One transaction: the messages, then the building lines in one statement (rows as
        `World.add_history` writes them, without an ORM flush per line)."""
        svc = self.services
        stop_line, self.stop_line = self.stop_line, None
        if not memory and not self.pending_history and stop_line is None:
            close(svc.db, self.opened)
            return
        with svc.db.engine.begin() as s:  # a Core transaction: the ORM session's bookkeeping buys nothing here
            for n, (persona_id, role, content, tags) in enumerate(memory):
                line = self.pending_lines.get(n)
                if line and line.get("scope") == "volatile":
                    continue  # pulse scratch: seen by the rest of the pulse, never kept (sea/lines.py)
                svc.memory.add(persona_id, role, content, tags=tags, pulse_id=self.pulse_id, session=s, line=line)
            if self.pending_history:
                now = datetime.now().isoformat(sep=" ", timespec="microseconds")
                run_many(s, _HISTORY_INSERT, [
                    {"b": building_id, "sid": persona["persona_id"], "name": persona.get("name", ""),
                     "c": line, "pulse": self.pulse_id, "at": now, "meta": json.dumps({"cut": cut}) if cut else None}
                    for building_id, persona, line, cut in self.pending_history])
            if stop_line is not None:
                svc.world.add_history(stop_line[0], speaker_kind="system", speaker_id=None, speaker_name="",
                                      content=stop_line[1], pulse_id=self.pulse_id, session=s)
            close_in(s, self.opened)
        self.pending_memory.clear()
        self.pending_lines.clear()
        self.pending_history.clear()


_HISTORY_INSERT = text(
    "INSERT INTO building_history (BUILDINGID, SPEAKER_KIND, SPEAKER_ID, SPEAKER_NAME, CONTENT, PULSE_ID, CREATED_AT, "
    "METADATA) VALUES (:b, 'persona', :sid, :name, :c, :pulse, :at, :meta)")


HAND_OVER_WITHIN = 0.01
"""Seconds an event may wait for its reader: events put sooner after the reader fell asleep are handed
over together (a frame of the page is ~16 ms; a person sees no difference)."""


class EventChannel:
    """A pulse's events from its worker to its one reader, handed over in batches.

    A put is a deque append. The sleeping reader is woken by the pulse's end, or by an event put once
    it has slept `HAND_OVER_WITHIN`; one put sooner waits for the next wake or the reader's own timeout
    (so at most `HAND_OVER_WITHIN`). A model's streamed tokens, tens of ms apart, each wake it at once;
    a pulse that ends within the window (the offline model's) wakes it once. Each wake makes the reader
    take the GIL while the worker runs: waking it for every event cost a short pulse ~10–20 % of its
    median (benchmarks/RESULTS-pulse.md). (A `queue.Queue` took the lock and notified on every event.)
    """

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._asleep_since: float | None = None
        self._wake_at_once = False  # the reader slept its window through: every put wakes it

    def put(self, item: Any) -> None:
        self._items.append(item)
        # Read after the append: a reader that fell asleep (or stopped waiting for its window) later
        # re-checks `_items` under the lock before it waits.
        since = self._asleep_since
        if since is not None and (item is None or self._wake_at_once
                                  or time.monotonic() - since >= HAND_OVER_WITHIN):
            with self._cond:
                self._cond.notify()

    def take_nowait(self) -> list[Any]:
        """Everything put so far and not yet taken (perhaps nothing); never waits."""
        batch = []
        while self._items:
            batch.append(self._items.popleft())
        return batch

    def take(self) -> list[Any]:
        """Everything put so far and not yet taken, oldest first; waits while there is nothing."""
        while not self._items:
            with self._cond:
                self._asleep_since = time.monotonic()
                try:
                    if not self._items:
                        self._cond.wait(HAND_OVER_WITHIN)  # what is put meanwhile waits for this
                    self._wake_at_once = True  # then no timer: a put wakes it (a long wait costs nothing)
                    while not self._items:
                        self._cond.wait()
                finally:
                    self._asleep_since, self._wake_at_once = None, False
        batch = []
        while self._items:
            batch.append(self._items.popleft())
        return batch
