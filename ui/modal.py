"""The item modal: a fixed overlay that shows one item — picture, audio to play, editable document, or 閲覧不可 — with
its short id (`item:N`, its slot in the room), and lets the person rename it, rewrite its description
and delete it (ui/modal_edit.py: a confirmation saying a backup is taken first, as every delete).

Gradio 6 has no modal component, so the overlay is a `gr.Column(visible=False, elem_id="item-modal")`
that `style.css` pins over the whole window; opening it is a visibility update. The item being
shown lives in a `gr.State`, so the save button always writes the document that is on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import gradio as gr

from saiverse.port import CityPort, short_id
from ui.i18n import ITEM_ICONS, Labels, item_icon
from ui.modal_edit import build_item_edit, edit_fields, wire_item_edit


@dataclass
class ItemModal:
    """The modal's components; `open_outputs()` is the order `open_item` returns updates in."""

    container: gr.Column
    item_id: gr.State
    title: gr.HTML
    summary: gr.HTML
    image: gr.Image
    audio: gr.HTML
    """An audio item's player: `<audio controls>` on a URL handed out for its file (ui/voice_routes.py)."""
    text: gr.Textbox
    save: gr.Button
    status: gr.HTML
    not_viewable: gr.HTML
    close: gr.Button
    version: gr.State
    """The version of the document on screen: a save never overwrites a newer one."""
    edit: Any = None
    """Name, description and delete (ui/modal_edit.py `ItemEdit`)."""

    def open_outputs(self) -> list[Any]:
        """Components updated when an item is opened or the modal is closed."""
        return [
            self.container, self.item_id, self.title, self.summary, self.image, self.audio,
            self.text, self.save, self.status, self.not_viewable, self.version,
            *(self.edit.fields() if self.edit is not None else []),
        ]


def build_modal(labels: Labels) -> ItemModal:
    """Create the (hidden) modal inside the current Blocks context."""
    with gr.Column(visible=False, elem_id="item-modal") as container:
        with gr.Column(elem_classes=["sv-modal-card"]):
            with gr.Row(elem_classes=["sv-modal-top"]):
                title = gr.HTML(elem_id="item-modal-title")
                close = gr.Button(
                    f"✕ {labels('close')}", elem_id="item-modal-close", size="sm", scale=0,
                    variant="secondary", min_width=90,
                )
            summary = gr.HTML(elem_id="item-modal-summary")
            image = gr.Image(
                elem_id="item-modal-image", visible=False, interactive=False, show_label=False,
                type="filepath", height=460, buttons=["fullscreen", "download"],
            )
            audio = gr.HTML("", elem_id="item-modal-audio", visible=False)
            text = gr.Textbox(
                elem_id="item-modal-text", visible=False, lines=16, max_lines=28, show_label=False,
                interactive=True,
            )
            not_viewable = gr.HTML(labels("not_viewable"), elem_id="item-modal-not-viewable", visible=False)
            with gr.Row(elem_classes=["sv-modal-actions"]):
                status = gr.HTML(elem_id="item-modal-status")
                save = gr.Button(
                    f"💾 {labels('save')}", elem_id="item-modal-save", variant="primary", visible=False,
                    scale=0, min_width=110,
                )
            edit = build_item_edit(labels)
    return ItemModal(container, gr.State(None), title, summary, image, audio, text, save, status, not_viewable,
                     close, gr.State(None), edit)


def title_html(item: Any, labels: Labels) -> str:
    """The modal's title: icon, name, kind and the short id (`item:N`)."""
    kind = labels(f"type_{item.type}") if item.type in ITEM_ICONS else item.type
    short = short_id(item.slot_number)
    return (
        f'<div class="sv-modal-title"><span class="sv-modal-icon">{item_icon(item.type)}</span>'
        f"<span>{escape(item.name)}</span>"
        f'<span class="sv-item-kind">{escape(kind)}</span>'
        + (f'<code class="sv-item-short" title="{escape(labels("item_short_hint"))}">{escape(short)}</code>'
           if short else "") + "</div>"
    )


def summary_html(summary: str, labels: Labels) -> str:
    """The summary block shown under the title (and refreshed after a save)."""
    body = escape(summary) if summary else escape(labels("no_summary"))
    return (
        f'<div class="sv-modal-summary"><span class="sv-section">{escape(labels("summary"))}</span>'
        f"<p>{body}</p></div>"
    )


