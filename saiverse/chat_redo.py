"""The manager's chat edits: delete a line, regenerate the last reply, choose among its answers,
continue a reply that stopped, edit the last message, search; and persona avatar pictures.

A service the manager builds (saiverse/manager.py) with the parts it uses; the rules live in
saiverse/world/_chat_edit.py and saiverse/world/_swipes.py, this runs the pulse in between.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from database import Database
from saiverse.errors import UserError
from saiverse.inputs import InputError
from saiverse.memory import SAIMemory
from saiverse.pulse import PulseKinds
from saiverse.settings import SettingsStore
from saiverse.world import (
    CheckedImage,
    HistoryEntry,
    LineDeletion,
    NoReplyError,
    PersonaInfo,
    Swipes,
    World,
    avatar_path,
    choose_swipe,
    clear_avatar,
    cut_reply,
    delete_line,
    extend_reply,
    fold_reply,
    forget_reply,
    keep_reply,
    plan_line_deletion,
    reply_swipes,
    search_history,
    store_avatar,
)
from sea.events import Event, event
from sea.playbook import Playbook
from words import say

CONTINUE_PLAYBOOK = "continue_reply"
"""The playbook that writes a cut reply's continuation (playbooks/continue_reply.json)."""


class ChatRedo:
    """Delete, regenerate and swipe, as the chat's per-line actions call them."""

    def __init__(self, *, db: Database, world: World, memory: SAIMemory, pulses: PulseKinds,
                 meta_playbook: Callable[[str | None], Playbook], say: Callable[[str, str], Iterator[Event]],
                 check_message: Callable[[str], str], check_image: Callable[[bytes], CheckedImage],
                 settings: SettingsStore, playbook: Callable[[str], Playbook | None] = lambda _name: None) -> None:
        self.db = db
        self.world = world
        self.memory = memory
        """Where the earlier answer is remembered again when a regenerated one wrote nothing."""
        self.pulses = pulses
        self.meta_playbook = meta_playbook
        """name (None: the default) → the meta playbook a regenerated reply runs."""
        self.say = say
        """(building id, text) → the events of a user's message (`Conversation.handle_user_input`)."""
        self.check_message = check_message
        self.check_image = check_image
        """An avatar picture is checked like a picture upload (saiverse/uploads.py)."""
        self.settings_store = settings
        """The home, where avatars are kept."""
        self.playbook = playbook
        """name → a stored playbook (`continue_reply` writes a continuation)."""

    def line_deletion(self, building_id: str, history_id: int) -> LineDeletion:
        """What deleting a chat line would remove: the line and which personas remember it."""
        self.world.building(building_id)
        return plan_line_deletion(self.db, building_id, history_id)

    def delete_line(self, building_id: str, history_id: int) -> LineDeletion:
        """Delete a chat line from the building history and the SAIMemory messages that remember it."""
        self.world.building(building_id)
        return delete_line(self.db, building_id, history_id)

    def set_avatar_image(self, persona_id: str, data: bytes) -> PersonaInfo:
        """Check `data` as a picture upload, store it under `<home>/icons/` and make it the persona's avatar."""
        store_avatar(self.db, self.settings_store.current.home, persona_id, self.check_image(data))
        return self.world.persona(persona_id)

    def clear_avatar_image(self, persona_id: str) -> PersonaInfo:
        """The persona shows its emoji avatar again."""
        clear_avatar(self.db, persona_id)
        return self.world.persona(persona_id)

    def avatar_files(self) -> dict[str, str]:
        """Persona id → the absolute path of its avatar picture, for those that have one on disk."""
        home = self.settings_store.current.home
        found = {p.persona_id: avatar_path(home, p.avatar_image) for p in self.world.personas()}
        return {pid: str(path) for pid, path in found.items() if path is not None}

    def search_chat(self, building_id: str, query: str, *, limit: int = 50) -> list[HistoryEntry]:
        """Lines of a building's chat containing every word of `query`, newest first."""
        self.world.building(building_id)
        return search_history(self.db, building_id, query, limit=limit)

    def reply_swipes(self, building_id: str, history_id: int) -> Swipes | None:
        """The answers of a persona's line (one, unless it was regenerated); None for another line."""
        self.world.building(building_id)
        return reply_swipes(self.db, building_id, history_id)

    def choose_swipe(self, building_id: str, history_id: int, index: int) -> Swipes:
        """Show answer `index` of a regenerated reply; the persona then remembers that one."""
        self.world.building(building_id)
        return choose_swipe(self.db, building_id, history_id, index)

    def regenerate(self, building_id: str) -> Iterator[Event]:
        """Answer the user's last line again with the persona whose reply is the building's last line.

        The earlier answer stays reachable as a swipe; the new one is shown and remembered."""
        try:
            self.world.building(building_id)
            hid, persona_id, said = forget_reply(self.db, building_id)
            persona = self.world.persona(persona_id)
        except (NoReplyError, LookupError) as exc:
            yield event("error", kind="bad_request", message=str(exc), building_id=building_id)
            return
        old = reply_swipes(self.db, building_id, hid)
        playbook = self.meta_playbook(None)
        args = {"input": said} if any(p.name == "input" for p in playbook.input_schema) else {}
        handle = self.pulses.submit_user(persona, building_id, said, playbook, args=args)
        yield from handle.events()
        try:
            swipes = fold_reply(self.db, building_id, hid, handle.pulse_id)
        except NoReplyError as exc:
            if old is not None:  # the earlier answer is remembered again, under the pulse that kept the user's line
                self.memory.add(persona_id, "assistant", old.answers[old.chosen]["content"],
                                tags=["conversation"], pulse_id=handle.pulse_id)
                keep_reply(self.db, building_id, hid, handle.pulse_id)
            yield event("error", kind="regenerate", message=str(exc), building_id=building_id)
            return
        yield event("swipes", building_id=building_id, **swipes.to_dict())

    def continue_reply(self, building_id: str) -> Iterator[Event]:
        """Have the persona whose cut reply (`HistoryEntry.cut`) is the building's last line write on from
        where it stopped (playbooks/continue_reply.json): the continuation is added to that same line and
        to the answer she remembers; the last event, `continued`, carries the whole text."""
        try:
            self.world.building(building_id)
            hid, persona_id, _said = cut_reply(self.db, building_id)
            persona = self.world.persona(persona_id)
            playbook = self.playbook(CONTINUE_PLAYBOOK)
            if playbook is None:
                raise LookupError(say("continue_no_playbook", name=CONTINUE_PLAYBOOK))
        except (NoReplyError, LookupError) as exc:
            yield event("error", kind="bad_request", message=str(exc), building_id=building_id)
            return
        handle = self.pulses.submit("user", persona, building_id, playbook)
        yield from handle.events()
        try:
            whole, still = extend_reply(self.db, building_id, hid, handle.pulse_id)
        except (NoReplyError, LookupError) as exc:
            yield event("error", kind="continue", message=str(exc), building_id=building_id)
            return
        yield event("continued", building_id=building_id, history_id=hid, text=whole, cut=still or None,
                    persona_id=persona_id)

    def edit_last_message(self, building_id: str, text: str) -> Iterator[Event]:
        """Replace the user's last line of a building with `text` and have it answered again.

        The replies that followed it are deleted with the line (from the history and from the
        memory of the personas who remembered them); the new line is then said as any message.
        Only the user's last line can be edited, and only when nothing but replies follows it."""
        try:
            self.world.building(building_id)
            self.check_message(text)
            doomed = self._last_exchange(building_id)
        except (InputError, UserError, LookupError) as exc:
            yield event("error", kind="bad_request", message=str(exc), building_id=building_id)
            return
        for history_id in reversed(doomed):  # the replies first, then the line they answered
            delete_line(self.db, building_id, history_id)
        yield from self.say(building_id, text)

    def _last_exchange(self, building_id: str) -> list[int]:
        """Ids of the user's last line and the replies after it (UserError if anything else follows)."""
        recent = self.world.history(building_id, limit=50)
        users = [n for n, e in enumerate(recent) if e.speaker_kind == "user"]
        if not users:
            raise UserError(say("edit_no_message"))
        after = recent[users[-1] + 1:]
        # A reply a kill cut short is a `system` line of its pulse (saiverse/pulse/_open.py): it goes too.
        if any(e.speaker_kind != "persona" and not (e.speaker_kind == "system" and e.pulse_id) for e in after):
            raise UserError(say("edit_not_last"))
        return [e.id for e in recent[users[-1]:]]
