"""The memory tab's Chronicle panel: a persona's summaries by level and time, each one's sources,
and a button that writes what is due now."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort, parse_day
from ui.chat_time import local_stamp
from ui.i18n import Labels
from ui.tabs import error_html, ok_html, table_html

SHOWN = 200
MINUTES = "%Y-%m-%d %H:%M"


def _period(entry: Any) -> str:
    """An entry's period in local time (rows keep naive UTC), the days its text names."""
    def local(at: datetime | None) -> str:
        return local_stamp(at.replace(tzinfo=UTC), MINUTES) if at else "?"

    return f"{local(entry.start)} 〜 {local(entry.end)}"


def _detail_html(manager: CityPort, persona_id: str, entry_id: str) -> str:
    entry = manager.chronicle.get(persona_id, entry_id)
    parts = [f'<div class="sv-chronicle-detail"><b>Lv.{entry.level}</b> {escape(_period(entry))}',
             f"<p>{escape(entry.content)}</p>"]
    if entry.problem:
        parts.append(f'<div class="sv-error">⚠️ {escape(entry.problem)}</div>')
    elif entry.level == 1:
        for m in manager.chronicle.source_messages(persona_id, entry, 50):
            when = local_stamp(m["created_at"], MINUTES)
            parts.append(f'<div class="sv-muted">[{escape(when)}] {escape(m["role"])}</div>'
                         f"<div>{escape(m['content'])}</div>")
    else:
        for child in manager.chronicle.children(persona_id, entry):
            parts.append(f'<div class="sv-muted">Lv.{child.level} {escape(_period(child))}</div>'
                         f"<div>{escape(child.content)}</div>")
    return "".join(parts) + "</div>"


def build_chronicle_panel(manager: CityPort, labels: Labels, persona: gr.Dropdown) -> tuple[Any, list[Any]]:
    """Components of the panel, wired; returns (refresh(persona_id) → updates, outputs)."""
    with gr.Row(equal_height=True, elem_classes=["sv-toolbar"]):
        level = gr.Dropdown([(labels("chr_all_levels"), 0)], value=0, label=labels("chr_level"),
                            elem_id="chronicle-level", scale=1)
        until = gr.Textbox(label=labels("chr_until"), elem_id="chronicle-until", scale=2)
        show = gr.Button(labels("chr_show"), elem_id="chronicle-show", scale=0, min_width=90)
        build = gr.Button(labels("chr_build"), elem_id="chronicle-build", variant="primary", scale=0, min_width=180)
    status = gr.HTML(elem_id="chronicle-status")
    table = gr.HTML(elem_id="chronicle-table")
    with gr.Row(equal_height=True):
        pick = gr.Dropdown([], label=labels("chr_detail"), elem_id="chronicle-pick", scale=3)
    detail = gr.HTML(elem_id="chronicle-detail")

    def listing(persona_id: str | None, lv: int | None, day: str | None) -> list[Any]:
        if not persona_id:
            return [gr.Dropdown(), table_html([], [], empty=labels("chr_empty")), gr.Dropdown(choices=[]), "", ""]
        before = None
        if (day or "").strip():
            try:  # the end of that local day, in the naive UTC the rows keep, as the Chronicle tools read it
                before = parse_day(day, "日付", end=True)
            except ValueError:
                return [gr.skip(), gr.skip(), gr.skip(), gr.skip(),
                        error_html(f"日付 {day!r} は YYYY-MM-DD の形ではありません。")]
        levels = manager.chronicle.levels(persona_id)
        entries = manager.chronicle.entries(persona_id, level=lv or None, before=before, limit=SHOWN)
        rows = [(e.entry_id[:8], f"Lv.{e.level}", _period(e), e.message_count, e.content,
                 f"⚠ {e.problem}" if e.problem else (labels("chr_consolidated") if e.is_consolidated else ""))
                for e in entries]
        headers = [labels(k) for k in ("col_id", "col_level", "col_period", "col_count", "col_summary", "col_state")]
        summary = ", ".join(f"Lv.{k} {v}" for k, v in sorted(levels.items())) or "—"
        body = f'<div class="sv-muted">{escape(labels("chr_levels", levels=summary))}</div>' + table_html(
            headers, rows, empty=labels("chr_empty"), elem_class="sv-memory")
        choices = [(labels("chr_all_levels"), 0)] + [(f"Lv.{k}", k) for k in sorted(levels)]
        picks = [(f"Lv.{e.level} {_period(e)} — {e.content[:30]}", e.entry_id) for e in entries]
        return [gr.Dropdown(choices=choices, value=lv if lv in levels else 0), body,
                gr.Dropdown(choices=picks, value=None), "", ""]

    def on_build(persona_id: str | None, lv: int | None, day: str | None) -> list[Any]:
        if not persona_id:
            return listing(persona_id, lv, day)
        try:
            report = manager.build_chronicle(persona_id)
        except Exception as exc:  # noqa: BLE001 - a model failure is shown, the panel stays usable
            return [*listing(persona_id, lv, day)[:4], error_html(str(exc))]
        n = len(report["created"])
        note = ok_html(labels("chr_built", n=n, m=report["messages"])) if n else ok_html(labels("chr_nothing"))
        return [*listing(persona_id, lv, day)[:4], note]

    def on_pick(persona_id: str | None, entry_id: str | None) -> str:
        if not persona_id or not entry_id:
            return ""
        try:
            return _detail_html(manager, persona_id, entry_id)
        except ValueError as exc:
            return error_html(str(exc))

    outs = [level, table, pick, detail, status]
    show.click(listing, [persona, level, until], outs)
    level.input(listing, [persona, level, until], outs)
    until.submit(listing, [persona, level, until], outs)
    build.click(on_build, [persona, level, until], outs)
    pick.input(on_pick, [persona, pick], detail)
    return (lambda persona_id: listing(persona_id, 0, "")), outs
