"""One module per tool; `BUILTIN_TOOLS` lists every tool function the app registers."""

from tools.defs.building_look import building_look
from tools.defs.building_move import move_building
from tools.defs.chronicle import chronicle_read_detail, chronicle_search
from tools.defs.document_create import document_create
from tools.defs.image_generator import generate_image
from tools.defs.item_list import item_list
from tools.defs.item_move import item_pickup, item_place
from tools.defs.item_use import item_use
from tools.defs.item_view import item_view
from tools.defs.memopedia import (
    memopedia_close_page,
    memopedia_get_page,
    memopedia_get_tree,
    memopedia_note,
    memopedia_open_page,
    memopedia_save_page,
    memopedia_search,
)
from tools.defs.memory_recall import memory_recall
from tools.defs.production import production_run
from tools.defs.schedule import schedule_add, schedule_delete, schedule_list

BUILTIN_TOOLS = (
    building_look, move_building, document_create, generate_image, item_list, item_pickup, item_place, item_use,
    item_view, memory_recall, production_run, schedule_add, schedule_delete, schedule_list,
    # long-term memory (upstream names and argument shapes)
    memopedia_search, memopedia_get_page, memopedia_get_tree, memopedia_open_page, memopedia_close_page,
    memopedia_note, memopedia_save_page, chronicle_search, chronicle_read_detail,
)
"""Every builtin tool function (decorated with `@tool`), in a stable order."""
