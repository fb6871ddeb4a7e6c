"""One module per tool; `BUILTIN_TOOLS` lists every tool function the app registers."""

from tools.defs.building_look import building_look
from tools.defs.building_move import move_building, move_persona
from tools.defs.calculator import calculate_expression
from tools.defs.chronicle import chronicle_read_detail, chronicle_search
from tools.defs.chronicle_context import chronicle_context_down, chronicle_context_up
from tools.defs.control_body import control_body
from tools.defs.create_building import create_building
from tools.defs.detail_recall import detail_recall
from tools.defs.document_create import document_create
from tools.defs.document_edit import document_edit
from tools.defs.document_read import document_read
from tools.defs.document_search import document_search
from tools.defs.get_building_messages import get_building_messages
from tools.defs.get_history import get_history
from tools.defs.get_since_last_user_conversation import get_since_last_user_conversation
from tools.defs.get_situation_snapshot import get_situation_snapshot
from tools.defs.get_system_prompt import get_system_prompt
from tools.defs.image_generator import generate_image
from tools.defs.item_edit import item_change_name, item_write_description
from tools.defs.item_list import item_list
from tools.defs.item_move import item_pickup, item_place
from tools.defs.item_move_slots import item_move
from tools.defs.item_use import item_use
from tools.defs.item_view import item_view
from tools.defs.list_available_playbooks import list_available_playbooks
from tools.defs.list_city_buildings import list_city_buildings
from tools.defs.memopedia import (
    memopedia_close_page,
    memopedia_get_page,
    memopedia_get_tree,
    memopedia_note,
    memopedia_open_page,
    memopedia_save_page,
    memopedia_search,
)
from tools.defs.memopedia_manage import memopedia_health, memopedia_manage
from tools.defs.memory_read_around import memory_read_around
from tools.defs.memory_recall import memory_recall
from tools.defs.memory_recall_unified import forget_recalled, memory_recall_unified
from tools.defs.memory_search_brief import memory_search_brief
from tools.defs.messagelog import messagelog_get_around
from tools.defs.network import NETWORK_TOOLS
from tools.defs.pdf_read import pdf_read
from tools.defs.production import production_run
from tools.defs.record_wait import record_wait
from tools.defs.run_playbook import run_playbook
from tools.defs.schedule import schedule_add, schedule_delete, schedule_list
from tools.defs.tracks import TRACK_TOOLS
from tools.defs.update_working_memory import update_working_memory
from tools.defs.upstream_only import UPSTREAM_ONLY_TOOLS

BUILTIN_TOOLS = (
    building_look, move_building, document_create, generate_image, item_list, item_pickup, item_place, item_use,
    item_view, memory_recall, production_run, schedule_add, schedule_delete, schedule_list,
    # upstream's tools that work here
    calculate_expression, control_body, create_building, detail_recall, document_read, document_search,
    get_building_messages, get_history, get_since_last_user_conversation, get_situation_snapshot, get_system_prompt,
    list_available_playbooks, list_city_buildings, memory_read_around, memory_search_brief, move_persona, pdf_read,
    record_wait,
    update_working_memory,
    # upstream's tools that need something this install does not have (registered as unavailable)
    *NETWORK_TOOLS, *UPSTREAM_ONLY_TOOLS,
    # long-term memory (upstream names and argument shapes)
    memopedia_search, memopedia_get_page, memopedia_get_tree, memopedia_open_page, memopedia_close_page,
    memopedia_note, memopedia_save_page, chronicle_search, chronicle_read_detail,
    # upstream v0.3: tracks and notes
    *TRACK_TOOLS, item_change_name, item_write_description, chronicle_context_up, chronicle_context_down,
    document_edit, item_move, messagelog_get_around, memory_recall_unified, forget_recalled, memopedia_health,
    memopedia_manage, run_playbook,
)
"""Every builtin tool function (decorated with `@tool`), in a stable order."""
