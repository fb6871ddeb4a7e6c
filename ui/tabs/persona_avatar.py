"""ペルソナ tab, avatar picture: upload one for the chosen persona (checked like a picture upload,
kept under <home>/icons/), or remove it to show the emoji again. Chips then draw it (ui/side_panel.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from saiverse.port import CityPort, UserError
from ui.i18n import Labels
from ui.tabs import error_html, ok_html


def build_avatar_panel(manager: CityPort, labels: Labels, pick: Any, new: str) -> None:
    """The panel under the persona form; `pick` is the persona dropdown (`new`: no persona yet)."""
    with gr.Accordion(labels("avatar_title"), open=False, elem_id="persona-avatar-panel"):
        gr.Markdown(labels("avatar_hint"))
        image = gr.File(file_count="single", file_types=None, show_label=False, elem_id="persona-avatar-file",
                        height=120)
        with gr.Row():
            status = gr.HTML(elem_id="persona-avatar-status")
            clear = gr.Button(labels("avatar_clear"), elem_id="persona-avatar-clear", size="sm", scale=0,
                              min_width=160)

    def current(persona_id: str) -> list[Any]:
        path = manager.avatar_files().get(persona_id or "")
        return [path, ""]

    def on_upload(persona_id: str, path: str | None) -> list[Any]:
        if not persona_id or persona_id == new:
            return [None, error_html(labels("avatar_pick_first"))]
        if not path:
            return [gr.skip(), ""]
        try:
            p = manager.set_avatar_image(persona_id, Path(path).read_bytes())
        except (UserError, LookupError, OSError) as exc:
            return [current(persona_id)[0], error_html(f"{Path(path).name}: {exc}")]
        return [manager.avatar_files().get(persona_id), ok_html(labels("avatar_saved", name=p.name))]

    def on_clear(persona_id: str) -> list[Any]:
        if not persona_id or persona_id == new:
            return [gr.skip(), error_html(labels("avatar_pick_first"))]
        try:
            p = manager.clear_avatar_image(persona_id)
        except LookupError as exc:
            return [gr.skip(), error_html(str(exc))]
        return [None, ok_html(labels("avatar_cleared", name=p.name))]

    pick.change(current, pick, [image, status], show_progress="hidden")
    image.upload(on_upload, [pick, image], [image, status], show_progress="minimal")
    clear.click(on_clear, pick, [image, status], show_progress="hidden")
