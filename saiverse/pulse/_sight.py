"""See what she sees, and pin what she must keep (issue 33, items 3 and 4).

`Sight.context` shows exactly what a persona would be given for a user's message: it builds a
`PulseJournal` for a pulse that never runs, puts the message where a user's turn puts it (the
pulse's own `user` message, tags `conversation`) and asks the journal for the prompt of its first
model call (`PulseJournal.fitted`, the one assembly every pulse uses: snapshot, reflex recall, pins,
`fit`). Nothing is written (the journal is never committed; only the in-memory snapshot cache is
refreshed, as a pulse would) and no model runs: a local model whose process is not running is
counted with the estimate instead of being started (the view says so), its window cap then unknown.
The first prompt of a real pulse may differ only by what its playbook's node adds (a node prompt,
`history_depth`, excluded tags), and by what changes in memory meanwhile.

Pinning (`pin_line`, `unpin_line`) works on a chat line: its SAIMemory messages are found the way
deleting finds them (saiverse/world/_chat_edit.py: a persona's line is its reply in that pulse, the
user's line each answering persona's copy of it), and each is pinned in that persona's memory
(saiverse/memory/_pins.py), through the `ContextSource`'s store so kept snapshots see it at once.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from chat import ContextWindow
from saiverse.llm.offline import estimate_tokens
from saiverse.memory import (
    CHRONICLE_SHARE,
    CORE_SHARE,
    PIN_SHARE,
    REFLEX_SHARE,
    SYSTEM_SHARE,
    Fitted,
    Line,
    LongTermMemoryError,
    Pin,
    Recalled,
    conforms,
    pinned_text,
    reflex_setting_key,
    token_counter,
)
from saiverse.pulse._journal import PulseJournal, PulseServices, persona_context
from saiverse.world import WorldSettings, plan_line_deletion

PARTS = ("system", "pinned", "core", "reflex", "chronicle", "history", "own")
"""The parts of a prompt in the order the view lists them (saiverse/memory/_context.py `Fitted.parts`)."""


class _NotRunning:
    """Stands for a local model whose process is not running: counted with the estimate."""


@dataclass
class ContextView:
    """What a persona would be given for a message, part by part (see the module docstring)."""

    persona_id: str
    persona_name: str
    building_id: str
    building_name: str
    message: str
    budget: int
    """The token budget the prompt was fitted to (the persona's, capped by a running local model's window)."""
    input_tokens: int
    model: str | None
    counted_by: str
    """`tokenizer` (the model's own), `estimate`, or `estimate (<why>)`."""
    parts: dict[str, int]
    """Tokens per part: system, pinned, core, reflex, chronicle, history, own."""
    shares: dict[str, int]
    """The most a part may take, where it has a cap (system, pinned, core, reflex, chronicle)."""
    sections: dict[str, str]
    """Each system-prompt part's text as it went in."""
    recalled: list[Recalled]
    reflex_on: bool
    pins: list[dict[str, Any]]
    """Every pinned line, with `in_prompt` (False: it did not fit `PIN_SHARE`)."""
    history_kept: int
    history_of: int
    chronicle_ids: list[str]
    system: str
    messages: list[dict[str, Any]]
    shortened: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["recalled"] = [r.to_dict() for r in self.recalled]
        return out


@dataclass
class PinResult:
    """What pinning (or unpinning) one chat line did."""

    history_id: int
    pinned: dict[str, list[int]]
    """Persona id → its message ids now pinned (or unpinned)."""
    names: dict[str, str]
    fits: bool = True
    """Whether every pin of those personas still fits `PIN_SHARE` of her budget."""

    @property
    def who(self) -> list[str]:
        return [self.names.get(pid, pid) for pid in self.pinned]

    def to_dict(self) -> dict[str, Any]:
        return {"history_id": self.history_id, "pinned": self.pinned, "personas": self.who, "fits": self.fits}


class Sight:
    """The `context` view and chat-line pins, over the services a pulse uses."""

    def __init__(self, services: PulseServices) -> None:
        self.services = services

    @property
    def pins(self) -> Any:
        """The pin store (saiverse/memory/_pins.py) the prompts read."""
        return self.services.context.pins

    def context(self, persona_id: str, building_id: str, message: str) -> ContextView:
        """What `persona_id` would be given in `building_id` for the user's `message` (nothing written,
        no model run).

        Raises:
            UnknownIdError: no such persona or building."""
        world = self.services.world
        info = world.persona(persona_id)
        building = world.building(building_id)
        persona = persona_context(info)
        notes: list[str] = []
        try:
            model, notice = self.services.resolve_model(persona, "normal")
        except Exception as exc:  # noqa: BLE001 - the view still shows the prompt, counted by the estimate
            model, notice = None, f"モデルを選べませんでした: {exc}"
        if notice:
            notes.append(notice)
        name = getattr(model, "name", None)
        counting: Any = model
        counted_by = "estimate"
        if model is not None and conforms(model, ContextWindow) and getattr(model, "pid", 0) is None:
            counting = _NotRunning()
            counted_by = "estimate (local model not running: its tokenizer and window apply when it answers)"
        elif model is not None and hasattr(model, "count_tokens"):
            counted_by = "tokenizer"
        journal = PulseJournal(pulse_id=f"context-{uuid.uuid4().hex}", services=self.services,
                               known_building=building)
        journal.pending_memory.append((persona_id, "user", message, ["conversation"]))
        fitted: Fitted = journal.fitted(persona, building_id, counting, [])  # type: ignore[arg-type]
        snapshot = journal._snapshots[persona_id][0]
        budget = snapshot.budget
        if conforms(counting, ContextWindow):
            budget = min(budget, counting.prompt_budget())
        pins = self.pins.pins(persona_id)
        count = token_counter(counting)
        shares = {"system": int(budget * SYSTEM_SHARE), "pinned": int(budget * PIN_SHARE),
                  "core": int(budget * CORE_SHARE), "reflex": int(budget * REFLEX_SHARE),
                  "chronicle": int(budget * CHRONICLE_SHARE)}
        if fitted.pins_kept < len(pins):
            notes.append(f"ピン留め {len(pins) - fitted.pins_kept} 件が上限（予算の {int(PIN_SHARE * 100)}%）を超え、"
                         "入っていません")
        return ContextView(
            persona_id=persona_id, persona_name=info.name, building_id=building_id, building_name=building.name,
            message=message, budget=budget, input_tokens=fitted.input_tokens, model=name, counted_by=counted_by,
            parts={k: fitted.parts[k] if k in fitted.parts else count(fitted.sections[k]) if fitted.sections[k] else 0
                   for k in PARTS}, shares=shares, sections=fitted.sections,
            recalled=list(snapshot.recalled), reflex_on=self.services.context.reflex_on(persona_id),
            pins=[{**p.to_dict(), "in_prompt": n < fitted.pins_kept} for n, p in enumerate(pins)],
            history_kept=fitted.verbatim, history_of=len(snapshot.history), chronicle_ids=fitted.chronicle_ids,
            system=fitted.system, messages=[dict(m) for m in fitted.messages], shortened=fitted.shortened,
            notes=notes)

    # ---- pins ----------------------------------------------------------------------------------

    def persona_pins(self, persona_id: str) -> list[Pin]:
        """The persona's pinned lines, in the order they were pinned.

        Raises:
            UnknownIdError: no such persona."""
        self.services.world.persona(persona_id)
        return self.pins.pins(persona_id)

    def pin(self, persona_id: str, message_id: int) -> bool:
        """Pin one of the persona's messages (True when it was not pinned yet).

        Raises:
            UnknownIdError: no such persona. LongTermMemoryError: she has no such message."""
        self.services.world.persona(persona_id)
        return self.pins.pin(persona_id, message_id)

    def reflex_on(self, persona_id: str) -> bool:
        """Whether reflex recall runs for the persona before she answers (saiverse/memory/_reflex.py)."""
        return bool(self.services.context.reflex_on(persona_id))

    def set_reflex(self, persona_id: str, on: bool) -> None:
        """Turn reflex recall on or off for the persona: the same world setting as `python main.py persona
        reflex-on|reflex-off ID` (cli/_admin.py).

        Raises:
            UnknownIdError: no such persona."""
        self.services.world.persona(persona_id)
        WorldSettings(self.services.context.db).set_flag(reflex_setting_key(persona_id), bool(on))

    def unpin(self, persona_id: str, message_id: int) -> bool:
        """Unpin it (True when it was pinned)."""
        self.services.world.persona(persona_id)
        return self.pins.unpin(persona_id, message_id)

    def line_pins(self, building_id: str, history_id: int) -> dict[str, list[int]]:
        """Persona id → its pinned message ids among those that remember chat line `history_id`."""
        plan = plan_line_deletion(self.services.db, building_id, history_id)
        found = {}
        for pid, mids in plan.memory_ids.items():
            pinned = self.pins.pinned_ids(pid)
            if any(m in pinned for m in mids):
                found[pid] = [m for m in mids if m in pinned]
        return found

    def pin_line(self, building_id: str, history_id: int) -> PinResult:
        """Pin chat line `history_id` in the memory of every persona who remembers it.

        Raises:
            UnknownIdError: the building has no such line. LongTermMemoryError: no persona remembers it."""
        plan = plan_line_deletion(self.services.db, building_id, history_id)
        if not plan.memory_ids:
            raise LongTermMemoryError("この行を覚えているペルソナがいないので、ピン留めできません。")
        for pid, mids in plan.memory_ids.items():
            for mid in mids:
                self.pins.pin(pid, mid)
        fits = all(self._fits(pid) for pid in plan.memory_ids)
        return PinResult(history_id, plan.memory_ids, plan.persona_names, fits)

    def unpin_line(self, building_id: str, history_id: int) -> PinResult:
        """Unpin chat line `history_id` from every persona's memory."""
        plan = plan_line_deletion(self.services.db, building_id, history_id)
        for pid, mids in plan.memory_ids.items():
            for mid in mids:
                self.pins.unpin(pid, mid)
        return PinResult(history_id, plan.memory_ids, plan.persona_names)

    def _fits(self, persona_id: str) -> bool:
        """Whether all of the persona's pins fit `PIN_SHARE` of her budget (counted by the estimate)."""
        lines = [Line(p.role, p.content) for p in self.pins.pins(persona_id)]
        budget = self.services.context.budget(persona_id)
        return pinned_text(lines, int(budget * PIN_SHARE), estimate_tokens)[1] == len(lines)
