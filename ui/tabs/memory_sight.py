"""The メモリ tab's 「この人に見えているもの」 panel: what a persona would be given for a message — every
part of the prompt with its tokens and cap, the reflex recall's lines with their score and why, the
pinned lines (and whether each fits), and the full text — from `CityPort.sight.context`, the same
assembly a pulse uses (saiverse/pulse/_sight.py; nothing written, no model run). Pins can be removed
here; they are added from a chat line's bar (ui/chat_actions.py)."""

from __future__ import annotations

from html import escape
from typing import Any

import gradio as gr

from saiverse.port import CityPort
from ui.chat import inert
from ui.i18n import Labels
from ui.tabs import error_html, ok_html, table_html

PARTS = ("system", "pinned", "core", "reflex", "chronicle", "history", "own")
CLIP = 80
_WRAP = "style='white-space:pre-wrap;overflow-wrap:anywhere'"


def _counted(labels: Labels, counted_by: str) -> str:
    if counted_by == "tokenizer":
        return labels("sight_counted_tokenizer")
    return labels("sight_counted_not_running" if "not running" in counted_by else "sight_counted_estimate")


COLOURS = {"system": "#6d74c9", "pinned": "#d9822b", "core": "#3a9d8f", "reflex": "#c2549d",
           "chronicle": "#8a6d3b", "history": "#4a90d9", "own": "#5cb85c"}
"""Each part's colour in the budget bar and its swatch in the table."""


def _swatch(name: str) -> str:
    return (f'<span style="display:inline-block;width:0.7em;height:0.7em;border-radius:2px;margin-right:0.4em;'
            f'background:{COLOURS[name]}"></span>')


def budget_bar(parts: dict[str, int], budget: int) -> str:
    """The budget as one bar: each part's share in its colour, what is left empty."""
    segs = "".join(
        f'<span title="{name} {tokens:,}" style="display:inline-block;height:100%;background:{COLOURS[name]};'
        f'width:{max(tokens * 100 / budget, 0.4):.2f}%"></span>'
        for name, tokens in parts.items() if tokens and budget > 0)
    return (f'<div id="sight-bar" style="display:flex;height:12px;border-radius:6px;overflow:hidden;margin:6px 0;'
            f'background:var(--neutral-200, #e4e6f0)">{segs}</div>')


