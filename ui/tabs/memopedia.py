"""The memory tab's Memopedia panel: a persona's page tree, one page to read, edit and save, and
the page's edit history (each edit a diff)."""

from __future__ import annotations

import re
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import JA, Labels
from ui.tabs import error_html, ok_html

CATEGORIES = ("people", "terms", "plans")
"""Memopedia's three categories (saiverse/memory/_memopedia_page.py CATEGORIES); each root shown by its label."""


def shown(page: Any, labels: Labels) -> tuple[str, str]:
    """(title, summary) as the page shows them: a category's root by its label (upstream seeds them in
    Japanese: its words are the Japanese labels, so a root still saying them is worded in the page's language)."""
    cat = page.category if getattr(page, "is_root", False) and page.category in CATEGORIES else None
    if cat is None:
        return page.title, page.summary
    summary = labels(f"mp_cat_{cat}_about") if page.summary == JA[f"mp_cat_{cat}_about"] else page.summary
    return labels(f"mp_cat_{cat}"), summary


def _flat(nodes: list[dict[str, Any]], depth: int = 0) -> list[tuple[Any, int, str | None]]:
    out = []
    for n in nodes:
        out.append((n["page"], depth, n["problem"]))
        out += _flat(n["children"], depth + 1)
    return out


def _tree_html(rows: list[tuple[Any, int, str | None]], selected: str | None, labels: Labels) -> str:
    items = []
    for page, depth, problem in rows:
        mark = "★ " if page.is_important or page.is_trunk else ""
        cls = "sv-mp-node sv-mp-selected" if page.page_id == selected else "sv-mp-node"
        warn = f' <span class="sv-error">⚠ {escape(problem)}</span>' if problem else ""
        title, summary = shown(page, labels)
        items.append(f'<div class="{cls}" style="padding-left:{depth * 1.2}rem">{mark}{escape(title)}'
                     f'<span class="sv-muted"> {escape(summary[:40])}</span>{warn}</div>')
    return f'<div class="sv-mp-tree">{"".join(items)}</div>'


def _history_html(labels: Labels, history: list[dict[str, Any]]) -> str:
    if not history:
        return f'<div class="sv-muted">{escape(labels("mp_no_history"))}</div>'
    parts = [f"<h4>{escape(labels('mp_history'))}</h4>"]
    for h in history:
        when = (h["edited_at"] or "")[:19].replace("T", " ")
        parts.append(f'<div class="sv-muted">{escape(when)} · {escape(h["edit_type"])} · '
                     f'{escape(h["edit_source"] or "-")}</div><pre class="sv-diff">{escape(h["diff"])}</pre>')
    return "".join(parts)


def build_memopedia_panel(manager: CityPort, labels: Labels, persona: gr.Dropdown) -> tuple[Any, list[Any]]:
    """Components of the panel, wired; returns (refresh(persona_id) → updates, outputs)."""
    store = manager.memopedia
    page_id = gr.State("")
    with gr.Row():
        with gr.Column(scale=2):
            pick = gr.Dropdown([], label=labels("mp_page"), elem_id="memopedia-pick")
            tree = gr.HTML(elem_id="memopedia-tree", label=labels("mp_tree"))
        with gr.Column(scale=3):
            with gr.Row(equal_height=True):
                title = gr.Textbox(label=labels("mp_title"), elem_id="memopedia-title", scale=3)
                category = gr.Dropdown([(labels(f"mp_cat_{c}"), c) for c in CATEGORIES], value="terms",
                                       label=labels("mp_category"),
                                       elem_id="memopedia-category", scale=2)
                parent = gr.Dropdown([], label=labels("mp_parent"), elem_id="memopedia-parent", scale=2)
            summary = gr.Textbox(label=labels("mp_summary"), elem_id="memopedia-summary")
            keywords = gr.Textbox(label=labels("mp_keywords"), elem_id="memopedia-keywords")
            content = gr.Textbox(label=labels("mp_content"), lines=10, max_lines=30, elem_id="memopedia-content")
            with gr.Row(equal_height=True):
                important = gr.Checkbox(label=labels("mp_important"), elem_id="memopedia-important")
                save = gr.Button(labels("mp_save"), variant="primary", elem_id="memopedia-save", scale=0, min_width=120)
                new = gr.Button(labels("mp_new"), elem_id="memopedia-new", scale=0, min_width=150)
            status = gr.HTML(elem_id="memopedia-status")
            history = gr.HTML(elem_id="memopedia-history")

    def view(persona_id: str | None, selected: str | None, note: str = "") -> list[Any]:
        """Every output of the panel for `selected` (a page id, or '' for a new page)."""
        if not persona_id:
            return ["", gr.Dropdown(choices=[], value=None), "", "", gr.skip(), gr.Dropdown(choices=[]), "", "", "",
                    False, note, ""]
        rows = _flat(store.tree(persona_id))
        choices = [(("　" * depth) + shown(p, labels)[0], p.page_id) for p, depth, _ in rows]
        parents = [(("　" * depth) + shown(p, labels)[0], p.page_id) for p, depth, _ in rows if p.page_id != selected]
        page = next((p for p, _, _ in rows if p.page_id == selected), None) if selected else None
        if page is None:
            return ["", gr.Dropdown(choices=choices, value=None), _tree_html(rows, None, labels), "",
                    gr.Dropdown(interactive=True), gr.Dropdown(choices=parents, value=None, interactive=True),
                    "", "", "", False, note, ""]
        return [page.page_id, gr.Dropdown(choices=choices, value=page.page_id), _tree_html(rows, page.page_id, labels),
                shown(page, labels)[0], gr.Dropdown(value=page.category, interactive=False),
                gr.Dropdown(choices=parents, value=page.parent_id, interactive=not page.is_root), page.summary,
                labels("list_sep").join(page.keywords), page.content, page.is_important, note,
                _history_html(labels, store.history(persona_id, page.page_id))]

    def on_save(persona_id: str | None, current: str, t: str, cat: str, par: str | None, s: str, k: str, c: str,
                imp: bool) -> list[Any]:
        if not persona_id:
            return view(persona_id, None)
        words = [w for w in re.split(r"[、,，]\s*", k or "") if w.strip()]
        try:
            if current:
                page = store.update(persona_id, current, title=None if current.startswith("root_") else t,
                                    summary=s, content=c, keywords=words, is_important=bool(imp),
                                    parent_id=par or None, source="user")
            else:
                page = store.create(persona_id, t, summary=s, content=c, category=cat, parent_id=par or None,
                                    keywords=words, is_important=bool(imp), source="user")
        except ValueError as exc:
            return [*[gr.skip()] * 10, error_html(str(exc)), gr.skip()]
        return view(persona_id, page.page_id, ok_html(labels("mp_saved", title=page.title)))

    outs = [page_id, pick, tree, title, category, parent, summary, keywords, content, important, status, history]
    pick.input(lambda p, sel: view(p, sel), [persona, pick], outs)
    new.click(lambda p: view(p, None), [persona], outs)
    save.click(on_save, [persona, page_id, title, category, parent, summary, keywords, content, important], outs)
    return (lambda persona_id: view(persona_id, None)), outs
