"""A user's message and who answers it: the chat's send, and a playbook run as a persona.

A service the manager builds (saiverse/manager.py) with the parts it uses: it writes the user's line,
picks who answers, and hands each answering persona's pulse to the pulse controller (docs/ARCHITECTURE.md,
"Pulse"). While a production runs in the building, the message is an instruction for its plan.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from saiverse.errors import busy_database_message
from saiverse.inputs import InputError, check_message
from saiverse.pulse import PlaybookCatalog, ProductionService, PulseKinds, QueueFullError, user_turn
from saiverse.settings import SettingsStore
from saiverse.world import (
    ANSWERING_MODES,
    InvalidImageError,
    ItemInfo,
    PersonaInfo,
    UnknownIdError,
    World,
    nobody_answers,
)
from sea.events import Event, event
from sea.playbook import Playbook, PlaybookError
from words import say

DEFAULT_META = "meta_user"
USER_MESSAGE_HOLD = 10.0
"""Seconds a user's message holds autonomous pulses at most before its pulse starts (saiverse/pulse/_pool.py)."""
log = logging.getLogger(__name__)
_MENTION = re.compile(r"@(\S+)")


class Conversation:
    """The user's side of the chat: a message in a building → the events of every answering pulse."""

    def __init__(self, *, world: World, pulses: PulseKinds, playbooks: PlaybookCatalog,
                 production: ProductionService, upload_attachment: Callable[[str, bytes, str | None], ItemInfo],
                 settings: SettingsStore, user_building: Callable[[], str]) -> None:
        self.world = world
        self.pulses = pulses
        """In process, or the queue of pulse workers (saiverse/pulse/_remote.py)."""
        self.playbooks = playbooks
        self.production = production
        """A message in a building where a production runs is an instruction for its plan."""
        self.upload_attachment = upload_attachment
        """(building id, bytes, name) → the item an attachment becomes: a picture, or audio (saiverse/uploads.py)."""
        self.settings_store = settings
        self.user_building = user_building
        """→ where the user is: a playbook run for a persona without a building runs there."""

    def responders(self, building_id: str, text: str) -> list[PersonaInfo]:
        """Personas present whose mode answers users; `@name` narrows it to one."""
        present = [p for p in self.world.personas(building_id) if p.interaction_mode in ANSWERING_MODES]
        mentioned = {m.lower() for m in _MENTION.findall(text)}
        if mentioned:
            named = [p for p in present if p.name.lower() in mentioned or p.persona_id.lower() in mentioned]
            if named:
                return named
        return present

    def meta_playbook(self, name: str | None) -> Playbook:
        pb = self.playbooks.get(name or DEFAULT_META)
        if pb is None:
            raise PlaybookError(f"meta playbook {name!r} does not exist", field="meta_playbook")
        return pb

    def check_message(self, text: str) -> str:
        """A chat message the user may send (UTF-8, no NUL, at most `max_message_chars`); InputError otherwise."""
        return check_message(text, self.settings_store.current.max_message_chars)

    def handle_user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]] = (), *,
        persona_id: str | None = None, meta_playbook: str | None = None, args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """A user message in a building → events of every answering persona's pulse, in turn.

        Never raises for a busy database: the caller gets an `error` event (kind `busy`) instead."""
        # Autonomous pulses give way from now: while the message is stored and the pulse queued, not
        # only once it runs (then the pool holds them itself); released at its start at the latest.
        hold = f"user-message:{uuid.uuid4().hex}"
        self.pulses.hold_autonomous(hold, True, ttl=USER_MESSAGE_HOLD)
        try:
            with user_turn():  # the interpreter hands the GIL back sooner meanwhile (saiverse/pulse/_pool.py)
                for ev in self._user_input(building_id, text, attachments, persona_id=persona_id,
                                           meta_playbook=meta_playbook, args=args):
                    if hold and ev["type"] == "pulse_start":
                        self.pulses.hold_autonomous(hold, False)
                        hold = ""
                    yield ev
        except SQLAlchemyError as exc:
            # One line, never the SQL and its parameters (they hold the user's text): the event says it.
            locked = busy_database_message(exc)
            log.info("a user message could not be handled: %s", locked or type(exc).__name__)
            yield event("error", kind="busy", building_id=building_id, locked=locked,
                        message="データベースが混み合っていて送れませんでした。少し待ってからもう一度送ってください。")
        finally:
            if hold:  # no pulse started (a refusal, an instruction to a production, nobody here)
                self.pulses.hold_autonomous(hold, False)

    def _user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]], *,
        persona_id: str | None, meta_playbook: str | None, args: dict[str, Any] | None,
    ) -> Iterator[Event]:
        try:
            self.check_message(text)
            # The persona is read with the building (one connection); an unknown one is said below, as before.
            building, found = self.world.building_and_persona(building_id, persona_id)
            playbook = self.meta_playbook(meta_playbook)
        except (InputError, UnknownIdError, PlaybookError) as exc:
            yield event("error", kind="bad_request", message=str(exc), building_id=building_id)
            return
        notes: list[str] = []
        for filename, data in attachments:
            try:
                item = self.upload_attachment(building_id, data, Path(filename).stem)
            except (InvalidImageError, ValueError) as exc:
                yield event("error", kind="upload", message=f"{Path(filename).name}: {exc}", building_id=building_id)
                continue
            # a voice message from the phone's recorder, or a picture
            notes.append(say("chat_uploaded_audio" if item.type == "audio" else "chat_uploaded_image", name=item.name))
            yield event("item_created", item=item.to_dict(), building_id=building_id)
        text = text.strip()
        said = "\n".join([text, *notes]).strip()
        if not said:
            return
        run_id = self.production.active_run(building_id)
        if run_id and text:
            # A production is working here: the message is an instruction for its plan (→ patch).
            self.production.add_instruction(run_id, text)
            hid = self.world.add_history(building_id, speaker_kind="user", speaker_id="user",
                                         speaker_name="あなた", content=said)
            yield event("user_message", text=said, building_id=building_id, history_id=hid)
            yield event("notice", kind="production_instruction", run_id=run_id, building_id=building_id,
                        text=say("chat_production_instruction"))
            return
        picked = (found or self.world.persona(persona_id)) if persona_id is not None else None  # unknown: raises
        if picked is None:
            targets = self.responders(building_id, text)
        else:
            targets = [picked] if picked.building_id == building_id else []
        # The user's memory too, at once; the building read above is the pulses' (their system prompt).
        hid, pulse_ids = self.pulses.say(self.world, building_id, said, targets, building=building)
        yield event("user_message", text=said, building_id=building_id, history_id=hid)
        if not targets and picked is not None:
            yield event("error", kind="not_here", persona_id=persona_id,
                        message=f"{picked.name} は {building_id} にいません。")
            return
        if not targets:  # never talk into silence: say who is where instead
            yield event("notice", kind="nobody_here", building_id=building_id,
                        text=nobody_answers(self.world, building_id, lang=self.settings_store.current.lang))
            return
        call_args = dict(args or {})
        if text and "input" not in call_args and any(p.name == "input" for p in playbook.input_schema):
            call_args["input"] = text  # the request is what the user typed; upload notes stay in memory only
        for persona in targets:
            try:
                handle = self.pulses.submit_user(persona, building_id, said, playbook, args=call_args,
                                                 pulse_id=pulse_ids.get(persona.persona_id))
            except QueueFullError as exc:
                yield event("error", kind="queue_full", persona_id=persona.persona_id, message=str(exc))
                continue
            yield from handle.events()

    def run_playbook(
        self, playbook: Playbook, persona_id: str, building_id: str | None = None, *,
        args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """Run one playbook as a persona (CLI `run-playbook`); validated first."""
        from sea.validate import check_args

        persona = self.world.persona(persona_id)
        if building_id is not None:
            self.world.building(building_id)  # an unknown building is the caller's mistake, not a failed pulse
        self.playbooks.validate(playbook)
        check_args(playbook, dict(args or {}))
        handle = self.pulses.submit("user", persona, building_id or persona.building_id or self.user_building(),
                                    playbook, args=args)
        yield from handle.events()