def view_html(labels: Labels, view: Any) -> str:
    """The panel's body for one `ContextView`, escaped."""
    head = labels("sight_head", name=view.persona_name, building=view.building_name, message=inert(view.message))
    budget = labels("sight_budget", budget=f"{view.budget:,}", used=f"{view.input_tokens:,}", model=view.model or "-",
                    counted=_counted(labels, view.counted_by))
    out = [f'<div class="sv-sight-head">{escape(head)}</div>',
           f'<div class="sv-muted" id="sight-budget">{escape(budget)}</div>']
    rows = []
    for name in PARTS:
        label = labels("sight_part_history", kept=view.history_kept, of=view.history_of) if name == "history" \
            else labels(f"sight_part_{name}")
        cap = view.shares.get(name)
        rows.append(f'<tr data-part="{name}"><td style="font-family:inherit">{_swatch(name)}{escape(label)}</td>'
                    f'<td class="sv-num">{view.parts[name]:,}</td>'
                    f'<td class="sv-num">{"" if cap is None else f"{cap:,}"}</td></tr>')
    head = "".join(f"<th>{escape(labels(k))}</th>" for k in ("sight_col_part", "sight_col_tokens", "sight_col_cap"))
    out.append(budget_bar({k: view.parts[k] for k in PARTS}, view.budget))
    out.append(f'<div class="sv-table-wrap"><table class="sv-table sv-sight-parts" id="sight-parts"><thead><tr>{head}'
               f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    left_out = sum(1 for p in view.pins if not p["in_prompt"])
    notes = [n for n in view.notes if "ピン留め" not in n]  # the pins' note, in the window's language:
    notes += [labels("sight_pins_over", n=left_out)] if left_out else []
    out += [f'<div class="sv-muted sv-sight-note">{escape(n)}</div>' for n in notes]
    out.append(f"<h4>{escape(labels('sight_recalled'))}</h4>")
    if not view.reflex_on:
        out.append(f'<div class="sv-muted">{escape(labels("sight_reflex_off"))}</div>')
    recalled = [(labels("sight_lore") if r.score is None else f"{r.score:.2f}", _why(labels, r),
                 inert(r.line.removeprefix("- "))) for r in view.recalled]
    out.append(table_html([labels(k) for k in ("sight_col_score", "sight_col_why", "sight_col_line")], recalled,
                          empty=labels("sight_recalled_none"), elem_class="sv-memory sv-sight-recalled"))
    out.append(f"<h4>{escape(labels('sight_pins'))}</h4>")
    out.append(pins_html(labels, view.pins))
    said = escape(inert("\n\n".join(f"[{m['role']}] {m['content']}" for m in view.messages)))
    system = escape(inert(view.system))
    out.append(f"<details class='sv-sight-full'><summary>{escape(labels('sight_full'))}</summary>"
               f"<h5>{escape(labels('sight_system'))}</h5><pre id='sight-system' {_WRAP}>{system}</pre>"
               f"<h5>{escape(labels('sight_messages'))}</h5><pre id='sight-messages' {_WRAP}>{said}</pre>"
               "</details>")
    return "".join(out)


def _why(labels: Labels, r: Any) -> str:
    """Why a line was recalled, in the window's language (the domain says it in Japanese)."""
    if labels.lang == "ja":
        return str(r.why)
    if r.kind == "lore":
        return labels("sight_why_lore", key=r.terms[0] if r.terms else "")
    said = labels("sight_why_terms", terms=", ".join(f"“{t.replace('(弱)', ' (weak)')}”" for t in r.terms)) \
        if r.terms else labels("sight_why_any")
    return said + (labels("sight_why_older") if "以前" in r.why else "")


def pins_html(labels: Labels, pins: list[dict[str, Any]]) -> str:
    def fits(p: dict[str, Any]) -> str:
        return labels("sight_in_yes" if p["in_prompt"] else "sight_in_no") if "in_prompt" in p else "—"

    rows = [(f"#{p['message_id']}", fits(p), labels("you") if p["role"] == "user" else p["role"], _clip(p["content"]))
            for p in pins]
    return table_html(["#", labels("sight_col_in"), labels("col_role"), labels("col_content")], rows,
                      empty=labels("sight_pins_none"), elem_class="sv-memory sv-sight-pins")


def _clip(text: str) -> str:
    flat = inert(" ".join(str(text).split()))
    return flat if len(flat) <= CLIP else flat[:CLIP] + "…"


def build_sight_panel(manager: CityPort, labels: Labels, persona: gr.Dropdown) -> tuple[Any, list[Any]]:
    """Components of the panel; returns (refresh(persona_id) → updates, outputs)."""
    gr.Markdown(labels("sight_intro"), elem_classes=["sv-muted"])
    reflex = gr.Checkbox(label=labels("sight_reflex_switch"), value=True, elem_id="sight-reflex")
    with gr.Row(equal_height=True, elem_classes=["sv-toolbar"]):
        building = gr.Dropdown([], label=labels("sight_building"), elem_id="sight-building", scale=1)
        message = gr.Textbox(label=labels("sight_message"), placeholder=labels("sight_message_placeholder"),
                             elem_id="sight-message", scale=3, max_lines=4)
        show = gr.Button(labels("sight_show"), elem_id="sight-show", variant="primary", scale=0, min_width=100)
    body = gr.HTML(elem_id="sight-view")
    with gr.Row(equal_height=True, elem_classes=["sv-toolbar"]):
        pick = gr.Dropdown([], label=labels("sight_unpin_pick"), elem_id="sight-unpin-pick", scale=3)
        unpin = gr.Button(labels("sight_unpin"), elem_id="sight-unpin", scale=0, min_width=140)

    def pin_choices(persona_id: str | None) -> list[tuple[str, int]]:
        if not persona_id:
            return []
        return [(f"#{p.message_id} {_clip(p.content)}", p.message_id) for p in manager.sight.persona_pins(persona_id)]

    def on_show(persona_id: str | None, building_id: str | None, text: str) -> list[Any]:
        if not persona_id or not building_id:
            return [error_html(labels("mem_empty")), gr.skip()]
        if not (text or "").strip():
            return [error_html(labels("sight_empty_message")), gr.skip()]
        try:
            view = manager.sight.context(persona_id, building_id, text)
        except LookupError as exc:
            return [error_html(str(exc)), gr.skip()]
        choices = pin_choices(persona_id)
        return [view_html(labels, view), gr.Dropdown(choices=choices, value=choices[0][1] if choices else None)]

    def on_unpin(persona_id: str | None, message_id: Any, building_id: str | None, text: str) -> list[Any]:
        if not persona_id or message_id is None:
            return [gr.skip(), gr.skip()]  # nothing pinned, nothing picked
        manager.sight.unpin(persona_id, int(message_id))
        gr.Info(labels("sight_unpinned"))
        if (text or "").strip() and building_id:
            return on_show(persona_id, building_id, text)
        choices = pin_choices(persona_id)
        listed = [p.to_dict() for p in manager.sight.persona_pins(persona_id)] if persona_id else []
        return [ok_html(labels("sight_unpinned")) + pins_html(labels, listed),
                gr.Dropdown(choices=choices, value=choices[0][1] if choices else None)]

    def on_reflex(persona_id: str | None, on: bool) -> Any:
        if not persona_id:
            return gr.skip()
        try:
            manager.sight.set_reflex(persona_id, bool(on))
        except LookupError as exc:
            gr.Warning(str(exc))
            return gr.Checkbox(value=not on)
        gr.Info(labels("sight_reflex_now_on" if on else "sight_reflex_now_off"))
        return gr.skip()

    reflex.input(on_reflex, [persona, reflex], [reflex])
    show.click(on_show, [persona, building, message], [body, pick])
    message.submit(on_show, [persona, building, message], [body, pick])
    unpin.click(on_unpin, [persona, pick, building, message], [body, pick])

    def refresh(persona_id: str | None) -> list[Any]:
        choices = [(b.name, b.building_id) for b in manager.buildings()]
        here = None
        if persona_id:
            try:
                here = manager.world.persona(persona_id).building_id
            except LookupError:
                here = None
        pins = pin_choices(persona_id)
        listed = [p.to_dict() for p in manager.sight.persona_pins(persona_id)] if persona_id else []
        return [gr.Dropdown(choices=choices, value=here or (choices[0][1] if choices else None)),
                f"<h4>{escape(labels('sight_pins'))}</h4>" + pins_html(labels, listed),
                gr.Dropdown(choices=pins, value=pins[0][1] if pins else None),
                gr.Checkbox(value=manager.sight.reflex_on(persona_id) if persona_id else True)]

    return refresh, [building, body, pick, reflex]
