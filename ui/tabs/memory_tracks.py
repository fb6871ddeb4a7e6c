"""The memory tab's tracks-and-notes panel: a persona's activity state, tracks (the running one first,
with their open notes), notes (with how many pages and messages they bundle), SAIMemory notes and meta
judgments — upstream v0.3's, read by saiverse/memory/_tracks.py. Read-only: personas change them with their tools."""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels
from ui.tabs import table_html


def panel_html(manager: CityPort, labels: Labels, persona_id: str | None) -> str:
    """The whole panel for one persona, as escaped HTML."""
    if not persona_id:
        return table_html([], [], empty=labels("trk_empty"))
    view = manager.tracks_view(persona_id)
    state = view["state"]
    parts = [f'<div class="sv-muted" id="tracks-state">{escape(labels("trk_state", state=labels("state_" + state)))}'
             "</div>", f"<h4>{escape(labels('trk_tracks'))}</h4>"]
    rows = [(t["status"], t["title"] or "", t["track_type"], ", ".join(n["title"] for n in t["open_notes"]),
             len(t["log"])) for t in view["tracks"]]
    parts.append(table_html([labels(k) for k in ("col_status", "col_title", "col_kind", "col_open_notes", "col_log")],
                            rows, empty=labels("trk_empty"), elem_class="sv-memory"))
    parts.append(f"<h4>{escape(labels('trk_notes'))}</h4>")
    rows = [(n["note_type"], n["title"], n["description"] or "", f"{len(n['pages'])} / {len(n['messages'])}")
            for n in view["notes"]]
    parts.append(table_html([labels(k) for k in ("col_kind", "col_title", "col_about", "col_links")], rows,
                            empty=labels("trk_notes_empty"), elem_class="sv-memory"))
    parts.append(f"<h4>{escape(labels('trk_memory_notes'))}</h4>")
    rows = [(str(f["created_at"] or "")[:16], f["content"]) for f in view["memory_notes"]]
    parts.append(table_html([labels("col_time"), labels("col_content")], rows,
                            empty=labels("trk_memory_notes_empty"), elem_class="sv-memory"))
    parts.append(f"<h4>{escape(labels('trk_judgments'))}</h4>")
    rows = [(str(j["judged_at"] or "")[:16], j["trigger_type"] or "", j["thought"] or "")
            for j in view["judgments"]]
    parts.append(table_html([labels("col_time"), labels("col_kind"), labels("col_thought")], rows,
                            empty=labels("trk_judgments_empty"), elem_class="sv-memory"))
    return "".join(parts)


def build_tracks_panel(manager: CityPort, labels: Labels, persona: gr.Dropdown) -> tuple[Any, list[Any]]:
    """Components of the panel; returns (refresh(persona_id) → updates, outputs)."""
    body = gr.HTML(elem_id="tracks-panel")

    def refresh(persona_id: str | None) -> list[Any]:
        return [panel_html(manager, labels, persona_id)]

    return refresh, [body]
