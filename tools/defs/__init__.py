"""One module per tool; importing this package registers them all."""

from tools.defs import (  # noqa: F401
    building_look,
    building_move,
    control_body,
    document_create,
    image_generator,
    item_list,
    item_move,
    item_use,
    item_view,
    list_available_playbooks,
    memory_recall,
    production,
    schedule,
)
