"""スケジュール tab: list persona schedules, add one (periodic / oneshot / interval), delete one."""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html

KINDS = ("periodic", "oneshot", "interval")


DAY_WORDS = {"daily": "sc_daily", "everyday": "sc_daily", "毎日": "sc_daily", "weekdays": "sc_weekdays",
             "平日": "sc_weekdays", "weekends": "sc_weekends", "週末": "sc_weekends"}
"""The spellings saiverse/world/_schedules.py `parse_days` reads besides day names → the label shown."""
DAYS = (("mon", "tue", "wed", "thu", "fri", "sat", "sun"), ("月", "火", "水", "木", "金", "土", "日"))


def _days(raw: str | None, labels: Labels) -> str:
    """A schedule's days as written, in the page's language (`mon,wed,fri` ↔ `月,水,金`, `daily` ↔ `毎日`)."""
    text = (raw or "daily").strip().lower()
    if text in DAY_WORDS:
        return labels(DAY_WORDS[text])
    names = labels("sc_day_names").split(",")
    shown = []
    for part in text.replace("、", ",").replace(" ", "").split(","):
        for spelling in DAYS:
            if part[:len(spelling[0])] in spelling:
                part = names[spelling.index(part[:len(spelling[0])])]
                break
        shown.append(part)
    return ",".join(shown)


def _when(s: Any, labels: Labels) -> str:
    if s.kind == "periodic":
        return f"{_days(s.days_of_week, labels)} {s.time_of_day}"
    if s.kind == "oneshot":
        return (s.run_at or "").replace("T", " ")
    return labels("sc_every", n=s.interval_sec)


def schedule_table(manager: CityPort, labels: Labels) -> str:
    """Every schedule: id, persona, when, playbook and args, next and last run."""
    names = {p.persona_id: f"{p.avatar} {p.name}" for p in manager.personas()}
    rows = [
        (s.schedule_id, names.get(s.persona_id, s.persona_id), labels(f"kind_{s.kind}"), _when(s, labels),
         s.meta_playbook + (f" {json.dumps(s.args, ensure_ascii=False)}" if s.args else ""),
         (s.next_run_at or "—").replace("T", " "), (s.last_run_at or "—").replace("T", " "))
        for s in manager.schedules.list()
    ]
    headers = [labels(k) for k in ("col_id", "col_name", "sc_kind", "col_when", "col_playbook", "col_next",
                                   "col_last")]
    return table_html(headers, rows, empty=labels("sc_empty"))


def _delete_choices(manager: CityPort, labels: Labels) -> list[tuple[str, str]]:
    return [(f"{s.schedule_id} — {s.persona_id} {_when(s, labels)}", s.schedule_id)
            for s in manager.schedules.list()]


def build_schedules_tab(manager: CityPort, labels: Labels) -> TabRefresh:
    """Create the tab's components in the current context and wire them."""
    manager.playbooks.reload()  # meta playbooks imported by the CLI: drawn as current as the refresh would
    personas = [(f"{p.avatar} {p.name}", p.persona_id) for p in manager.personas()]
    metas = [pb.name for pb in manager.playbooks.all() if pb.name.startswith("meta_")]
    table = gr.HTML(schedule_table(manager, labels), elem_id="schedule-table")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=420, elem_classes=["sv-form"]):
            with gr.Row():
                persona = gr.Dropdown(personas, value=personas[0][1] if personas else None,
                                      label=labels("sc_persona"), elem_id="schedule-persona")
                meta = gr.Dropdown(metas, value="meta_auto" if "meta_auto" in metas else None,
                                   label=labels("sc_meta"), elem_id="schedule-meta")
            kind = gr.Radio([(labels(f"kind_{k}"), k) for k in KINDS], value="periodic", label=labels("sc_kind"),
                            elem_id="schedule-kind")
            with gr.Row():
                days = gr.Textbox(label=labels("sc_days"), value=labels("sc_daily"), elem_id="schedule-days")
                time_of_day = gr.Textbox(label=labels("sc_time"), value="09:00", elem_id="schedule-time")
                run_at = gr.Textbox(label=labels("sc_run_at"), elem_id="schedule-run-at", visible=False)
                interval = gr.Number(label=labels("sc_interval"), value=3600, precision=0,
                                     elem_id="schedule-interval", visible=False)
            args = gr.Textbox(label=labels("sc_args"), value="{}", lines=2, elem_id="schedule-args")
            with gr.Row():
                status = gr.HTML(elem_id="schedule-status")
                add = gr.Button(labels("sc_add"), variant="primary", elem_id="schedule-add", scale=0, min_width=110)
        with gr.Column(scale=2, min_width=300, elem_classes=["sv-form"]):
            victim = gr.Dropdown(_delete_choices(manager, labels), label=labels("sc_pick"), elem_id="schedule-pick")
            delete = gr.Button(labels("sc_delete"), variant="stop", elem_id="schedule-delete")

    def on_kind(k: str) -> list[Any]:
        return [gr.Textbox(visible=k == "periodic"), gr.Textbox(visible=k == "periodic"),
                gr.Textbox(visible=k == "oneshot"), gr.Number(visible=k == "interval")]

    def on_add(persona_id: str | None, meta_name: str | None, k: str, days_v: str, time_v: str, run_v: str,
               interval_v: float | None, args_v: str) -> list[Any]:
        try:
            parsed = json.loads(args_v or "{}")
            if not isinstance(parsed, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            return [error_html(labels("sc_bad_args", error=str(exc))), gr.skip(), gr.skip()]
        spec: dict[str, Any] = {"kind": k, "meta_playbook": meta_name, "args": parsed}
        if k == "periodic":
            spec.update(days_of_week=days_v, time_of_day=time_v)
        elif k == "oneshot":
            spec["run_at"] = run_v
        else:
            spec["interval_sec"] = int(interval_v or 0)
        try:
            info = manager.add_schedule(persona_id or "", spec)
        except (ValueError, LookupError) as exc:  # ScheduleError / PlaybookError are ValueErrors
            return [error_html(str(exc)), gr.skip(), gr.skip()]
        return [ok_html(labels("sc_added", next=(info.next_run_at or "—").replace("T", " "))),
                schedule_table(manager, labels), gr.Dropdown(choices=_delete_choices(manager, labels))]

    def on_delete(schedule_id: str | None) -> list[Any]:
        if not schedule_id or not manager.schedules.delete(schedule_id):
            return [error_html(labels("sc_empty")), gr.skip(), gr.skip()]
        return [ok_html(labels("sc_deleted")), schedule_table(manager, labels),
                gr.Dropdown(choices=_delete_choices(manager, labels), value=None)]

    kind.change(on_kind, kind, [days, time_of_day, run_at, interval], show_progress="hidden")
    add.click(on_add, [persona, meta, kind, days, time_of_day, run_at, interval, args], [status, table, victim])
    delete.click(on_delete, victim, [status, table, victim])

    def refresh() -> list[Any]:
        manager.playbooks.reload()  # meta playbooks imported by the CLI
        return [schedule_table(manager, labels), gr.Dropdown(choices=_delete_choices(manager, labels)),
                gr.Dropdown(choices=[(f"{p.avatar} {p.name}", p.persona_id) for p in manager.personas()]),
                gr.Dropdown(choices=[pb.name for pb in manager.playbooks.all() if pb.name.startswith("meta_")])]

    return TabRefresh(refresh, [table, victim, persona, meta], drawn=True)
