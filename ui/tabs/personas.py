"""ペルソナ tab: the persona list and a form to create, edit or delete one (via `manager.admin`).

Deleting asks first, and the question says what happens: a backup is taken just before, so the
persona's memory stays in it; what it carries stays in its building (saiverse/care/_admin.py).
"""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html
from ui.tabs.persona_avatar import build_avatar_panel
from ui.tabs.persona_mcp import build_mcp_panel
from ui.tabs.persona_voice import build_voice_panel

NEW = "__new__"
MODES = ("user", "auto", "sleep")
MODEL_FIELDS = ("default_model", "lightweight_model", "lightweight_vision_model", "vision_model")


def model_cell(answering: dict[str, Any] | None, overrides: str) -> str:
    """The model column: what really answers for the persona and why (`ローカルモデル — キーがないため`),
    then the models it sets for itself."""
    line = str(answering.get("line", "")) if answering else ""
    said = line.split(": ", 1)[1] if ": " in line else line
    return " · ".join(p for p in (said, overrides) if p) or "—"


def persona_table(manager: CityPort, labels: Labels) -> str:
    """Every persona: id, avatar+name, mode, building, the model that answers (and the ones it sets)."""
    names = {b.building_id: b.name for b in manager.buildings()}
    try:
        answering = {a.persona_id: a.to_dict() for a in manager.persona_models()}
    except Exception:  # noqa: BLE001 - a broken model config must not hide the table (the notice says it)
        answering = {}
    rows = [
        (p.persona_id, f"{p.avatar} {p.name}", p.interaction_mode, names.get(p.building_id or "", "—"),
         model_cell(answering.get(p.persona_id),
                    ", ".join(f"{k.upper()}={getattr(p, k)}" for k in MODEL_FIELDS if getattr(p, k))))
        for p in manager.personas()
    ]
    return table_html([labels(k) for k in ("col_id", "col_name", "col_mode", "col_building", "col_models")],
                      rows, empty=labels("nobody"))


def _pick_choices(manager: CityPort, labels: Labels) -> list[tuple[str, str]]:
    return [(labels("new_persona"), NEW)] + [(f"{p.avatar} {p.name} ({p.persona_id})", p.persona_id)
                                           for p in manager.personas()]


