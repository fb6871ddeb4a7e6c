"""設定 tab: model names, the OpenAI-compatible URL, API keys (saved mode 600, shown masked), and
which model providers are ready and why the others are not.

A key field is a password box that is always sent back empty: a key is never put in the page, only
`****abcd`; leaving it empty keeps the stored key. Fields a flag, the environment or a `.env` file
decides are named under the form: saving them changes nothing (saiverse/settings.py).
"""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

import gradio as gr

from saiverse.port import AdminService, Settings, describe_default, local_broken, provider_status, retry_local
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html
from ui.tabs.backups import build_backup_section
from ui.tabs.listen import build_listen_section
from ui.tabs.login import build_login_section
from ui.tabs.models import build_models_section
from ui.tabs.usage import build_usage_section


class SettingsOwner(Protocol):
    """What this tab needs from the manager."""

    admin: AdminService
    settings: Settings

FIELDS = (
    ("default_model", "st_default_model"),
    ("default_lightweight_model", "st_light"),
    ("lightweight_vision_model", "st_light_vision"),
    ("vision_model", "st_vision"),
    ("openai_base_url", "st_openai_url"),
)
KEYS = (
    # (settings field, label, element id stem): the Gemini ids are the ones the browser tests know.
    ("gemini_api_key", "st_gemini_key", "settings-gemini-key"),
    ("openai_official_api_key", "st_openai_key", "settings-openai-key"),
    ("anthropic_api_key", "st_anthropic_key", "settings-anthropic-key"),
)


FOLLOWING = ("default_lightweight_model", "lightweight_vision_model", "vision_model")
"""Model fields whose built-in default is a Gemini model: without a Gemini key, and while nobody chose
another, each persona's own model does that work (saiverse/llm/registry.py `model_name_for`)."""


def follows_persona(settings: Settings, key: str) -> bool:
    """Whether `key` shows no model name: its default Gemini model is not in force (no key)."""
    return key in FOLLOWING and settings.source(key).kind == "default" and not settings.gemini_api_key


def model_box_values(settings: Settings, view: dict[str, str]) -> list[str]:
    """What each model box shows: the name in force, or '' (and the placeholder says why)."""
    return ["" if follows_persona(settings, key) else view[key] for key, _ in FIELDS]


def model_changes(settings: Settings, values: dict[str, Any]) -> dict[str, Any]:
    """The model fields to save: a box left empty where it followed the persona's model stays as it was
    (saving the form must not pin the Gemini defaults, which would stop the following)."""
    return {k: v for k, v in values.items() if not (follows_persona(settings, k) and not str(v or "").strip())}


def _masked_id(stem: str) -> str:
    return "settings-key-masked" if stem == "settings-gemini-key" else f"{stem}-masked"


def key_html(manager: SettingsOwner, labels: Labels, field: str = "gemini_api_key",
             stem: str = "settings-gemini-key") -> str:
    """The masked current key line of one provider."""
    masked = manager.admin.settings_view().get(field, "")
    text = labels("st_key_current", masked=masked) if masked else labels("st_key_none")
    return f'<div class="sv-muted" id="{_masked_id(stem)}-text">{escape(text)}</div>'


def overridden_html(manager: SettingsOwner, labels: Labels) -> str:
    """The fields a stronger layer decides, with where (empty when there are none)."""
    overridden = manager.admin.settings_overridden()
    if not overridden:
        return '<div id="settings-overridden-text"></div>'
    text = labels("st_overridden", fields=", ".join(f"{key} ← {where}" for key, where in overridden.items()))
    return f'<p class="sv-muted sv-note" id="settings-overridden-text">{escape(text)}</p>'


def providers_html(manager: SettingsOwner, labels: Labels) -> str:
    """Which providers are ready (✅) and what the others need (⚪), and what answers by default."""
    settings = manager.settings
    model, why = describe_default(settings)
    rows = "".join(
        f'<li data-provider="{escape(s.provider)}" data-ready="{str(s.ready).lower()}">'
        f'{"✅" if s.ready else "⚪"} <b>{escape(s.provider)}</b> — {escape(s.detail)}</li>'
        for s in provider_status(settings))
    head = labels("st_answering", model=model, why=why)
    return (f'<div id="settings-providers-body"><p class="sv-note">{escape(head)}</p>'
            f'<ul class="sv-providers">{rows}</ul></div>')


