"""設定 tab, 「モデルを入手」 section: the curated models with their sizes and what each is good at, a
download button with progress (bytes, speed, time left), what is installed, making one the default in
one click, and the model servers (Ollama, LM Studio, llama.cpp) found on this machine.

Downloads run in `manager.pulls` (saiverse/llm/local/_pull_jobs.py), so they go on when the page is left;
the button's handler only watches one until it ends.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from html import escape
from typing import Any, Protocol

import gradio as gr

from saiverse.port import (
    CATALOG,
    PullJobs,
    Settings,
    SettingsStore,
    describe,
    found_servers,
    human_size,
    installed_models,
    local_name,
    make_default,
    probe,
    resolve,
)
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html

POLL_SEC = 0.5


class ModelsOwner(Protocol):
    """What this section needs from the manager."""

    pulls: PullJobs
    settings_store: SettingsStore
    world: Any

    @property
    def settings(self) -> Settings: ...


def catalog_html(manager: ModelsOwner, labels: Labels) -> str:
    """The curated list: name, size, parameters, what it is good at, and whether it is here."""
    have = {m.file: m for m in installed_models(manager.settings)}
    rows = []
    for e in CATALOG:
        here = have.get(e.filename)
        state = labels("md_default") if here and here.default else (labels("md_have") if here else "")
        rows.append((e.name, human_size(e.approx_bytes), e.params,
                     e.good_at_ja if manager.settings.lang == "ja" else e.good_at_en, state))
    heads = ("md_col_name", "md_col_size", "md_col_params", "md_col_good", "md_col_state")
    return table_html([labels(k) for k in heads], rows, elem_class="sv-catalog")


def context_text(m: Any, labels: Labels) -> str:
    """What the 文脈長 column says: the length it runs at, and the trained one beside it when they differ
    (`2048 (学習時 32768)`)."""
    runs = m.runs_context
    if not runs:
        return str(m.context or "")
    if m.context and m.context != runs:
        return labels("md_ctx_runs", runs=runs, trained=m.context)
    return str(runs)


def installed_html(manager: ModelsOwner, labels: Labels) -> str:
    """The GGUFs in <home>/models/ with their profile and who uses them."""
    rows = [(("★ " if m.default else "") + m.name, human_size(m.size) if m.assembled else labels("md_first_use"),
             m.profile, context_text(m, labels), ", ".join(m.used_by) or "-")
            for m in installed_models(manager.settings, manager.world.personas())]
    heads = ("md_col_name", "md_col_size", "md_col_profile", "md_col_ctx", "md_col_users")
    return table_html([labels(k) for k in heads], rows, empty=labels("md_none"))


def servers_html(manager: ModelsOwner, labels: Labels) -> str:
    """The servers the last look found."""
    found = found_servers(manager.settings)
    if not found:
        return f'<div class="sv-muted" id="models-servers-text">{escape(labels("md_no_servers"))}</div>'
    items = "".join(f"<li><b>{escape(s.label)}</b> ({escape(s.url)}): {escape(', '.join(s.models) or '-')}</li>"
                    for s in found)
    return f'<ul id="models-servers-text">{items}</ul>'


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "…"
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def progress_html(job: dict[str, Any], labels: Labels) -> str:
    """One download's line: bytes, speed, time left (or done / the error)."""
    if job["state"] == "error":
        key = job.get("error_key")
        error = labels(f"md_err_{key}", **job.get("error_fields", {})) if key else job["error"]
        return error_html(labels("md_failed", name=job["name"], error=error))
    if job["state"] == "done":
        return ok_html(labels("md_done", name=job["local_name"]))
    if job["state"] == "verify":
        return f'<div class="sv-note" id="models-progress-text">{escape(labels("md_verifying"))}</div>'
    text = labels("md_progress", done=human_size(job["done"]), total=human_size(job["total"]) if job["total"] else "?",
                  speed=human_size(int(job["bytes_per_s"])), eta=_eta(job["eta_s"]))
    pct = int(100 * job["done"] / job["total"]) if job["total"] else 0
    return (f'<div id="models-progress-text"><progress max="100" value="{pct}"></progress> '
            f'{escape(text)}</div>')


