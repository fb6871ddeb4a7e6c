"""設定 tab, ログイン section: the password other devices log in with (saiverse/care/_login.py).

Setting or removing it here does the same as `python main.py password set|clear`; a running server
that is open to the network checks every login against the stored hash as it is now (ui/app.py
`launch_kwargs` gives Gradio a `Gate` that reads it per attempt), so a new password counts at once.
The password boxes are emptied in every outcome, so the page never keeps a password.
"""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort, UserError, clear_login, read_login, set_login
from ui.guard import addresses_to_open, is_loopback
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html

MIN_PASSWORD_CHARS = 8
"""saiverse/care/_login.py's MIN_PASSWORD_CHARS (tests/test_labels.py holds them equal)."""


def login_status_html(manager: CityPort, labels: Labels) -> str:
    """Whether a password is set, and where this server listens."""
    login = read_login(manager.settings.home)
    lines = [labels("lg_status_set") if login else labels("lg_status_none")]
    host, port = manager.settings.host, manager.settings.port
    if is_loopback(host):
        lines.append(labels("lg_serving_local"))
    else:
        lines.append(labels("lg_serving_wide", host=host, urls="  ".join(addresses_to_open(host, port))))
    return "".join(f'<p class="sv-muted sv-note">{escape(line)}</p>' for line in lines)


def build_login_section(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the section's components in the current context and wire them."""
    gr.Markdown(f"### {labels('lg_title')}")
    gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("lg_note"))}</p>')
    status_now = gr.HTML(login_status_html(manager, labels), elem_id="login-state")
    with gr.Row(equal_height=False):
        first = gr.Textbox(label=labels("lg_password"), type="password", elem_id="login-password", scale=1)
        again = gr.Textbox(label=labels("lg_again"), type="password", elem_id="login-again", scale=1)
    with gr.Row():
        result = gr.HTML(elem_id="login-status")
        save = gr.Button(labels("lg_set"), variant="primary", elem_id="login-set", scale=0, min_width=200)
        clear = gr.Button(labels("lg_clear"), elem_id="login-clear", scale=0, min_width=160)

    def on_set(password: str, repeated: str) -> list[Any]:
        if password != repeated:
            return [error_html(labels("lg_mismatch")), "", "", gr.skip()]
        # The two refusals a person meets, in the page's language (saiverse/care/_login.py `check_password`
        # words them for the command line).
        if len(password or "") < MIN_PASSWORD_CHARS:
            return [error_html(labels("lg_too_short", n=len(password or ""), min=MIN_PASSWORD_CHARS)), "", "",
                    gr.skip()]
        if password != password.strip():
            return [error_html(labels("lg_spaces")), "", "", gr.skip()]
        try:
            set_login(manager.settings.home, password or "")
        except (UserError, OSError) as exc:
            return [error_html(labels("lg_failed", error=str(exc))), "", "", gr.skip()]
        return [ok_html(labels("lg_saved")), "", "", login_status_html(manager, labels)]

    def on_clear() -> list[Any]:
        clear_login(manager.settings.home)
        return [ok_html(labels("lg_cleared")), "", "", login_status_html(manager, labels)]

    save.click(on_set, [first, again], [result, first, again, status_now])
    clear.click(on_clear, None, [result, first, again, status_now])
    return TabRefresh(lambda: [login_status_html(manager, labels)], [status_now], drawn=True)
