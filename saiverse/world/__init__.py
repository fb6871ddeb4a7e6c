"""The city and what is in it: buildings, personas, items and their files, schedules.

Parts (private modules; import from here):
- `_activity`: A persona's activity state, as upstream v0.3 names it, beside this app's interaction …
- `_auto_turns`: Each persona's last autonomous turn, in the world's database (`autonomous_turn`, …
- `_aspect`: Aspect ratios for drawn pictures: upstream's `generate_image(aspect_ratio="16:9")`, …
- `_avatars`: Persona avatar pictures: stored under `<home>/icons/` (where an import copies …
- `_chat_edit`: Deleting a chat line: from the building history and, where it was remembered, from …
- `_chat_search`: Search in one building's chat: the lines whose text contains every word asked for, …
- `_doc_versions`: A document save that committed but was not renamed into place is finished by whoever …
- `_item_bags`: Bags (upstream v0.3's containers): an item of type `bag` holds items — their location is …
- `_item_delete`: Deleting an item from the room's modal (the caller takes the automatic backup first, …
- `_item_names`: Renaming an item (upstream v0.3's `item_change_name`): the name checked like a new …
- `_item_slots`: Item slots (upstream v0.3): an item's numbered place in its container, unique per …
- `_items`: Items: objects, pictures and documents, their locations, and their files on disk.
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

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.world._activity import from_interaction_mode as from_interaction_mode
    from saiverse.world._activity import shown_state as shown_state
    from saiverse.world._activity import to_interaction_mode as to_interaction_mode
    from saiverse.world._aspect import crop_to_ratio as crop_to_ratio
    from saiverse.world._auto_turns import AutonomousTurns as AutonomousTurns
    from saiverse.world._avatars import avatar_path as avatar_path
    from saiverse.world._avatars import clear_avatar as clear_avatar
    from saiverse.world._avatars import store_avatar as store_avatar
    from saiverse.world._chat_edit import LineDeletion as LineDeletion
    from saiverse.world._chat_edit import delete_line as delete_line
    from saiverse.world._chat_edit import plan_line_deletion as plan_line_deletion
    from saiverse.world._chat_search import search_history as search_history
    from saiverse.world._doc_versions import committed_copy as committed_copy
    from saiverse.world._item_bags import BagError as BagError
    from saiverse.world._item_bags import container_of as container_of
    from saiverse.world._item_bags import is_bag as is_bag
    from saiverse.world._item_delete import delete_item as delete_item
    from saiverse.world._item_names import rename_item as rename_item
    from saiverse.world._item_slots import move_numbered as move_numbered
    from saiverse.world._item_slots import parse_short_id as parse_short_id
    from saiverse.world._item_slots import short_id as short_id
    from saiverse.world._items import ITEM_TYPES as ITEM_TYPES
    from saiverse.world._items import SUMMARY_LIMIT as SUMMARY_LIMIT
    from saiverse.world._items import ItemInfo as ItemInfo
    from saiverse.world._items import ItemNotFoundError as ItemNotFoundError
    from saiverse.world._items import ItemStore as ItemStore
    from saiverse.world._items import clip_summary as clip_summary
    from saiverse.world._items import text_sha256 as text_sha256
    from saiverse.world._map import MAP_LIMIT as MAP_LIMIT
    from saiverse.world._map import MapSpot as MapSpot
    from saiverse.world._map import map_layout as map_layout
    from saiverse.world._media import SUMMARY_SUFFIX as SUMMARY_SUFFIX
    from saiverse.world._media import CheckedImage as CheckedImage
    from saiverse.world._media import InvalidImageError as InvalidImageError
    from saiverse.world._media import UnsafePathError as UnsafePathError
    from saiverse.world._media import atomic_write as atomic_write
    from saiverse.world._media import check_image as check_image
    from saiverse.world._media import commit_staged as commit_staged
    from saiverse.world._media import new_file_name as new_file_name
    from saiverse.world._media import relative_to_home as relative_to_home
    from saiverse.world._media import remove_quietly as remove_quietly
    from saiverse.world._media import resolve_in_home as resolve_in_home
    from saiverse.world._media import staged_name as staged_name
    from saiverse.world._media import summary_path as summary_path
    from saiverse.world._patching import PatchError as PatchError
    from saiverse.world._patching import apply_patch as apply_patch
    from saiverse.world._pdf import InvalidPdfError as InvalidPdfError
    from saiverse.world._pdf import check_pdf as check_pdf
    from saiverse.world._pdf import is_pdf as is_pdf
    from saiverse.world._pdf import is_pdf_path as is_pdf_path
    from saiverse.world._pdf import pdf_pages as pdf_pages
    from saiverse.world._presence import ANSWERING_MODES as ANSWERING_MODES
    from saiverse.world._presence import nobody_answers as nobody_answers
    from saiverse.world._schedules import DAYS as DAYS
    from saiverse.world._schedules import KINDS as KINDS
    from saiverse.world._schedules import MIN_INTERVAL_SEC as MIN_INTERVAL_SEC
    from saiverse.world._schedules import ScheduleError as ScheduleError
    from saiverse.world._schedules import ScheduleInfo as ScheduleInfo
    from saiverse.world._schedules import ScheduleStore as ScheduleStore
    from saiverse.world._schedules import next_run as next_run
    from saiverse.world._schedules import parse_time as parse_time
    from saiverse.world._settings import AUTONOMOUS as AUTONOMOUS
    from saiverse.world._settings import WorldSettings as WorldSettings
    from saiverse.world._summaries import Summarizer as Summarizer
    from saiverse.world._swipes import NoReplyError as NoReplyError
    from saiverse.world._swipes import Swipes as Swipes
    from saiverse.world._swipes import choose_swipe as choose_swipe
    from saiverse.world._swipes import cut_of as cut_of
    from saiverse.world._swipes import cut_reply as cut_reply
    from saiverse.world._swipes import extend_reply as extend_reply
    from saiverse.world._swipes import fold_reply as fold_reply
    from saiverse.world._swipes import forget_reply as forget_reply
    from saiverse.world._swipes import keep_reply as keep_reply
    from saiverse.world._swipes import reply_swipes as reply_swipes
    from saiverse.world._world import USER_ID as USER_ID
    from saiverse.world._world import BuildingInfo as BuildingInfo
    from saiverse.world._world import HistoryEntry as HistoryEntry
    from saiverse.world._world import PersonaInfo as PersonaInfo
    from saiverse.world._world import UnknownIdError as UnknownIdError
    from saiverse.world._world import World as World

_EXPORTS: dict[str, str] = {
    "AUTONOMOUS": "_settings",
    "ANSWERING_MODES": "_presence",
    "AutonomousTurns": "_auto_turns",
    "BuildingInfo": "_world",
    "CheckedImage": "_media",
    "DAYS": "_schedules",
    "HistoryEntry": "_world",
    "ITEM_TYPES": "_items",
    "SUMMARY_LIMIT": "_items",
    "InvalidImageError": "_media",
    "InvalidPdfError": "_pdf",
    "ItemInfo": "_items",
    "ItemNotFoundError": "_items",
    "ItemStore": "_items",
    "KINDS": "_schedules",
    "MAP_LIMIT": "_map",
    "MIN_INTERVAL_SEC": "_schedules",
    "MapSpot": "_map",

    "LineDeletion": "_chat_edit",
    "NoReplyError": "_swipes",
    "PatchError": "_patching",
    "PersonaInfo": "_world",
    "SUMMARY_SUFFIX": "_media",
    "ScheduleError": "_schedules",
    "ScheduleInfo": "_schedules",
    "ScheduleStore": "_schedules",
    "Summarizer": "_summaries",
    "Swipes": "_swipes",
    "USER_ID": "_world",
    "UnknownIdError": "_world",
    "UnsafePathError": "_media",
    "World": "_world",
    "WorldSettings": "_settings",
    "apply_patch": "_patching",
    "atomic_write": "_media",
    "avatar_path": "_avatars",
    "check_image": "_media",
    "check_pdf": "_pdf",
    "choose_swipe": "_swipes",
    "cut_of": "_swipes",
    "cut_reply": "_swipes",
    "extend_reply": "_swipes",
    "clear_avatar": "_avatars",
    "clip_summary": "_items",
    "commit_staged": "_media",
    "committed_copy": "_doc_versions",
    "crop_to_ratio": "_aspect",
    "delete_line": "_chat_edit",
    "fold_reply": "_swipes",
    "forget_reply": "_swipes",
    "from_interaction_mode": "_activity",
    "is_pdf": "_pdf",
    "keep_reply": "_swipes",
    "is_pdf_path": "_pdf",
    "map_layout": "_map",
    "move_numbered": "_item_slots",
    "new_file_name": "_media",
    "next_run": "_schedules",
    "nobody_answers": "_presence",
    "parse_time": "_schedules",
    "pdf_pages": "_pdf",
    "plan_line_deletion": "_chat_edit",
    "relative_to_home": "_media",
    "remove_quietly": "_media",
    "reply_swipes": "_swipes",
    "rename_item": "_item_names",
    "delete_item": "_item_delete",
    "BagError": "_item_bags",
    "container_of": "_item_bags",
    "is_bag": "_item_bags",
    "parse_short_id": "_item_slots",
    "short_id": "_item_slots",
    "resolve_in_home": "_media",
    "search_history": "_chat_search",
    "shown_state": "_activity",
    "staged_name": "_media",
    "store_avatar": "_avatars",
    "summary_path": "_media",
    "text_sha256": "_items",
    "to_interaction_mode": "_activity",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