def build_models_section(manager: ModelsOwner, labels: Labels) -> TabRefresh:
    """Create the section's components in the current context and wire them."""
    gr.Markdown(f"### {labels('md_title')}")
    gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("md_note"))}</p>')
    catalog = gr.HTML(catalog_html(manager, labels), elem_id="models-catalog")
    with gr.Row():
        pick = gr.Dropdown([e.name for e in CATALOG], value=CATALOG[0].name, label=labels("md_pick"),
                           elem_id="models-pick", scale=2)
        other = gr.Textbox(label=labels("md_other"), placeholder="owner/repo/file.gguf", elem_id="models-other",
                           scale=2)
        default = gr.Checkbox(label=labels("md_set_default"), value=True, elem_id="models-set-default", scale=1)
        get = gr.Button(labels("md_get"), variant="primary", elem_id="models-get", scale=0, min_width=140)
    running = [j for j in manager.pulls.all() if j.running]  # drawn as the refresh would
    progress = gr.HTML(progress_html(describe(running[-1]), labels) if running else "", elem_id="models-progress")
    gr.Markdown(f"#### {labels('md_installed')}")
    installed = gr.HTML(installed_html(manager, labels), elem_id="models-installed")
    with gr.Row():
        use = gr.Dropdown(choices=[m.name for m in installed_models(manager.settings)], label=labels("md_use_pick"),
                          elem_id="models-use-pick", scale=3)
        use_btn = gr.Button(labels("md_use"), elem_id="models-use", scale=0, min_width=140)
    gr.Markdown(f"#### {labels('md_servers')}")
    servers = gr.HTML(servers_html(manager, labels), elem_id="models-servers")
    look = gr.Button(labels("md_look"), elem_id="models-look", scale=0, min_width=160)

    def names() -> Any:
        return gr.Dropdown(choices=[m.name for m in installed_models(manager.settings)])

    def on_get(choice: str, spec: str, set_default: bool) -> Iterator[list[Any]]:
        name = (spec or "").strip() or (choice or "")
        try:
            resolve(name)
        except ValueError as exc:
            yield [error_html(str(exc)), gr.skip(), gr.skip(), gr.skip()]
            return
        job = manager.pulls.start(name, set_default=set_default)
        shown = None
        while True:
            state = describe(job)
            html = progress_html(state, labels)
            if html != shown:
                shown = html
                yield [html, gr.skip(), gr.skip(), gr.skip()]
            if not job.running:
                break
            time.sleep(POLL_SEC)
        yield [progress_html(describe(job), labels), catalog_html(manager, labels), installed_html(manager, labels),
               names()]

    def on_use(name: str) -> list[Any]:
        if not name:
            return [error_html(labels("md_pick_first")), gr.skip(), gr.skip()]
        make_default(manager.settings, local_name(name), manager.settings_store)
        return [ok_html(labels("md_now_default", name=name)), catalog_html(manager, labels),
                installed_html(manager, labels)]

    def on_look() -> str:
        probe(manager.settings)
        return servers_html(manager, labels)

    get.click(on_get, [pick, other, default], [progress, catalog, installed, use], show_progress="hidden")
    use_btn.click(on_use, use, [progress, catalog, installed], show_progress="hidden")
    look.click(on_look, None, servers, show_progress="hidden")

    def refresh() -> list[Any]:
        running = [j for j in manager.pulls.all() if j.running]
        line = progress_html(describe(running[-1]), labels) if running else gr.skip()
        return [catalog_html(manager, labels), installed_html(manager, labels), servers_html(manager, labels),
                names(), line]

    return TabRefresh(refresh, [catalog, installed, servers, use, progress], drawn=True)


def suggests_pull(manager: ModelsOwner) -> bool:
    """Whether chats answer with the packaged small model (or the offline one) because nothing better is set:
    then the chat offers the one-click pull."""
    from saiverse.port import describe_default

    settings = manager.settings
    if settings.default_model.strip().lower() not in ("auto", "local"):
        return False
    return describe_default(settings)[0] in ("local", "offline") and not settings.local_model


def build_chat_pull(manager: ModelsOwner, labels: Labels) -> None:
    """Under the chat: one click pulls the first recommended model and makes it the default (shown only
    while the packaged model answers); its progress shows beside the button."""
    first = CATALOG[0]
    with gr.Row(visible=suggests_pull(manager), elem_id="chat-pull-row"):
        button = gr.Button(labels("md_chat_get", name=first.name, size=human_size(first.approx_bytes)),
                           elem_id="chat-pull", size="sm", scale=0, min_width=320)
        line = gr.HTML(elem_id="chat-pull-progress")

    def on_click() -> Iterator[list[Any]]:
        job = manager.pulls.start(first.name, set_default=True)
        shown = None
        while True:
            html = progress_html(describe(job), labels)
            if html != shown:
                shown = html
                yield [html, gr.Button(interactive=False)]
            if not job.running:
                break
            time.sleep(POLL_SEC)
        yield [progress_html(describe(job), labels), gr.Button(interactive=job.error is not None)]

    button.click(on_click, None, [line, button], show_progress="hidden")
