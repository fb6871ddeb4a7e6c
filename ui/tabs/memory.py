"""メモリ tab: a persona's memory — SAIMemory messages (newest first, by tag, paged, searched), its
Chronicle (ui/tabs/memory_chronicle.py) and its Memopedia (ui/tabs/memopedia.py) — and an export of all three;
and what she would be given for a message, with her pins (ui/tabs/memory_sight.py)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr

from saiverse.port import CityPort, export_memory
from ui.chat_time import local_stamp
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html
from ui.tabs.memopedia import build_memopedia_panel
from ui.tabs.memory_chronicle import build_chronicle_panel
from ui.tabs.memory_sight import build_sight_panel
from ui.tabs.memory_tracks import build_tracks_panel

PAGE = 100
TAGS = ("conversation", "internal")
"""Tags offered in the filter; any other tag can be typed (the dropdown accepts custom values)."""
CLIP = 400
"""Characters of a message shown in the table (the export has everything)."""


ROLES = ("user", "assistant", "system")
"""Roles said in the table's language; the stored role itself is SAIMemory's (and upstream's) word."""


def _rows(labels: Labels, records: list[dict[str, Any]],
          pinned: set[int] | frozenset[int] = frozenset()) -> list[tuple[Any, ...]]:
    rows = []
    for r in records:
        content = str(r.get("content", ""))
        tags = ", ".join(labels(f"mem_tag_{t}") if t in TAGS else str(t) for t in r.get("tags", [])
                         if not str(t).startswith("pulse:"))
        said = r.get("role")
        role = (labels(f"mem_role_{said}") if said in ROLES else said) if r.get("kind", "message") == "message" else (
            labels("mem_chronicle_row", level=r.get("level")) if r["kind"] == "chronicle"
            else labels("mem_memopedia_row", title=r.get("title")))
        pin = "📌 " if r.get("kind", "message") == "message" and r.get("id") in pinned else ""
        rows.append((f"{pin}{r.get('id')}" if pin else r.get("id"), local_stamp(r.get("created_at")), role, tags,
                     content if len(content) <= CLIP else content[:CLIP] + "…"))
    return rows


def _table(labels: Labels, records: list[dict[str, Any]], pinned: set[int] | frozenset[int] = frozenset()) -> str:
    """The messages as a table; 📌 marks a pinned one (saiverse/memory/_pins.py)."""
    headers = [labels(k) for k in ("col_id", "col_time", "col_role", "col_tags", "col_content")]
    body = table_html(headers, _rows(labels, records, pinned), empty=labels("mem_empty"), elem_class="sv-memory")
    count = f'<div class="sv-muted">{labels("mem_count", n=len(records))}</div>' if records else ""
    return count + body


def build_memory_tab(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    personas = [(f"{p.avatar} {p.name}", p.persona_id) for p in manager.personas()]
    first = personas[0][1] if personas else None
    tag_choices = [(labels("tag_all"), "")] + [(labels(f"mem_tag_{t}"), t) for t in TAGS]
    with gr.Row(equal_height=True, elem_classes=["sv-toolbar"]):
        persona = gr.Dropdown(personas, value=first, label=labels("mem_persona"), elem_id="memory-persona",
                              scale=2)
        export = gr.Button(labels("mem_export"), elem_id="memory-export", scale=0, min_width=210)
    status = gr.HTML(elem_id="memory-status")
    export_file = gr.File(visible=False, elem_id="memory-export-file", interactive=False, show_label=False)
    with gr.Tabs(elem_id="memory-subtabs"):
        with gr.Tab(labels("mem_sub_messages"), id="memory-messages"):
            with gr.Row(equal_height=True, elem_classes=["sv-toolbar"]):
                tag = gr.Dropdown(tag_choices, value="", label=labels("mem_tag"), allow_custom_value=True,
                                  elem_id="memory-tag", scale=2)
                query = gr.Textbox(label=labels("mem_query"), elem_id="memory-query", scale=3)
                search = gr.Button(labels("mem_search"), elem_id="memory-search", variant="primary", scale=0,
                                   min_width=110)
            # Drawn with the tab (built on its first opening, ui/lazy_tab.py), not only by its refresh.
            newest = list(manager.memory.list_messages(first, limit=PAGE)) if first else []
            table = gr.HTML(_table(labels, newest, manager.sight.pins.pinned_ids(first) if first else frozenset()),
                            elem_id="memory-table")
            more = gr.Button(labels("mem_more"), elem_id="memory-more", size="sm", visible=len(newest) >= PAGE)
        with gr.Tab(labels("mem_sub_chronicle"), id="memory-chronicle"):
            chronicle_refresh, chronicle_outs = build_chronicle_panel(manager, labels, persona)
        with gr.Tab(labels("mem_sub_memopedia"), id="memory-memopedia"):
            memopedia_refresh, memopedia_outs = build_memopedia_panel(manager, labels, persona)
        with gr.Tab(labels("mem_sub_tracks"), id="memory-tracks"):
            tracks_refresh, tracks_outs = build_tracks_panel(manager, labels, persona)
        with gr.Tab(labels("mem_sub_sight"), id="memory-sight"):
            sight_refresh, sight_outs = build_sight_panel(manager, labels, persona)
    limit = gr.State(PAGE)

    def browse(persona_id: str | None, tag_value: str | None, n: int = PAGE) -> list[Any]:
        """The newest `n` messages (paging re-reads from the top: pages stay consistent as new ones arrive)."""
        if not persona_id:
            return [_table(labels, []), gr.Button(visible=False), "", n]
        records = list(manager.memory.list_messages(persona_id, tag=tag_value or None, limit=n))
        pinned = manager.sight.pins.pinned_ids(persona_id)
        return [_table(labels, records, pinned), gr.Button(visible=len(records) >= n), "", n]

    def on_search(persona_id: str | None, tag_value: str | None, text: str) -> list[Any]:
        if not (text or "").strip() or not persona_id:
            return browse(persona_id, tag_value)
        records = manager.recall(persona_id, text, limit=PAGE)
        return [_table(labels, records, manager.sight.pins.pinned_ids(persona_id)), gr.Button(visible=False), "", PAGE]

    def on_export(persona_id: str | None) -> list[Any]:
        if not persona_id:
            return [gr.File(visible=False), error_html(labels("mem_empty"))]
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", persona_id)
        path = Path(tempfile.mkdtemp(prefix="saiverse-export-")) / f"{safe}_memory.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            counts = export_memory(manager.memory, manager.chronicle, manager.memopedia, persona_id, fh)
        return [gr.File(value=str(path), visible=True), ok_html(labels("mem_exported_all", **counts))]

    outs = [table, more, status, limit]
    persona.input(browse, [persona, tag], outs, show_progress="hidden").then(
        chronicle_refresh, [persona], chronicle_outs, show_progress="hidden").then(
        memopedia_refresh, [persona], memopedia_outs, show_progress="hidden").then(
        tracks_refresh, [persona], tracks_outs, show_progress="hidden").then(
        sight_refresh, [persona], sight_outs, show_progress="hidden")
    tag.input(browse, [persona, tag], outs, show_progress="hidden")
    search.click(on_search, [persona, tag, query], outs)
    query.submit(on_search, [persona, tag, query], outs)
    more.click(lambda p, t, n: browse(p, t, n + PAGE), [persona, tag, limit], outs)
    export.click(on_export, persona, [export_file, status])

    def refresh(persona_id: str | None, tag_value: str | None, text: str) -> list[Any]:
        choices = [(f"{p.avatar} {p.name}", p.persona_id) for p in manager.personas()]
        if persona_id not in [c[1] for c in choices]:
            persona_id = choices[0][1] if choices else None
        return [gr.Dropdown(choices=choices, value=persona_id), *on_search(persona_id, tag_value, text),
                *chronicle_refresh(persona_id), *memopedia_refresh(persona_id), *tracks_refresh(persona_id),
                *sight_refresh(persona_id)]

    def fill(persona_id: str | None) -> list[Any]:
        """The panels the builder leaves empty (the messages it drew)."""
        return [*chronicle_refresh(persona_id), *memopedia_refresh(persona_id), *tracks_refresh(persona_id),
                *sight_refresh(persona_id)]

    panels = [*chronicle_outs, *memopedia_outs, *tracks_outs, *sight_outs]
    return TabRefresh(refresh, [persona, *outs, *panels], [persona, tag, query], drawn=True,
                      fill=TabRefresh(fill, panels, [persona]))