def open_item(manager: CityPort, labels: Labels, item_id: str) -> list[Any]:
    """Updates that show `item_id` in the modal; an unknown id warns and leaves it closed."""
    try:
        view = manager.item_view(item_id)
    except (LookupError, ValueError, OSError) as exc:
        gr.Warning(str(exc))
        return closed()
    item = view["item"]
    is_picture = item.type == "picture" and bool(view.get("image_path"))
    player = audio_html(manager, labels, view.get("audio_path")) if item.type == "audio" else ""
    is_document = item.type == "document"
    return [
        gr.Column(visible=True),
        item.item_id,
        title_html(item, labels),
        summary_html(item.description, labels),
        gr.Image(value=view.get("image_path") if is_picture else None, visible=is_picture),
        gr.HTML(value=player, visible=bool(player)),
        gr.Textbox(value=view.get("text", "") if is_document else "", visible=is_document),
        gr.Button(visible=is_document),
        "",
        gr.HTML(value=bag_html(manager, labels, item.item_id), visible=True) if item.type == "bag"
        else gr.HTML(value=labels("not_viewable"), visible=not view.get("viewable", False)),
        item.state.get("version", 1) if is_document else None,
        *edit_fields(item),
    ]


def audio_html(manager: CityPort, labels: Labels, path: str | None) -> str:
    """An audio item's player; its file is reached only by a token handed out for it now, as every voice file."""
    from ui.voice_routes import audio_url

    url = audio_url(manager, Path(path)) if path else None
    if url is None:
        return ""
    return (f'<audio id="item-modal-player" controls preload="metadata" src="{escape(url)}" '
            f'aria-label="{escape(labels("audio_player"))}"></audio>')


def bag_html(manager: CityPort, labels: Labels, bag_id: str) -> str:
    """What a bag holds, each with its short id in the bag (or that it is empty)."""
    held = manager.items.list_owned("bag", bag_id)
    if not held:
        return f'<p class="sv-muted">{escape(labels("bag_empty"))}</p>'
    rows = "".join(f"<li>{item_icon(i.type)} {escape(i.name)} <code>{escape(short_id(i.slot_number))}</code></li>"
                   for i in held)
    return f'<div class="sv-bag"><b>{escape(labels("bag_holds", n=len(held)))}</b><ul>{rows}</ul></div>'


def closed() -> list[Any]:
    """Updates that hide the modal and forget the item (the big text is dropped too)."""
    return [
        gr.Column(visible=False), None, "", "", gr.Image(value=None, visible=False), gr.HTML(value="", visible=False),
        gr.Textbox(value="", visible=False), gr.Button(visible=False), "", gr.HTML(visible=False), None,
        *edit_fields(None),
    ]


def save_item(
    manager: CityPort, labels: Labels, item_id: str | None, text: str, version: int | None = None,
) -> tuple[Any, str, Any]:
    """Save the document on screen; returns (summary html, status html, new version).

    A failed save keeps the text in the editor (nothing typed is lost) and says why.
    """
    if not item_id:
        return gr.skip(), "", gr.skip()
    try:
        info = manager.save_document(item_id, text, expected_version=version)
    except (LookupError, ValueError, OSError) as exc:
        gr.Warning(labels("save_failed", error=str(exc)))
        return gr.skip(), f'<span class="sv-error">{escape(labels("save_failed", error=str(exc)))}</span>', gr.skip()
    return (summary_html(info.description, labels), f'<span class="sv-ok">✓ {escape(labels("saved"))}</span>',
            info.state.get("version"))


def wire_modal(modal: ItemModal, manager: CityPort, labels: Labels, item_list: gr.HTML) -> None:
    """Connect the item list's clicks, the save button and the close button."""

    def on_item_click(evt: gr.EventData) -> list[Any]:
        item_id = str((getattr(evt, "_data", None) or {}).get("item_id") or "")
        if not item_id:
            return [gr.skip()] * len(modal.open_outputs())
        return open_item(manager, labels, item_id)

    item_list.click(on_item_click, None, modal.open_outputs(), show_progress="hidden")
    modal.save.click(
        lambda item_id, text, version: save_item(manager, labels, item_id, text, version),
        [modal.item_id, modal.text, modal.version], [modal.summary, modal.status, modal.version],
    )
    modal.close.click(closed, None, modal.open_outputs(), show_progress="hidden")
    wire_item_edit(modal, manager, labels, item_list, closed, title_html, summary_html)
