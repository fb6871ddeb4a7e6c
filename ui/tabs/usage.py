"""設定 tab, 💰 利用量 section: tokens per persona per day and what the priced (cloud) models cost; the
home's price table, edited here a model at a time (saved to `<home>/prices.json`, which may also be edited
by hand); and each persona's daily budget, after which she answers with the local model (saiverse/costs.py).
"""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

import gradio as gr

from saiverse.port import UserError, parse_prices
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html


class UsageOwner(Protocol):
    """What this section needs from the manager."""

    costs: Any
    world: Any


def _names(manager: UsageOwner) -> dict[str, str]:
    return {p.persona_id: p.name for p in manager.world.personas()}


def _usd(value: float | None) -> str:
    return "—" if value is None else f"${value:.4f}"


def usage_html(manager: UsageOwner, labels: Labels) -> str:
    """The last week's usage, newest day first, and each persona's day against her budget."""
    try:
        rows = manager.costs.usage(days=7)
    except UserError as exc:  # the price table does not read: say so, show nothing wrong
        return error_html(str(exc))
    names = _names(manager)
    used = table_html([labels(k) for k in ("us_day", "us_persona", "us_model", "us_in", "us_out", "us_calls",
                                           "us_cost")],
                      [(r.day, names.get(r.persona_id, r.persona_id), r.model, f"{r.input_tokens:,}",
                        f"{r.output_tokens:,}", r.calls, _usd(r.cost_usd)) for r in rows],
                      empty=labels("us_none"), elem_class="sv-usage")
    budgets = manager.costs.budgets()
    today = []
    for pid, name in names.items():
        spent = manager.costs.spent_today(pid)
        budget = budgets.get(pid)
        state = "—" if budget is None else labels("us_over" if spent >= budget else "us_under")
        today.append((name, _usd(spent), "—" if budget is None else f"${budget:.2f}", state))
    return used + table_html([labels(k) for k in ("us_persona", "us_today", "us_budget", "us_state")], today,
                             elem_class="sv-budgets")


def prices_html(manager: UsageOwner, labels: Labels) -> str:
    """The home's price table (or why it does not read)."""
    try:
        table = manager.costs.prices()
    except UserError as exc:
        return error_html(str(exc))
    return table_html([labels(k) for k in ("us_model", "us_price_in", "us_price_out")],
                      [(name, f"${p.input:g}", f"${p.output:g}") for name, p in sorted(table.items())],
                      elem_class="sv-prices")


def _price_names(manager: UsageOwner) -> list[str]:
    try:
        return sorted(manager.costs.prices())
    except UserError:
        return []


def build_usage_section(manager: UsageOwner, labels: Labels) -> TabRefresh:
    """Create the section's components in the current context and wire them."""
    gr.Markdown(f"### {labels('us_title')}")
    gr.HTML(f'<p class="sv-muted sv-note">{escape(labels("us_note", path=str(manager.costs.prices_path)))}</p>')
    table = gr.HTML(usage_html(manager, labels), elem_id="usage-table")
    with gr.Row(equal_height=False):
        with gr.Column(scale=2, min_width=320, elem_classes=["sv-form"]):
            gr.Markdown(f"#### {labels('us_budget_title')}")
            names = _names(manager)
            pick = gr.Dropdown([(n, pid) for pid, n in names.items()], value=None, label=labels("us_persona"),
                               elem_id="usage-budget-persona")
            amount = gr.Number(value=None, label=labels("us_budget_usd"), minimum=0, elem_id="usage-budget-usd")
            with gr.Row():
                budget_status = gr.HTML(elem_id="usage-budget-status")
                save_budget = gr.Button(labels("us_budget_save"), elem_id="usage-budget-save", scale=0, min_width=120)
        with gr.Column(scale=3, min_width=380, elem_classes=["sv-form"]):
            gr.Markdown(f"#### {labels('us_prices_title')}")
            prices = gr.HTML(prices_html(manager, labels), elem_id="usage-prices")
            with gr.Row():
                model = gr.Dropdown(_price_names(manager), value=None, allow_custom_value=True,
                                    label=labels("us_model"), elem_id="usage-price-model", scale=2)
                price_in = gr.Number(value=None, minimum=0, label=labels("us_price_in"), elem_id="usage-price-in")
                price_out = gr.Number(value=None, minimum=0, label=labels("us_price_out"), elem_id="usage-price-out")
            with gr.Row():
                price_status = gr.HTML(elem_id="usage-prices-status")
                save_prices = gr.Button(labels("us_prices_save"), elem_id="usage-prices-save", scale=0, min_width=120)

    def on_budget(persona_id: str | None, usd: float | None) -> list[Any]:
        if not persona_id:
            return [error_html(labels("us_pick")), gr.skip()]
        try:
            manager.costs.set_budget(persona_id, None if usd is None or usd == 0 else float(usd))
        except (UserError, ValueError) as exc:
            return [error_html(str(exc)), gr.skip()]
        said = labels("us_budget_saved" if usd else "us_budget_cleared", name=_names(manager).get(persona_id, ""))
        return [ok_html(said), usage_html(manager, labels)]

    def on_pick(persona_id: str | None) -> Any:
        return manager.costs.budgets().get(persona_id or "")

    def on_model(name: str | None) -> list[Any]:
        try:
            price = manager.costs.prices().get((name or "").strip().lower())
        except UserError:
            price = None
        return [price.input if price else None, price.output if price else None]

    def on_prices(name: str | None, usd_in: float | None, usd_out: float | None) -> list[Any]:
        key = (name or "").strip().lower()
        if not key or usd_in is None or usd_out is None:
            return [error_html(labels("us_price_need")), gr.skip(), gr.skip(), gr.skip()]
        try:
            table = manager.costs.prices()
            table[key] = parse_prices({"models": {key: {"input": usd_in, "output": usd_out}}},
                                      labels("us_prices_title"))[key]
            manager.costs.save_prices(table)
        except (UserError, ValueError) as exc:  # nothing is written; what was typed stays
            return [error_html(str(exc)), gr.skip(), gr.skip(), gr.skip()]
        return [ok_html(labels("us_prices_saved", name=key)), prices_html(manager, labels), usage_html(manager, labels),
                gr.Dropdown(choices=_price_names(manager))]

    pick.input(on_pick, pick, amount, show_progress="hidden")
    save_budget.click(on_budget, [pick, amount], [budget_status, table])
    model.input(on_model, model, [price_in, price_out], show_progress="hidden")
    save_prices.click(on_prices, [model, price_in, price_out], [price_status, prices, table, model])

    def refresh() -> list[Any]:
        return [usage_html(manager, labels), prices_html(manager, labels)]

    return TabRefresh(refresh, [table, prices], drawn=True)