def build_settings_tab(manager: SettingsOwner, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    view = manager.admin.settings_view()
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=420, elem_classes=["sv-form"]):
            gr.Markdown(f"### {labels('st_models')}")
            shown = model_box_values(manager.settings, view)
            boxes = [gr.Textbox(value=value, label=labels(label), elem_id=f"settings-{key.replace('_', '-')}",
                                placeholder=labels("st_follows_persona") if key in FOLLOWING else None)
                     for (key, label), value in zip(FIELDS, shown, strict=True)]
            gr.Markdown(f"### {labels('st_providers')}")
            providers = gr.HTML(providers_html(manager, labels), elem_id="settings-providers")
            retry = gr.Button(labels("st_local_retry"), size="sm", elem_id="settings-local-retry",
                              visible=local_broken(manager.settings))
        with gr.Column(scale=1, min_width=380, elem_classes=["sv-form"]):
            gr.Markdown(f"### {labels('st_keys')}")
            keys, masks, clears = [], [], []
            for field, label, stem in KEYS:
                keys.append(gr.Textbox(label=labels(label), type="password",
                                       placeholder=labels("st_key_placeholder"), elem_id=stem))
                masks.append(gr.HTML(key_html(manager, labels, field, stem), elem_id=_masked_id(stem)))
                clears.append(gr.Checkbox(label=labels("st_clear_key"), value=False,
                                          elem_id="settings-clear-key" if field == "gemini_api_key"
                                          else f"{stem}-clear"))
            gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("st_env_note"))}</p>')
            overridden = gr.HTML(overridden_html(manager, labels), elem_id="settings-overridden")
            with gr.Row():
                status = gr.HTML(elem_id="settings-status")
                save = gr.Button(labels("st_save"), variant="primary", elem_id="settings-save", scale=0,
                                 min_width=160)

    def masked_all() -> list[str]:
        return [key_html(manager, labels, field, stem) for field, _label, stem in KEYS]

    def on_save(*values: Any) -> list[Any]:
        n = len(FIELDS)
        models, secrets, clear_flags = values[:n], values[n:n + len(KEYS)], values[n + len(KEYS):]
        data: dict[str, Any] = model_changes(manager.settings, dict(zip([k for k, _ in FIELDS], models, strict=True)))
        for (field, _label, _stem), secret, clear in zip(KEYS, secrets, clear_flags, strict=True):
            data[field] = secret or ""
            data[f"clear_{field}"] = bool(clear)
        emptied = [""] * len(KEYS)
        try:
            manager.admin.save_settings(data)
        except ValueError as exc:  # AdminError names the field; the key itself is never in the message
            return [error_html(labels("save_failed", error=str(exc))), *emptied, *([gr.skip()] * len(KEYS)),
                    *([gr.skip()] * len(KEYS)), gr.skip(), gr.skip()]
        return [ok_html(labels("st_saved")), *emptied, *masked_all(), *([False] * len(KEYS)),
                overridden_html(manager, labels), providers_html(manager, labels)]

    def on_retry() -> list[Any]:
        retry_local(manager.settings)
        return [ok_html(labels("st_local_retried")), providers_html(manager, labels), gr.update(visible=False)]

    retry.click(on_retry, None, [status, providers, retry])

    # The key boxes are emptied in every outcome, so the browser never holds a key longer than the request.
    save.click(on_save, [*boxes, *keys, *clears], [status, *keys, *masks, *clears, overridden, providers])

    models = build_models_section(manager, labels)  # type: ignore[arg-type]  # its own section (ui/tabs/models.py)
    backups = build_backup_section(manager, labels)  # type: ignore[arg-type]  # its own section (ui/tabs/backups.py)
    login = build_login_section(manager, labels)  # the password for other devices (ui/tabs/login.py)
    listen = build_listen_section(manager, labels)  # who turns the microphone into words (ui/tabs/listen.py)
    usage = build_usage_section(manager, labels)  # type: ignore[arg-type]  # tokens, prices, budgets (ui/tabs/usage.py)

    def refresh() -> list[Any]:
        now = manager.admin.settings_view()
        return [*model_box_values(manager.settings, now), *masked_all(), overridden_html(manager, labels),
                providers_html(manager, labels), gr.update(visible=local_broken(manager.settings)),
                *models.fn(), *backups.fn(), *login.fn(), *usage.fn(), *listen.fn()]

    return TabRefresh(refresh, [*boxes, *masks, overridden, providers, retry, *models.outputs, *backups.outputs,
                                *login.outputs, *usage.outputs, *listen.outputs],
                      drawn=models.drawn and backups.drawn and login.drawn and usage.drawn and listen.drawn)
