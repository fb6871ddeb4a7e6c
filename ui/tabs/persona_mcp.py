"""ペルソナ tab, MCP servers: the chosen persona's servers as JSON, saved to settings.json, and a check.

The list is what `settings.json` holds under `mcp_servers.<persona id>` (README, "MCP tools"); env
values are shown masked and a masked value saved back keeps the stored one (saiverse/mcp_tools.py).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort, SettingsError, save_servers, shown_json, unmask
from ui.i18n import Labels
from ui.tabs import error_html, ok_html


def status_html(rows: list[dict[str, Any]], labels: Labels) -> str:
    """One line per server: its tools, or why it cannot be used."""
    if not rows:
        return f"<p>{escape(labels('mcp_none'))}</p>"
    lines = []
    for row in rows:
        if row["error"]:
            lines.append(f'<li class="sv-error">⚠️ {escape(row["name"])}: {escape(row["error"])}</li>')
        else:
            tools = ", ".join(row["tools"]) or "—"
            where = f'{escape(row["name"])} ({escape(row["transport"])})'
            lines.append(f'<li class="sv-ok">✓ {where}: {escape(tools)}</li>')
    return f'<ul class="sv-mcp">{"".join(lines)}</ul>'


def build_mcp_panel(manager: CityPort, labels: Labels, pick: Any, new: str) -> None:
    """The panel under the persona form; `pick` is the persona dropdown (`new`: no persona yet)."""
    with gr.Accordion(labels("mcp_title"), open=False, elem_id="persona-mcp"):
        gr.Markdown(f"`{labels('mcp_hint')}`")
        text = gr.Textbox(lines=5, max_lines=20, show_label=False, label=labels("mcp_title"),
                          elem_id="persona-mcp-json")
        with gr.Row():
            status = gr.HTML(elem_id="persona-mcp-status")
            check = gr.Button(labels("mcp_check"), elem_id="persona-mcp-check", scale=0, min_width=120, size="sm")
            save = gr.Button(labels("mcp_save"), elem_id="persona-mcp-save", scale=0, min_width=120, size="sm")

    def load(persona_id: str) -> list[Any]:
        if not persona_id or persona_id == new:
            return ["", ""]
        return [json.dumps(shown_json(manager.mcp.servers(persona_id)), ensure_ascii=False, indent=1), ""]

    def on_save(persona_id: str, raw_text: str) -> list[Any]:
        if not persona_id or persona_id == new:
            return [gr.skip(), error_html(labels("mcp_pick_first"))]
        try:
            raw = json.loads(raw_text) if raw_text.strip() else []
        except ValueError as exc:
            return [gr.skip(), error_html(labels("mcp_bad_json", error=str(exc)))]
        try:
            servers = save_servers(manager.settings.home, persona_id, unmask(raw, manager.mcp.servers(persona_id)))
        except SettingsError as exc:
            return [gr.skip(), error_html(labels("save_failed", error=str(exc)))]
        shown = json.dumps(shown_json(servers), ensure_ascii=False, indent=1)
        return [shown, ok_html(labels("mcp_saved", n=len(servers)))]

    def on_check(persona_id: str) -> str:
        if not persona_id or persona_id == new:
            return error_html(labels("mcp_pick_first"))
        return status_html(manager.mcp.status(persona_id, fresh=True), labels)

    pick.input(load, pick, [text, status], show_progress="hidden")
    save.click(on_save, [pick, text], [text, status])
    check.click(on_check, pick, status)
