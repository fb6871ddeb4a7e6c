"""ワールド tab: the buildings (create / edit) and the global autonomous-mode switch."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html

NEW = "__new__"


def building_table(manager: Any, labels: Labels) -> str:
    """Every building: id, name, capacity, autonomous interval, who is there."""
    present: dict[str, list[str]] = {}
    for p in manager.personas():
        present.setdefault(p.building_id or "", []).append(f"{p.avatar} {p.name}")
    rows = [(b.building_id, b.name, b.capacity, f"{b.auto_interval_sec}s", ", ".join(present.get(b.building_id, [])))
            for b in manager.buildings()]
    headers = [labels(k) for k in ("col_id", "col_name", "col_capacity", "col_interval", "col_present")]
    return table_html(headers, rows)


def _choices(manager: Any, labels: Labels) -> list[tuple[str, str]]:
    return [(labels("new_building"), NEW)] + [(b.name, b.building_id) for b in manager.buildings()]


def build_world_tab(manager: Any, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=380):
            autonomous = gr.Checkbox(value=bool(manager.autonomous), label=labels("autonomous"),
                                     elem_id="world-autonomous")
            table = gr.HTML(building_table(manager, labels), elem_id="building-table")
        with gr.Column(scale=4, min_width=420, elem_classes=["sv-form"]):
            pick = gr.Dropdown(_choices(manager, labels), value=NEW, label=labels("wb_pick"), elem_id="world-pick")
            name = gr.Textbox(label=labels("f_name"), elem_id="world-name")
            description = gr.Textbox(label=labels("f_description"), lines=2, elem_id="world-description")
            with gr.Row():
                capacity = gr.Number(label=labels("wb_capacity"), value=10, precision=0,
                                     elem_id="world-capacity")
                interval = gr.Number(label=labels("wb_interval"), value=600, precision=0,
                                     elem_id="world-interval")
            instruction = gr.Textbox(label=labels("wb_instruction"), lines=4, elem_id="world-instruction")
            with gr.Row():
                status = gr.HTML(elem_id="world-status")
                save = gr.Button(labels("save_button"), variant="primary", elem_id="world-save", scale=0,
                                 min_width=120)
    form = [name, description, capacity, interval, instruction]

    def fill(building_id: str) -> list[Any]:
        if not building_id or building_id == NEW:
            return ["", "", 10, 600, "", ""]
        try:
            b = manager.world.building(building_id)
        except LookupError as exc:
            return [*[gr.skip()] * len(form), error_html(str(exc))]
        return [b.name, b.description, b.capacity, b.auto_interval_sec, b.system_instruction, ""]

    def on_save(building_id: str, *values: Any) -> list[Any]:
        spec = dict(zip(("name", "description", "capacity", "auto_interval_sec", "system_instruction"), values,
                        strict=True))
        try:
            if building_id and building_id != NEW:
                b = manager.admin.update_building(building_id, spec)
            else:
                b = manager.admin.create_building(spec)
        except (ValueError, LookupError) as exc:
            return [gr.skip(), gr.skip(), error_html(labels("save_failed", error=str(exc)))]
        return [building_table(manager, labels), gr.Dropdown(choices=_choices(manager, labels), value=b.building_id),
                ok_html(labels("wb_saved", name=b.name))]

    def on_autonomous(on: bool) -> None:
        manager.autonomous = bool(on)
        gr.Info(labels("autonomous_on") if on else labels("autonomous_off"))

    pick.input(fill, pick, [*form, status], show_progress="hidden")
    save.click(on_save, [pick, *form], [table, pick, status])
    autonomous.input(on_autonomous, autonomous, None)

    def refresh() -> list[Any]:
        return [building_table(manager, labels), gr.Checkbox(value=bool(manager.autonomous))]

    return TabRefresh(refresh, [table, autonomous])
