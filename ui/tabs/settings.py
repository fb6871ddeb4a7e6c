"""設定 tab: model names, the OpenAI-compatible URL and the Gemini key (saved mode 600, shown masked).

The key field is a password box that is always sent back empty: the key is never put in the page,
only `****abcd`; leaving it empty keeps the stored key. Fields a flag, the environment or a `.env`
file decides are named under the form: saving them changes nothing (saiverse/settings.py).
"""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

import gradio as gr

from saiverse.admin import AdminService
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html
from ui.tabs.backups import build_backup_section


class SettingsOwner(Protocol):
    """What this tab needs from the manager."""

    admin: AdminService

FIELDS = (
    ("default_model", "st_default_model"),
    ("default_lightweight_model", "st_light"),
    ("lightweight_vision_model", "st_light_vision"),
    ("vision_model", "st_vision"),
    ("openai_base_url", "st_openai_url"),
)


def key_html(manager: SettingsOwner, labels: Labels) -> str:
    """The masked current Gemini key line."""
    masked = manager.admin.settings_view()["gemini_api_key"]
    text = labels("st_key_current", masked=masked) if masked else labels("st_key_none")
    return f'<div class="sv-muted" id="settings-key-masked-text">{escape(text)}</div>'


def overridden_html(manager: SettingsOwner, labels: Labels) -> str:
    """The fields a stronger layer decides, with where (empty when there are none)."""
    overridden = manager.admin.settings_overridden()
    if not overridden:
        return '<div id="settings-overridden-text"></div>'
    text = labels("st_overridden", fields=", ".join(f"{key} ← {where}" for key, where in overridden.items()))
    return f'<p class="sv-muted sv-note" id="settings-overridden-text">{escape(text)}</p>'


def build_settings_tab(manager: SettingsOwner, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    view = manager.admin.settings_view()
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=420, elem_classes=["sv-form"]):
            gr.Markdown(f"### {labels('st_models')}")
            boxes = [gr.Textbox(value=view[key], label=labels(label), elem_id=f"settings-{key.replace('_', '-')}")
                     for key, label in FIELDS]
        with gr.Column(scale=1, min_width=380, elem_classes=["sv-form"]):
            gr.Markdown(f"### {labels('st_keys')}")
            key = gr.Textbox(label=labels("st_gemini_key"), type="password", placeholder=labels("st_key_placeholder"),
                             elem_id="settings-gemini-key")
            masked = gr.HTML(key_html(manager, labels), elem_id="settings-key-masked")
            clear = gr.Checkbox(label=labels("st_clear_key"), value=False, elem_id="settings-clear-key")
            gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("st_env_note"))}</p>')
            overridden = gr.HTML(overridden_html(manager, labels), elem_id="settings-overridden")
            with gr.Row():
                status = gr.HTML(elem_id="settings-status")
                save = gr.Button(labels("st_save"), variant="primary", elem_id="settings-save", scale=0,
                                 min_width=160)

    def on_save(*values: Any) -> list[Any]:
        *models, key_value, clear_value = values
        data: dict[str, Any] = dict(zip([k for k, _ in FIELDS], models, strict=True))
        data["gemini_api_key"] = key_value or ""
        data["clear_gemini_api_key"] = bool(clear_value)
        try:
            manager.admin.save_settings(data)
        except ValueError as exc:  # AdminError names the field; the key itself is never in the message
            return [error_html(labels("save_failed", error=str(exc))), "", gr.skip(), gr.skip(), gr.skip()]
        return [ok_html(labels("st_saved")), "", key_html(manager, labels), False, overridden_html(manager, labels)]

    # The key box is emptied in every outcome, so the browser never holds it longer than the request.
    save.click(on_save, [*boxes, key, clear], [status, key, masked, clear, overridden])

    backups = build_backup_section(manager, labels)  # type: ignore[arg-type]  # its own section (ui/tabs/backups.py)

    def refresh() -> list[Any]:
        now = manager.admin.settings_view()
        return [*[now[k] for k, _ in FIELDS], key_html(manager, labels), overridden_html(manager, labels),
                *backups.fn()]

    return TabRefresh(refresh, [*boxes, masked, overridden, *backups.outputs])
