"""The item modal's edit part: rename an item, rewrite its description (at most 300 characters, as every
summary) and delete it — after a confirmation that says an automatic backup is taken first, as the
ペルソナ and ワールド tabs' deletes do (`AdminService.edit_item`, `AdminService.delete_item`).

A refusal (an empty or too long name, a description over the limit) is said under the fields and
nothing typed is lost; a save or delete redraws the room's item list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import SUMMARY_LIMIT, CityPort, short_id
from ui.i18n import Labels
from ui.side_panel import item_list_html


@dataclass
class ItemEdit:
    """Name and description fields, their save button and status, and the delete confirmation."""

    name: Any
    description: Any
    save: Any
    status: Any
    delete: Any
    confirm: Any
    confirm_text: Any
    yes: Any
    no: Any

    def fields(self) -> list[Any]:
        """What opening (or closing) the modal fills: the item's name and description, no status, no
        confirmation."""
        return [self.name, self.description, self.status, self.confirm]


def build_item_edit(labels: Labels) -> ItemEdit:
    """The folded edit part under the item's view (call inside the modal's card)."""
    with gr.Accordion(labels("item_edit"), open=False, elem_id="item-modal-edit"):
        name = gr.Textbox(label=labels("item_name"), elem_id="item-modal-name", max_lines=1, max_length=200)
        description = gr.Textbox(label=labels("item_description", n=SUMMARY_LIMIT), elem_id="item-modal-description",
                                 lines=3, max_lines=6, max_length=SUMMARY_LIMIT)
        with gr.Row(elem_classes=["sv-modal-edit-actions"]):
            status = gr.HTML(elem_id="item-modal-edit-status")
            save = gr.Button(labels("item_edit_save"), elem_id="item-modal-edit-save", variant="primary", scale=0,
                             min_width=210)
            delete = gr.Button(labels("item_delete"), elem_id="item-modal-delete", variant="stop", scale=0,
                               min_width=110)
        with gr.Column(visible=False, elem_id="item-modal-delete-confirm", elem_classes=["sv-confirm"]) as confirm:
            confirm_text = gr.HTML(elem_id="item-modal-delete-text")
            with gr.Row():
                no = gr.Button(labels("delete_no"), elem_id="item-modal-delete-no", size="sm")
                yes = gr.Button(labels("delete_yes"), variant="stop", elem_id="item-modal-delete-yes", size="sm")
    return ItemEdit(name, description, save, status, delete, confirm, confirm_text, yes, no)


def edit_fields(item: Any | None) -> list[Any]:
    """Updates of `ItemEdit.fields()` for `item` (None: the modal closes)."""
    return [item.name if item is not None else "", item.description if item is not None else "", "",
            gr.Column(visible=False)]


def _room_list(manager: CityPort, labels: Labels, item: Any) -> Any:
    """The room's item list redrawn, when the item is (or was) in a room."""
    if getattr(item, "owner_kind", None) != "building" or not item.owner_id:
        return gr.skip()
    try:
        return item_list_html(manager.building_view(item.owner_id)["items"], labels)
    except LookupError:
        return gr.skip()


def wire_item_edit(modal: Any, manager: CityPort, labels: Labels, item_list: Any, closed: Callable[[], list[Any]],
                   title_html: Callable[[Any, Labels], str], summary_html: Callable[[str, Labels], str]) -> None:
    """Save, delete (ask first), and cancel the delete."""
    edit: ItemEdit = modal.edit

    def on_save(item_id: str | None, name: str, description: str) -> list[Any]:
        if not item_id:
            return [gr.skip()] * 4
        try:
            info = manager.admin.edit_item(item_id, name or "", description or "")
        except (ValueError, LookupError) as exc:  # AdminError, an unknown item: said, the fields keep the text
            return [gr.skip(), gr.skip(), f'<span class="sv-error">{escape(str(exc))}</span>', gr.skip()]
        said = labels("item_edited", name=info.name)
        return [title_html(info, labels), summary_html(info.description, labels),
                f'<span class="sv-ok">✓ {escape(said)}</span>', _room_list(manager, labels, info)]

    def ask(item_id: str | None) -> list[Any]:
        if not item_id:
            return [gr.skip(), gr.skip()]
        try:
            info = manager.items.get(item_id)
        except LookupError as exc:
            return [gr.Column(visible=False), f'<p class="sv-error">{escape(str(exc))}</p>']
        held = manager.items.list_owned("bag", item_id)
        text = labels("item_delete_confirm", name=info.name, short=short_id(info.slot_number) or info.item_id[:8])
        if held:
            text += labels("item_delete_bag", n=len(held))
        return [gr.Column(visible=True), f'<p class="sv-warn">{escape(text)}</p>']

    def on_delete(item_id: str | None) -> list[Any]:
        if not item_id:
            return [*[gr.skip()] * len(modal.open_outputs()), gr.skip()]
        try:
            info = manager.items.get(item_id)
            report = manager.admin.delete_item(item_id)
        except (ValueError, LookupError, OSError) as exc:
            gr.Warning(labels("delete_failed", error=str(exc)))
            return [*[gr.skip()] * len(modal.open_outputs()), gr.skip()]
        gr.Info(labels("item_deleted", name=report.name, backup=report.backup.name if report.backup else "—"))
        return [*closed(), _room_list(manager, labels, info)]

    edit.save.click(on_save, [modal.item_id, edit.name, edit.description],
                    [modal.title, modal.summary, edit.status, item_list], show_progress="hidden")
    edit.delete.click(ask, modal.item_id, [edit.confirm, edit.confirm_text], show_progress="hidden")
    edit.no.click(lambda: gr.Column(visible=False), None, edit.confirm, show_progress="hidden")
    edit.yes.click(on_delete, modal.item_id, [*modal.open_outputs(), item_list])
