"""The building views: the chat header, the right-hand building panel and the clickable item list.

Everything here renders HTML strings from what `SAIVerseManager.building_view()` returns; the app
puts them in `gr.HTML` components. Names come from users and models, so every piece of text is
escaped here — the HTML component inserts the value verbatim (`${value}`), it never re-templates it.
"""

from __future__ import annotations

from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote

from saiverse.port import short_id
from ui.i18n import ITEM_ICONS, Labels, item_icon
from ui.model_lines import model_badge, persona_model_title

ITEM_LIST_JS = """
// One delegated listener on the component root: it survives every re-render of the list
// (the root element stays, only its innerHTML is replaced when the item list refreshes).
element.addEventListener('click', (ev) => {
  const row = ev.target.closest('[data-item-id]');
  if (row && element.contains(row)) {
    trigger('click', {item_id: row.dataset.itemId});
  }
});
"""
"""js_on_load of the item list: a click on a row sends its item id to the server as EventData."""


def _attr(value: Any, name: str, default: Any = "") -> Any:
    """Read a field from a dataclass or a dict (events carry items as dicts)."""
    if isinstance(value, dict):
        return value.get(name, default)
    return getattr(value, name, default)


def avatar_html(persona: Any, picture: str | None) -> str:
    """A persona's avatar: its picture (served from the home's icons/) or its emoji."""
    if picture:
        return (f'<img class="sv-avatar sv-avatar-img" alt="{escape(_attr(persona, "avatar") or "")}" '
                f'src="/gradio_api/file={escape(quote(picture))}">')
    return f'<span class="sv-avatar">{escape(_attr(persona, "avatar") or "👤")}</span>'


def persona_chips(personas: list[Any], labels: Labels, models: dict[str, Any] | None = None,
                  avatars: dict[str, str] | None = None) -> str:
    """Avatar + name chips of the personas present, or a quiet 'nobody' line; with `models`
    (building_view's), each chip says which model answers for it (ui/model_lines.py); with
    `avatars` (persona id → picture path), the picture is drawn instead of the emoji."""
    if not personas:
        return f'<span class="sv-muted">{escape(labels("nobody"))}</span>'
    models = models or {}

    def chip(p: Any) -> str:
        model = models.get(_attr(p, "persona_id"))
        title = " / ".join(t for t in (_attr(p, "description"), persona_model_title(model)) if t)
        return (f'<span class="sv-persona" data-persona-id="{escape(_attr(p, "persona_id"))}" title="{escape(title)}">'
                f'{avatar_html(p, (avatars or {}).get(_attr(p, "persona_id")))}'
                f'<span class="sv-name">{escape(_attr(p, "name"))}</span>{model_badge(model, labels)}</span>')

    chips = "".join(chip(p) for p in personas)
    return f'<span class="sv-personas">{chips}</span>'


def header_html(view: dict[str, Any], labels: Labels) -> str:
    """The chat header: the building's name and who is present."""
    building = view["building"]
    # data-building-id: what this window shows; ui/fit.py keeps it for a reload of this tab.
    return (
        f'<div class="sv-header" data-building-id="{escape(building.building_id)}">'
        f'<span class="sv-header-title">{escape(building.name)}</span>'
        f'<span class="sv-header-sep">—</span>'
        f'{persona_chips(view["personas"], labels, view.get("models"), view.get("avatars"))}'
        "</div>"
    )


def building_panel_html(view: dict[str, Any], labels: Labels) -> str:
    """The top of the right panel: building name, description, personas present, and the plan of
    the production working here (live: steps with their status)."""
    building = view["building"]
    description = escape(building.description or "")
    return (
        '<div class="sv-building">'
        f'<div class="sv-building-title">🏢 {escape(building.name)}</div>'
        f'<p class="sv-building-desc">{description}</p>'
        f'<div class="sv-section">{escape(labels("present"))}</div>'
        f"{persona_chips(view['personas'], labels, view.get('models'), view.get('avatars'))}"
        f"{plan_html(view.get('production'), labels)}"
        "</div>"
    )


_STEP_ICON = {"pending": "○", "in_progress": "▶", "completed": "✓", "blocked": "⚠"}


def plan_html(production: dict[str, Any] | None, labels: Labels) -> str:
    """The plan panel (`#plan-panel`): one row per step — icon, worker, title, status."""
    if not production or not production.get("plan"):
        return ""
    rows = []
    for step in production["plan"]:
        status = str(step.get("status") or "pending")
        rows.append(
            f'<li class="sv-step sv-step-{escape(status)}" data-step-status="{escape(status)}">'
            f'<span class="sv-step-icon">{_STEP_ICON.get(status, "○")}</span>'
            f'<span class="sv-step-title">{escape(str(step.get("title") or ""))}</span>'
            f'<span class="sv-step-cap">{escape(str(step.get("capability") or ""))}</span>'
            f"{step_time_html(step, labels)}</li>"
        )
    note = escape(str(production.get("note") or ""))
    return (f'<div id="plan-panel" class="sv-plan"><div class="sv-section">{escape(labels("plan"))}</div>'
            f'<div class="sv-plan-note">{note}</div><ol class="sv-steps">{"".join(rows)}</ol></div>')


def step_time_html(step: dict[str, Any], labels: Labels) -> str:
    """When a step started (HH:MM:SS) and how long it took, or that it is at work: a run that takes a
    second still shows its steps going one after another."""
    started, finished = step.get("started_at"), step.get("finished_at")
    if not isinstance(started, int | float):
        return ""
    clock = datetime.fromtimestamp(started).strftime("%H:%M:%S")
    if isinstance(finished, int | float) and step.get("status") in ("completed", "blocked"):
        text = labels("step_took", clock=clock, seconds=f"{max(finished - started, 0):.1f}")
    else:
        text = labels("step_running", clock=clock)
    return f'<span class="sv-step-time">{escape(text)}</span>'


def item_list_html(items: list[Any], labels: Labels) -> str:
    """The item list: one button per item, carrying its id in `data-item-id`."""
    head = f'<div class="sv-section">{escape(labels("items"))}</div>'
    if not items:
        return f'{head}<div class="sv-muted sv-empty">{escape(labels("no_items"))}</div>'
    rows = []
    for item in items:
        item_type = _attr(item, "type", "object")
        short = short_id(_attr(item, "slot_number", None))  # `item:N`, as the modal and the tools say it
        kind = labels(f"type_{item_type}") if item_type in ITEM_ICONS else item_type
        rows.append(
            f'<button type="button" class="sv-item sv-item-{escape(item_type)}" '
            f'data-item-id="{escape(_attr(item, "item_id"))}" '
            f'data-item-type="{escape(item_type)}" title="{escape(labels("item_hint"))}">'
            f'<span class="sv-item-icon">{item_icon(item_type)}</span>'
            f'<span class="sv-item-name">{escape(_attr(item, "name"))}</span>'
            f'<span class="sv-item-kind">{escape(kind)}</span>'
            + (f'<code class="sv-item-short">{escape(short)}</code>' if short else "") + "</button>"
        )
    return f'{head}<div class="sv-items">{"".join(rows)}</div>'


def building_choices(buildings: list[Any]) -> list[tuple[str, str]]:
    """(label, building_id) pairs for the building selector."""
    return [(b.name, b.building_id) for b in buildings]
