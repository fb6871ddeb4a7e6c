"""Making a bag (an item that holds items, upstream's containers) from the page: a folded 「👜 袋を作る」
under the room's item list, where a person looks for the room's things. The bag is put in the room the
window shows, like `python main.py bag` (cli/_world.py); a refused name is said under the fields and
what was typed stays; a made bag appears in the list at once, with its short id.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import SUMMARY_LIMIT, CityPort, short_id
from ui.i18n import Labels
from ui.side_panel import item_list_html


@dataclass
class NewBag:
    """The bag's name and description fields, the button that makes it, and what it said."""

    name: Any
    description: Any
    create: Any
    status: Any


def build_new_bag(labels: Labels) -> NewBag:
    """The folded form (call under the room's item list)."""
    with gr.Accordion(labels("bag_new"), open=False, elem_id="sv-new-bag"):
        name = gr.Textbox(label=labels("bag_new_name"), placeholder=labels("bag_new_placeholder"),
                          elem_id="sv-new-bag-name", max_lines=1, max_length=200)
        description = gr.Textbox(label=labels("bag_new_description"), elem_id="sv-new-bag-description",
                                 lines=2, max_lines=4, max_length=SUMMARY_LIMIT)
        create = gr.Button(labels("bag_new_create"), elem_id="sv-new-bag-create", variant="primary", size="sm")
        status = gr.HTML(elem_id="sv-new-bag-status")
    return NewBag(name, description, create, status)


def wire_new_bag(form: NewBag, manager: CityPort, labels: Labels, shown: Any, item_list: Any) -> None:
    """Make the bag in the building the window shows (`shown`), then redraw that room's item list."""

    def make(building_id: str, name: str, description: str) -> list[Any]:
        if not building_id:
            return [gr.skip()] * 4
        try:
            info = manager.items.create_object(name or "", (description or "").strip(), owner_kind="building",
                                               owner_id=building_id, kind="bag")
            items = manager.building_view(building_id)["items"]
        except (ValueError, LookupError) as exc:  # a bad name, a room gone meanwhile: said, the text stays
            return [gr.skip(), gr.skip(), f'<span class="sv-error">{escape(str(exc))}</span>', gr.skip()]
        said = labels("bag_new_made", name=info.name, short=short_id(info.slot_number) or info.item_id[:8])
        return ["", "", f'<span class="sv-ok">✓ {escape(said)}</span>', item_list_html(items, labels)]

    form.create.click(make, [shown, form.name, form.description],
                      [form.name, form.description, form.status, item_list], show_progress="hidden")
