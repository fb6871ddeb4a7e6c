"""The city and what is in it: buildings, personas, items and their files, schedules.

Parts (private modules; import from here):
- `_activity`: A persona's activity state, as upstream v0.3 names it, beside this app's interaction …
- `_auto_turns`: Each persona's last autonomous turn, in the world's database (`autonomous_turn`, …
- `_aspect`: Aspect ratios for drawn pictures: upstream's `generate_image(aspect_ratio="16:9")`, …
- `_avatars`: Persona avatar pictures: stored under `<home>/icons/` (where an import copies …
- `_chat_edit`: Deleting a chat line: from the building history and, where it was remembered, from …
- `_chat_search`: Search in one building's chat: the lines whose text contains every word asked for, …
- `_doc_versions`: A document save that committed but was not renamed into place is finished by whoever …
- `_item_audio`: Audio items (upstream's `audio` item type): a reply's spoken audio or a recorded voice …
- `_item_bags`: Bags (upstream v0.3's containers): an item of type `bag` holds items — their location is …
- `_item_delete`: Deleting an item from the room's modal (the caller takes the automatic backup first, …
- `_item_names`: Renaming an item (upstream v0.3's `item_change_name`): the name checked like a new …
- `_item_slots`: Item slots (upstream v0.3): an item's numbered place in its container, unique per …
- `_items`: Items: objects, pictures, documents, bags and audio, their locations, and their files on disk.
- `_map`: The city map: where each building stands, who is in it, where the user is …
- `_media`: Media files under the data home: naming, safe path resolution, atomic writes, image …
- `_patching`: Document patches for `item_use` `patch_content`: a unified diff is applied, anything …
- `_pdf`: PDF documents: checking uploaded bytes and reading a PDF's text, page by page (pypdf).
- `_presence`: Never talk into silence: when nobody in a building will answer, say who is where and …
- `_schedules`: Persona schedules: periodic (days of week + HH:MM), one-shot, interval (table …
- `_settings`: Settings kept in the world's database (`world_setting`), not in settings.json: they …
- `_summaries`: Item summaries (≤ 300 characters, Japanese) by the item model chain, offline when …
- `_swipes`: A persona's last reply, regenerated: every answer kept as a swipe, the chosen one …
- `_world`: The world: the city, its buildings, who is where, and what was said in each building.
"""

from __future__ import annotations

from saiverse.world._activity import from_interaction_mode, shown_state, to_interaction_mode
from saiverse.world._aspect import crop_to_ratio
from saiverse.world._auto_turns import AutonomousTurns
from saiverse.world._avatars import avatar_path, clear_avatar, store_avatar
from saiverse.world._chat_edit import LineDeletion, delete_line, plan_line_deletion
from saiverse.world._chat_search import search_history
from saiverse.world._doc_versions import committed_copy
from saiverse.world._item_audio import AUDIO_ITEMS_DIR, CheckedAudio, check_audio, create_audio, join_wavs
from saiverse.world._item_bags import BagError, container_of, is_bag
from saiverse.world._item_delete import delete_item
from saiverse.world._item_names import rename_item
from saiverse.world._item_slots import move_numbered, parse_short_id, short_id
from saiverse.world._items import (
    ITEM_TYPES,
    SUMMARY_LIMIT,
    ItemInfo,
    ItemNotFoundError,
    ItemStore,
    clip_summary,
    text_sha256,
)
from saiverse.world._map import MAP_LIMIT, MapSpot, map_layout
from saiverse.world._media import (
    SUMMARY_SUFFIX,
    CheckedImage,
    InvalidImageError,
    UnsafePathError,
    atomic_write,
    check_image,
    commit_staged,
    new_file_name,
    relative_to_home,
    remove_quietly,
    resolve_in_home,
    staged_name,
    summary_path,
)
from saiverse.world._patching import PatchError, apply_patch
from saiverse.world._pdf import InvalidPdfError, check_pdf, is_pdf, is_pdf_path, pdf_pages
from saiverse.world._presence import ANSWERING_MODES, nobody_answers
from saiverse.world._schedules import (
    DAYS,
    KINDS,
    MIN_INTERVAL_SEC,
    ScheduleError,
    ScheduleInfo,
    ScheduleStore,
    next_run,
    parse_time,
)
from saiverse.world._settings import AUTONOMOUS, WorldSettings
from saiverse.world._summaries import Summarizer
from saiverse.world._swipes import (
    NoReplyError,
    Swipes,
    choose_swipe,
    cut_of,
    cut_reply,
    extend_reply,
    fold_reply,
    forget_reply,
    keep_reply,
    reply_swipes,
)
from saiverse.world._world import USER_ID, BuildingInfo, HistoryEntry, PersonaInfo, UnknownIdError, World

__all__ = [
    "ANSWERING_MODES",
    "AUDIO_ITEMS_DIR",
    "AUTONOMOUS",
    "AutonomousTurns",
    "BagError",
    "BuildingInfo",
    "CheckedAudio",
    "CheckedImage",
    "DAYS",
    "HistoryEntry",
    "ITEM_TYPES",
    "InvalidImageError",
    "InvalidPdfError",
    "ItemInfo",
    "ItemNotFoundError",
    "ItemStore",
    "KINDS",
    "LineDeletion",
    "MAP_LIMIT",
    "MIN_INTERVAL_SEC",
    "MapSpot",
    "NoReplyError",
    "PatchError",
    "PersonaInfo",
    "SUMMARY_LIMIT",
    "SUMMARY_SUFFIX",
    "ScheduleError",
    "ScheduleInfo",
    "ScheduleStore",
    "Summarizer",
    "Swipes",
    "USER_ID",
    "UnknownIdError",
    "UnsafePathError",
    "World",
    "WorldSettings",
    "apply_patch",
    "atomic_write",
    "avatar_path",
    "check_audio",
    "check_image",
    "check_pdf",
    "choose_swipe",
    "clear_avatar",
    "clip_summary",
    "commit_staged",
    "committed_copy",
    "container_of",
    "create_audio",
    "crop_to_ratio",
    "cut_of",
    "cut_reply",
    "delete_item",
    "delete_line",
    "extend_reply",
    "fold_reply",
    "forget_reply",
    "from_interaction_mode",
    "is_bag",
    "is_pdf",
    "is_pdf_path",
    "join_wavs",
    "keep_reply",
    "map_layout",
    "move_numbered",
    "new_file_name",
    "next_run",
    "nobody_answers",
    "parse_short_id",
    "parse_time",
    "pdf_pages",
    "plan_line_deletion",
    "relative_to_home",
    "remove_quietly",
    "rename_item",
    "reply_swipes",
    "resolve_in_home",
    "search_history",
    "short_id",
    "shown_state",
    "staged_name",
    "store_avatar",
    "summary_path",
    "text_sha256",
    "to_interaction_mode",
]