def build_personas_tab(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    buildings = [(b.name, b.building_id) for b in manager.buildings()]
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=360):
            table = gr.HTML(persona_table(manager, labels), elem_id="persona-table")
        with gr.Column(scale=4, min_width=420, elem_classes=["sv-form"]):
            pick = gr.Dropdown(_pick_choices(manager, labels), value=NEW, label=labels("persona_pick"),
                               elem_id="persona-pick")
            with gr.Row():
                name = gr.Textbox(label=labels("f_name"), elem_id="persona-name", scale=3)
                avatar = gr.Textbox(label=labels("f_avatar"), value="🙂", elem_id="persona-avatar", scale=1,
                                    max_length=8)
            description = gr.Textbox(label=labels("f_description"), lines=2, elem_id="persona-description")
            prompt = gr.Textbox(label=labels("f_system_prompt"), lines=5, elem_id="persona-prompt")
            with gr.Row():
                mode = gr.Radio([(labels(f"mode_{m}"), m) for m in MODES], value="user", label=labels("f_mode"),
                                elem_id="persona-mode", scale=2)
                building = gr.Dropdown(buildings, value=manager.user_building(), label=labels("f_building"),
                                       elem_id="persona-building", scale=1)
            with gr.Accordion(labels("models_hint"), open=False, elem_id="persona-models"):
                with gr.Row():
                    models = [gr.Textbox(label=k.upper(), elem_id=f"persona-{k.replace('_', '-')}", min_width=200)
                              for k in MODEL_FIELDS]
            with gr.Row():
                status = gr.HTML(elem_id="persona-status")
                delete = gr.Button(labels("persona_delete"), variant="stop", elem_id="persona-delete", scale=0,
                                   min_width=210, size="sm")
                save = gr.Button(labels("save_button"), variant="primary", elem_id="persona-save", scale=0,
                                 min_width=120)
            with gr.Column(visible=False, elem_id="persona-delete-confirm", elem_classes=["sv-confirm"]) as confirm:
                confirm_text = gr.HTML(elem_id="persona-delete-text")
                with gr.Row():
                    no = gr.Button(labels("delete_no"), elem_id="persona-delete-no", size="sm")
                    yes = gr.Button(labels("delete_yes"), variant="stop", elem_id="persona-delete-yes", size="sm")
            build_mcp_panel(manager, labels, pick, NEW)  # the persona's MCP servers (ui/tabs/persona_mcp.py)
            build_avatar_panel(manager, labels, pick, NEW)  # its avatar picture (ui/tabs/persona_avatar.py)
            build_voice_panel(manager, labels, pick, NEW)  # its voice and 試聴 (ui/tabs/persona_voice.py)
    form = [name, avatar, description, prompt, mode, building, *models]

    def fill(persona_id: str) -> list[Any]:
        if not persona_id or persona_id == NEW:
            return ["", "🙂", "", "", "user", manager.user_building(), *[""] * len(MODEL_FIELDS), ""]
        try:
            p = manager.world.persona(persona_id)
        except LookupError as exc:
            return [*[gr.skip()] * len(form), error_html(str(exc))]
        return [p.name, p.avatar, p.description, p.system_prompt, p.interaction_mode, p.building_id,
                *[getattr(p, k) or "" for k in MODEL_FIELDS], ""]

    def on_save(persona_id: str, *values: Any) -> list[Any]:
        spec = dict(zip(("name", "avatar", "description", "system_prompt", "interaction_mode", "building_id",
                         *MODEL_FIELDS), values, strict=True))
        try:
            if persona_id and persona_id != NEW:
                p = manager.admin.update_persona(persona_id, spec)
            else:
                p = manager.admin.create_persona(spec)
        except (ValueError, LookupError) as exc:
            return [gr.skip(), gr.skip(), error_html(labels("save_failed", error=str(exc)))]
        return [persona_table(manager, labels), gr.Dropdown(choices=_pick_choices(manager, labels), value=p.persona_id),
                ok_html(labels("persona_saved", name=p.name))]

    def ask_delete(persona_id: str) -> list[Any]:
        """The confirmation: what is removed, and that a backup keeps the persona's memory."""
        if not persona_id or persona_id == NEW:
            return [error_html(labels("persona_pick_first")), gr.Column(visible=False), ""]
        try:
            p = manager.world.persona(persona_id)
            where = manager.world.building(p.building_id).name if p.building_id else "—"
        except LookupError as exc:
            return [error_html(str(exc)), gr.Column(visible=False), ""]
        text = labels("persona_delete_confirm", name=p.name, building=where)
        return ["", gr.Column(visible=True), f'<p class="sv-warn">{escape(text)}</p>']

    def on_delete(persona_id: str) -> list[Any]:
        try:
            report = manager.admin.delete_persona(persona_id)
        except (ValueError, LookupError) as exc:
            return [gr.skip(), gr.skip(), error_html(labels("delete_failed", error=str(exc))), gr.Column(visible=False)]
        done = labels("persona_deleted", name=report.name, backup=report.backup.name if report.backup else "—")
        return [persona_table(manager, labels), gr.Dropdown(choices=_pick_choices(manager, labels), value=NEW),
                ok_html(done), gr.Column(visible=False)]

    pick.input(fill, pick, [*form, status], show_progress="hidden")
    save.click(on_save, [pick, *form], [table, pick, status])
    delete.click(ask_delete, pick, [status, confirm, confirm_text], show_progress="hidden")
    no.click(lambda: gr.Column(visible=False), None, confirm, show_progress="hidden")
    yes.click(on_delete, pick, [table, pick, status, confirm]).then(
        lambda pid: fill(pid)[:-1], pick, form, show_progress="hidden")  # an empty form; the status stays

    def refresh() -> list[Any]:
        return [persona_table(manager, labels), gr.Dropdown(choices=_pick_choices(manager, labels)),
                gr.Dropdown(choices=[(b.name, b.building_id) for b in manager.buildings()])]

    return TabRefresh(refresh, [table, pick, building], drawn=True)
