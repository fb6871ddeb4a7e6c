"""プレイブック tab: the catalog, validating and importing a JSON file, and a graph of one playbook.

The graph is LangGraph's own Mermaid text of the compiled playbook, rendered by the Markdown
component's bundled Mermaid (served by Gradio itself — no CDN), with the source beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html

MAX_FILE_BYTES = 1_000_000


def playbook_table(manager: CityPort, labels: Labels) -> str:
    """Every playbook with its flags (router-callable, user-selectable, builtin or imported)."""
    rows = []
    for pb in manager.playbooks.all():
        flags = [labels("flag_router")] if pb.router_callable else []
        flags += [labels("flag_user")] if pb.user_selectable else []
        flags.append(labels("flag_builtin") if manager.playbooks.is_builtin(pb.name) else labels("flag_imported"))
        rows.append((pb.name, pb.display_name, pb.description, "\n".join(flags)))
    headers = [labels(k) for k in ("col_name", "col_display", "col_description", "col_flags")]
    return table_html(headers, rows, elem_class="sv-playbooks")


def graph_markdown(manager: CityPort, name: str | None) -> str:
    """A Mermaid block of the compiled graph, or the error that kept it from compiling."""
    if manager.playbooks.get(name or "") is None:
        return ""
    try:
        mermaid = manager.playbooks.graph_mermaid(name or "")
    except Exception as exc:  # noqa: BLE001 - a graph that cannot be drawn is shown as its error
        return f"⚠️ {exc}"
    return f"```mermaid\n{mermaid}\n```"


def _read(path: str | None, labels: Labels) -> tuple[str, str]:
    """(text, source name) of the uploaded file; raises ValueError with a readable message."""
    if not path:
        raise ValueError(labels("pb_no_file"))
    p = Path(path)
    if p.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{p.name}: larger than {MAX_FILE_BYTES // 1000} kB")
    try:
        return p.read_text(encoding="utf-8"), p.name
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p.name}: not UTF-8 text ({exc.reason})") from exc


def build_playbooks_tab(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    manager.playbooks.reload()  # an import by the CLI: drawn as current as the refresh would
    names = [pb.name for pb in manager.playbooks.all()]
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=420):
            table = gr.HTML(playbook_table(manager, labels), elem_id="playbook-table")
        with gr.Column(scale=2, min_width=340, elem_classes=["sv-form"]):
            upload = gr.File(label=labels("pb_upload"), file_types=[".json"], type="filepath",
                             elem_id="playbook-upload", height=120)
            with gr.Row():
                validate = gr.Button(labels("pb_validate"), elem_id="playbook-validate")
                do_import = gr.Button(labels("pb_import"), variant="primary", elem_id="playbook-import")
            status = gr.HTML(elem_id="playbook-status")
            shown = "meta_user" if "meta_user" in names else None
            pick = gr.Dropdown(names, value=shown, label=labels("pb_pick"), elem_id="playbook-graph-pick")
            # Drawn with the tab (built on its first opening, ui/lazy_tab.py), not only by its refresh.
            graph = gr.Markdown(graph_markdown(manager, shown), elem_id="playbook-graph", elem_classes=["sv-graph"])

    def on_validate(path: str | None) -> str:
        try:
            text, source = _read(path, labels)
            pb = manager.playbooks.check_text(text, source=source)
        except (ValueError, OSError) as exc:  # PlaybookError is a ValueError naming playbook/node/field
            return error_html(labels("pb_invalid", error=str(exc)))
        return ok_html(labels("pb_valid", name=pb.name))

    def on_import(path: str | None) -> list[Any]:
        try:
            text, source = _read(path, labels)
            pb = manager.playbooks.store(manager.playbooks.check_text(text, source=source))
        except (ValueError, OSError) as exc:
            return [error_html(labels("pb_invalid", error=str(exc))), gr.skip(), gr.skip(), gr.skip()]
        choices = [p.name for p in manager.playbooks.all()]
        return [ok_html(labels("pb_imported", name=pb.name)), playbook_table(manager, labels),
                gr.Dropdown(choices=choices, value=pb.name), graph_markdown(manager, pb.name)]

    upload.upload(on_validate, upload, status, show_progress="hidden")
    validate.click(on_validate, upload, status)
    do_import.click(on_import, upload, [status, table, pick, graph])
    pick.change(lambda name: graph_markdown(manager, name), pick, graph, show_progress="hidden")

    def refresh(name: str | None) -> list[Any]:
        """Playbooks imported elsewhere (another tab, the CLI) appear in the graph chooser too."""
        manager.playbooks.reload()  # an import by the CLI is in the database, not yet in this catalog
        choices = [p.name for p in manager.playbooks.all()]
        keep = name if name in choices else ("meta_user" if "meta_user" in choices else None)
        return [playbook_table(manager, labels), graph_markdown(manager, keep),
                gr.Dropdown(choices=choices, value=keep)]

    return TabRefresh(refresh, [table, graph, pick], [pick], drawn=True)
