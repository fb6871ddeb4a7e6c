"""ワールド tab: the buildings (create / edit / delete) and the global autonomous-mode switch.

Deleting a building asks first (its history goes; a backup taken just before keeps it) and needs a
building to take its items; the rules — nobody inside, not the user's building — are
saiverse/care/_admin.py's, and a refusal names who is there.
"""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html

NEW = "__new__"


def building_table(manager: CityPort, labels: Labels) -> str:
    """Every building: id, name, capacity, autonomous interval, who is there, its place on the city map."""
    present: dict[str, list[str]] = {}
    for p in manager.personas():
        present.setdefault(p.building_id or "", []).append(f"{p.avatar} {p.name}")
    where = {s.building_id: labels("map_auto") if s.auto else f"({s.x:g}, {s.y:g})" for s in manager.city_map()}
    rows = [(b.building_id, b.name, b.capacity, f"{b.auto_interval_sec}s", ", ".join(present.get(b.building_id, [])),
             where.get(b.building_id, "")) for b in manager.buildings()]
    headers = [labels(k) for k in ("col_id", "col_name", "col_capacity", "col_interval", "col_present", "col_map")]
    return table_html(headers, rows)


def _choices(manager: CityPort, labels: Labels) -> list[tuple[str, str]]:
    return [(labels("new_building"), NEW)] + [(b.name, b.building_id) for b in manager.buildings()]


def build_world_tab(manager: CityPort, labels: Labels) -> TabRefresh:
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
            # The place on the city map (ui/city_map.py). Text, not gr.Number: an emptied Number comes back
            # as 0, and empty must mean "placed automatically"; the admin service checks the numbers.
            with gr.Row():
                map_x = gr.Textbox(label=labels("wb_map_x"), placeholder=labels("map_auto"), elem_id="world-map-x")
                map_y = gr.Textbox(label=labels("wb_map_y"), placeholder=labels("map_auto"), elem_id="world-map-y")
            with gr.Row():
                status = gr.HTML(elem_id="world-status")
                delete = gr.Button(labels("wb_delete"), variant="stop", elem_id="world-delete", scale=0,
                                   min_width=210, size="sm")
                save = gr.Button(labels("save_button"), variant="primary", elem_id="world-save", scale=0,
                                 min_width=120)
            with gr.Column(visible=False, elem_id="world-delete-confirm", elem_classes=["sv-confirm"]) as confirm:
                confirm_text = gr.HTML(elem_id="world-delete-text")
                move_to = gr.Dropdown([], label=labels("wb_move_to"), elem_id="world-move-to")
                with gr.Row():
                    no = gr.Button(labels("delete_no"), elem_id="world-delete-no", size="sm")
                    yes = gr.Button(labels("delete_yes"), variant="stop", elem_id="world-delete-yes", size="sm")
    form = [name, description, capacity, interval, instruction, map_x, map_y]

    def fill(building_id: str) -> list[Any]:
        if not building_id or building_id == NEW:
            return ["", "", 10, 600, "", "", "", ""]
        try:
            b = manager.world.building(building_id)
        except LookupError as exc:
            return [*[gr.skip()] * len(form), error_html(str(exc))]
        spot = next((s for s in manager.city_map() if s.building_id == building_id), None)
        x, y = ("", "") if spot is None or spot.auto else (f"{spot.x:g}", f"{spot.y:g}")
        return [b.name, b.description, b.capacity, b.auto_interval_sec, b.system_instruction, x, y, ""]

    def on_save(building_id: str, *values: Any) -> list[Any]:
        spec = dict(zip(("name", "description", "capacity", "auto_interval_sec", "system_instruction", "map_x",
                         "map_y"), values, strict=True))
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

    def _confirm_text(building_id: str, target: str | None) -> str:
        b = manager.world.building(building_id)
        n = len(manager.items.list_owned("building", building_id))
        where = manager.world.building(target).name if target else labels("wb_no_target")
        return f'<p class="sv-warn">{escape(labels("wb_delete_confirm", name=b.name, n=n, target=where))}</p>'

    def ask_delete(building_id: str) -> list[Any]:
        if not building_id or building_id == NEW:
            return [error_html(labels("wb_pick_first")), gr.Column(visible=False), "", gr.skip()]
        others = [(b.name, b.building_id) for b in manager.buildings() if b.building_id != building_id]
        target = manager.user_building() if manager.user_building() != building_id else \
            (others[0][1] if others else None)
        try:
            text = _confirm_text(building_id, target)
        except LookupError as exc:
            return [error_html(str(exc)), gr.Column(visible=False), "", gr.skip()]
        return ["", gr.Column(visible=True), text, gr.Dropdown(choices=others, value=target)]

    def on_delete(building_id: str, target: str | None) -> list[Any]:
        try:
            report = manager.admin.delete_building(building_id, move_to=target or None)
        except (ValueError, LookupError) as exc:
            return [gr.skip(), gr.skip(), error_html(labels("delete_failed", error=str(exc))), gr.Column(visible=False)]
        return [building_table(manager, labels), gr.Dropdown(choices=_choices(manager, labels), value=NEW),
                ok_html(labels("wb_deleted", name=report.name, backup=report.backup.name if report.backup else "—")),
                gr.Column(visible=False)]

    pick.input(fill, pick, [*form, status], show_progress="hidden")
    save.click(on_save, [pick, *form], [table, pick, status])
    delete.click(ask_delete, pick, [status, confirm, confirm_text, move_to], show_progress="hidden")
    move_to.input(lambda bid, target: _confirm_text(bid, target), [pick, move_to], confirm_text,
                  show_progress="hidden")
    no.click(lambda: gr.Column(visible=False), None, confirm, show_progress="hidden")
    yes.click(on_delete, [pick, move_to], [table, pick, status, confirm]).then(
        lambda bid: fill(bid)[:-1], pick, form, show_progress="hidden")  # an empty form; the status stays
    autonomous.input(on_autonomous, autonomous, None)

    def refresh(building_id: str | None) -> list[Any]:
        """Buildings made, renamed or deleted elsewhere (another tab, the CLI) appear in the chooser too."""
        choices = _choices(manager, labels)
        keep = building_id if building_id in {c[1] for c in choices} else NEW
        return [building_table(manager, labels), gr.Checkbox(value=bool(manager.autonomous)),
                gr.Dropdown(choices=choices, value=keep)]

    return TabRefresh(refresh, [table, autonomous, pick], [pick], drawn=True)
