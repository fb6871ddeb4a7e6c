"""The UI's port: everything `ui/` needs from the domain, in one typed place (docs/ARCHITECTURE.md, "UI").

`CityPort` is what a window talks to — `SAIVerseManager` implements it, a test may hand a fake that
implements only what one handler uses. The names below it are the domain's values and helpers the
UI shows or calls (settings, backups, the login, local models), re-exported so that `ui/` imports
from `saiverse` this module and nothing else (tests/test_layers.py holds that). Imported eagerly: the
window opens the manager before its first page, which imports every one of them anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from saiverse.care import (
    DEFAULT_USER,
    LOGIN_CLIENT,
    AdminService,
    BackupStore,
    Gate,
    ServerLock,
    clear_login,
    read_login,
    restore_backup,
    set_login,
    tls_files,
)
from saiverse.costs import parse_prices
from saiverse.disk import human_size
from saiverse.errors import UserError, busy_database_message, is_user_error
from saiverse.heap import settle
from saiverse.listen import (
    MAX_AUDIO_BYTES,
    ListenError,
    audio_kind,
    listen_refusal,
    listener_status,
    save_listener,
    transcribe,
)
from saiverse.llm import installed_models
from saiverse.llm.local import CATALOG, PullJobs, describe, local_name, make_default, resolve
from saiverse.llm.registry import describe_default, local_broken, provider_status, retry_local
from saiverse.llm.servers import found_servers, probe
from saiverse.manager import SAIVerseManager
from saiverse.mcp_tools import save_servers, shown_json, unmask
from saiverse.memory import export_memory, parse_day
from saiverse.settings import Settings, SettingsError, SettingsStore, mask_key
from saiverse.voice import VOICE_ENGINES, SentenceSplitter, VoiceError, VoiceSettings, sentences, speakable
from saiverse.world import SUMMARY_LIMIT, short_id

if TYPE_CHECKING:
    from saiverse.costs import Costs
    from saiverse.llm.answering import Answering
    from saiverse.mcp_tools import McpTools
    from saiverse.memory import ChronicleStore, MemopediaStore, SAIMemory
    from saiverse.pulse import PlaybookCatalog, Sight
    from saiverse.ticker import EventSink, Ticker
    from saiverse.uploads import Uploads
    from saiverse.voice import VoiceService
    from saiverse.world import (
        BuildingInfo,
        HistoryEntry,
        ItemInfo,
        ItemStore,
        LineDeletion,
        MapSpot,
        PersonaInfo,
        ScheduleInfo,
        ScheduleStore,
        Swipes,
        World,
    )
    from sea.events import Event


class CityPort(Protocol):
    """One city as a window sees it: read the world, send a message, change what the tabs change.

    The services a tab works with are attributes (each documented where it is defined); the methods
    are what the chat view calls. Unknown ids raise `UnknownIdError` / `ItemNotFoundError`, bad input
    a `UserError` whose message says what and why — the UI shows either as a toast.
    """

    settings: Settings
    """The settings in force (read-only here; the 設定 tab saves through `settings_store`)."""
    settings_store: SettingsStore
    """Saves settings.json and hands back the new settings."""
    world: World
    """Buildings, personas, who is where, the city's name."""
    items: ItemStore
    """Items and their files."""
    memory: SAIMemory
    """Each persona's SAIMemory messages."""
    chronicle: ChronicleStore
    """Each persona's Chronicle entries."""
    memopedia: MemopediaStore
    """Each persona's Memopedia pages."""
    playbooks: PlaybookCatalog
    """Builtin and imported playbooks."""
    schedules: ScheduleStore
    """Each persona's schedules."""
    admin: AdminService
    """Create, change and delete buildings and personas; settings.json as the 設定 tab edits it."""
    backups: BackupStore
    """The home's backups (manual, daily, before a migration or a delete)."""
    pulls: PullJobs
    """Model downloads started from the 設定 tab."""
    mcp: McpTools
    """Each persona's MCP servers: their status and tools (the ペルソナ tab)."""
    autonomous: bool
    """The 自律 switch of the whole city (stored in the world)."""
    sight: Sight
    """What a persona would be given for a message (the メモリ tab's 見えているもの), and chat-line pins."""
    uploads: Uploads
    """What the item modal, uploads and `keep_audio` (a spoken line, a recording kept as an audio item) do."""
    voices: VoiceService
    """Each persona's voice (`voice_for`, `set_voice`), `synthesize` / `speak` → a cached WAV, `list_voices`
    (saiverse/voice/)."""
    costs: Costs
    """Tokens per persona and day, the home's price table, daily budgets (the 設定 tab's 💰 利用量)."""

    def buildings(self) -> list[BuildingInfo]:
        """Every building of the city, in the order the building list shows them."""
        ...

    def personas(self) -> list[PersonaInfo]:
        """Every persona, wherever it is."""
        ...

    def user_building(self) -> str:
        """Where the user is in the world (a new world: its first building).

        Returns:
            The building id."""
        ...

    def city_map(self) -> list[MapSpot]:
        """The city map, one spot per building in the building list's order: its id and name, its
        (x, y) on the map (the stored MAP_X / MAP_Y, or `auto` and placed on a grid below them), the
        personas inside (id, name, avatar) and whether the user is there."""
        ...

    def move_user(self, building_id: str) -> BuildingInfo:
        """Put the user in `building_id` (what personas see as "the user is here").

        Raises:
            UnknownIdError: no such building."""
        ...

    def building_view(self, building_id: str) -> dict[str, Any]:
        """What the side panel shows of a building: the building, who is there, its items and models.

        Raises:
            UnknownIdError: no such building."""
        ...

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[HistoryEntry]:
        """A building's latest `limit` lines (before `before_id`, for "load earlier"), oldest first.

        Raises:
            UnknownIdError: no such building."""
        ...

    def line_deletion(self, building_id: str, history_id: int) -> LineDeletion:
        """What deleting one chat line would remove, for the confirmation (nothing changes).

        Args:
            building_id: the building whose chat shows the line.
            history_id: the line's id (`HistoryEntry.id`).

        Returns:
            The line and, per persona, the SAIMemory messages that remember it (`remembered_by`
            names them; empty when only the history holds it).

        Raises:
            UnknownIdError: no such building, or no such line in it."""
        ...

    def delete_line(self, building_id: str, history_id: int) -> LineDeletion:
        """Delete one chat line from the building history and, where it was remembered, from SAIMemory
        (one transaction: both or neither).

        Args:
            building_id: the building whose chat shows the line.
            history_id: the line's id.

        Returns:
            What was removed (as `line_deletion` described it).

        Raises:
            UnknownIdError: no such building, or no such line in it (already deleted)."""
        ...

    def regenerate(self, building_id: str) -> Iterator[Event]:
        """Answer the user's last line again, by the persona whose reply is the building's last line.

        The earlier answer stays reachable (`reply_swipes`); the new one is shown and remembered.

        Args:
            building_id: the building whose last line is the reply.

        Returns:
            The new pulse's events, then a `swipes` event (`history_id`, `answers`, `chosen`); an
            `error` event (never an exception) when the last line is no single-line reply to the
            user, or when the new pulse wrote none (the earlier answer then stays)."""
        ...

    def continue_reply(self, building_id: str) -> Iterator[Event]:
        """Write on a persona's reply that stopped before its end (the building's last line, its `cut`
        set: the answer length, or the user's stop), into that same line.

        Returns:
            The pulse's events, then `continued` (`history_id`, the whole `text`, `cut` if it stopped
            again); an `error` event (never an exception) when the last line is not a cut reply or
            nothing was written (the line then stays as it was)."""
        ...

    def edit_last_message(self, building_id: str, text: str) -> Iterator[Event]:
        """Replace the user's last line with `text` and have it answered again; the replies that
        followed it are deleted (history and memory), not kept.

        Args:
            building_id: the building whose last message is edited.
            text: the new message (checked like any message).

        Returns:
            The events of the new message (as `handle_user_input`); an `error` event when the text is
            refused or the user's line is not the last but for its replies."""
        ...

    def set_avatar_image(self, persona_id: str, data: bytes) -> PersonaInfo:
        """Make a picture the persona's avatar (checked like a picture upload, kept under `<home>/icons/`).

        Raises:
            UnknownIdError: no such persona.
            UserError (InvalidImageError): not an image, too large, or broken."""
        ...

    def clear_avatar_image(self, persona_id: str) -> PersonaInfo:
        """The persona shows its emoji avatar again.

        Raises:
            UnknownIdError: no such persona."""
        ...

    def avatar_files(self) -> dict[str, str]:
        """Persona id → absolute path of its avatar picture (only those with a picture on disk,
        uploaded or imported)."""
        ...

    def search_chat(self, building_id: str, query: str, *, limit: int = 50) -> list[HistoryEntry]:
        """Search the building's chat: lines containing every word of `query`, newest first.

        Args:
            building_id: the building whose chat is searched.
            query: words separated by spaces (case-insensitive; empty finds nothing).
            limit: at most this many lines.

        Raises:
            UnknownIdError: no such building."""
        ...

    def reply_swipes(self, building_id: str, history_id: int) -> Swipes | None:
        """The answers of a persona's line and which is shown (one answer unless regenerated).

        Returns:
            None when the line is not a persona's.

        Raises:
            UnknownIdError: no such building, or no such line in it."""
        ...

    def choose_swipe(self, building_id: str, history_id: int, index: int) -> Swipes:
        """Show answer `index` (from 0) of a persona's line; its persona then remembers that answer.

        Raises:
            UnknownIdError: no such building, or no such line in it.
            UserError (NoReplyError): the line has no such answer."""
        ...

    def check_message(self, text: str) -> str:
        """`text` if the user may send it (UTF-8, no NUL, at most `max_message_chars`); InputError (a
        UserError) saying why otherwise. The send checks it before it clears the input box."""
        ...

    def handle_user_input(
        self, building_id: str, text: str, attachments: Iterable[tuple[str, bytes]] = (), *,
        persona_id: str | None = None, meta_playbook: str | None = None, args: dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """A user's message in a building: the events of every answering persona's pulse, in turn.

        Args:
            building_id: where the message is said.
            text: the message (checked against the length limit).
            attachments: (file name, bytes) pairs; each image becomes a picture item first.
            persona_id: only this persona answers (`@name`).
            meta_playbook: the playbook that runs the pulse instead of `meta_user`.
            args: that playbook's arguments.

        Returns:
            Events as they happen (docs/ARCHITECTURE.md, "Events"); a busy database is an `error`
            event, never an exception."""
        ...

    def cancel_pulses(self, building_id: str | None = None) -> int:
        """Stop running and queued pulses (of one building, or all): the stop button.

        Returns:
            How many pulses were asked to stop."""
        ...

    def item_view(self, item_id: str) -> dict[str, Any]:
        """What the item modal shows: the item, whether it can be viewed, its image path or its text.

        Raises:
            ItemNotFoundError: no such item."""
        ...

    def save_document(self, item_id: str, text: str, *, expected_version: int | None = None) -> ItemInfo:
        """Save a document's new text as its next version.

        Raises:
            ItemNotFoundError: no such item.
            UserError: the text is too long, or the document changed since `expected_version`."""
        ...

    def recall(self, persona_id: str, query: str, *, limit: int = 20,
               exclude_pulse: str | None = None) -> list[dict[str, Any]]:
        """Messages, Chronicle entries and Memopedia pages of a persona matching `query`."""
        ...

    def build_chronicle(self, persona_id: str) -> dict[str, Any]:
        """Write the Chronicle entries that are due for a persona now.

        Returns:
            What was written: `created` entries and how many `messages` they summarise."""
        ...

    def tracks_view(self, persona_id: str) -> dict[str, Any]:
        """A persona's upstream v0.3 activity: state, tracks, notes, memory notes, meta judgments."""
        ...

    def add_schedule(self, persona_id: str, spec: dict[str, Any]) -> ScheduleInfo:
        """Validate a schedule against the playbooks and store it.

        Raises:
            UserError (ScheduleError): a spec that cannot run, with the field named."""
        ...

    def persona_models(self) -> list[Answering]:
        """Per persona: the model configured, the one that really answers, and why."""
        ...

    def model_notice(self) -> str | None:
        """A line for the chat when an embedded model (local or offline) answers, saying why; else None."""
        ...

    def startup_notice(self) -> str:
        """The console line at start: which model answers and why."""
        ...

    def autonomy_status(self) -> dict[str, Any]:
        """The 自律 switch as the chat view shows it: on or off, which personas act, how often."""
        ...

    def ticker(self, *, interval: float = 15.0, on_events: EventSink | None = None) -> Ticker:
        """The background ticker of this city (schedules, autonomous turns, interrupted runs)."""
        ...

    def close(self) -> None:
        """Stop the city's workers and release the home."""
        ...


__all__ = [
    "CityPort",
    "AdminService",
    "BackupStore",
    "CATALOG",
    "DEFAULT_USER",
    "Gate",
    "LOGIN_CLIENT",
    "ListenError",
    "MAX_AUDIO_BYTES",
    "PullJobs",
    "SAIVerseManager",
    "SUMMARY_LIMIT",
    "ServerLock",
    "Settings",
    "SettingsError",
    "SettingsStore",
    "UserError",
    "VOICE_ENGINES",
    "SentenceSplitter",
    "VoiceError",
    "VoiceSettings",
    "audio_kind",
    "busy_database_message",
    "clear_login",
    "describe",
    "describe_default",
    "export_memory",
    "found_servers",
    "human_size",
    "installed_models",
    "is_user_error",
    "local_broken",
    "local_name",
    "listen_refusal",
    "listener_status",
    "make_default",
    "mask_key",
    "parse_day",
    "parse_prices",
    "probe",
    "provider_status",
    "read_login",
    "resolve",
    "restore_backup",
    "retry_local",
    "save_listener",
    "save_servers",
    "set_login",
    "sentences",
    "settle",
    "short_id",
    "shown_json",
    "speakable",
    "tls_files",
    "transcribe",
    "unmask",
]
