"""設定 tab, 聞き取り section: who turns the microphone's recordings into words (saiverse/listen).

The engine (by the URL: an OpenAI-compatible Whisper server; OpenAI or Gemini with the keys above; off),
the server's URL and model, and its key (a password box always sent back empty, as the keys above).
Saved in settings.json (mode 600); SAIVERSE_STT_* in the environment or a `.env` still win, and the
line under the form says who listens now.
"""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort, UserError, listener_status, mask_key, save_listener
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html

ENGINES = ("", "openai-compatible", "openai", "gemini", "off")


def listener_html(manager: CityPort, labels: Labels) -> str:
    """Who listens now (or why nobody does), and the stored key, masked."""
    ready, line = listener_status(manager.settings)
    key = mask_key(manager.settings.stt_api_key)
    keyed = f" · {labels('st_key_current', masked=key)}" if key else ""
    return f'<p class="sv-note {"sv-ok" if ready else "sv-muted"}" id="listen-state-text">{escape(line + keyed)}</p>'


def _engine_label(labels: Labels, engine: str) -> str:
    if engine in ("", "off"):
        return labels("ls_engine_auto" if not engine else "ls_engine_off")
    return labels(f"pv_engine_{engine}")


def build_listen_section(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the section's components in the current context and wire them."""
    st = manager.settings
    gr.Markdown(f"### {labels('ls_title')}")
    with gr.Row(equal_height=False):
        engine = gr.Dropdown([(_engine_label(labels, e), e) for e in ENGINES], value=st.stt_engine or "",
                             label=labels("ls_engine"), elem_id="listen-engine", scale=1)
        url = gr.Textbox(value=st.stt_url or "", label=labels("ls_url"), placeholder="http://127.0.0.1:8000/v1",
                         elem_id="listen-url", scale=2)
    with gr.Row(equal_height=False):
        model = gr.Textbox(value=st.stt_model or "", label=labels("ls_model"), elem_id="listen-model", scale=1)
        key = gr.Textbox(label=labels("ls_key"), type="password", placeholder=labels("st_key_placeholder"),
                         elem_id="listen-key", scale=1)
        clear = gr.Checkbox(label=labels("st_clear_key"), value=False, elem_id="listen-key-clear", scale=0,
                            min_width=160)
    gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("ls_note"))}</p>')
    state = gr.HTML(listener_html(manager, labels), elem_id="listen-state")
    with gr.Row():
        result = gr.HTML(elem_id="listen-status")
        save = gr.Button(labels("ls_save"), variant="primary", elem_id="listen-save", scale=0, min_width=180)

    def on_save(engine_name: str, url_text: str, model_name: str, secret: str, drop: bool) -> list[Any]:
        try:
            save_listener(manager.settings_store, {"engine": engine_name, "url": url_text, "model": model_name,
                                                   "key": secret, "clear_key": drop})
        except UserError as exc:  # SettingsError names the field; the key is never in the message
            return [error_html(labels("save_failed", error=str(exc))), "", gr.skip(), gr.skip()]
        return [ok_html(labels("ls_saved")), "", False, listener_html(manager, labels)]

    save.click(on_save, [engine, url, model, key, clear], [result, key, clear, state])

    def refresh() -> list[Any]:
        now = manager.settings
        return [now.stt_engine or "", now.stt_url or "", now.stt_model or "", listener_html(manager, labels)]

    return TabRefresh(refresh, [engine, url, model, state], drawn=True)
