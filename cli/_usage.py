"""The CLI command `usage`: tokens per persona per day and what the priced (cloud) models cost, from the
home's price table; `--budget PERSONA USD` sets a persona's daily budget (`--budget PERSONA none` clears
it). See saiverse/costs.py.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from cli._args import whole
from cli._frame import add_json, command, print_json, world
from saiverse.errors import UsageError
from words import say


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    p = command(sub, usage)
    p.add_argument("--days", type=whole(1, 3660), default=7, help="how many days back, today included (default 7)")
    p.add_argument("--persona", help="only this persona")
    p.add_argument("--budget", nargs=2, metavar=("PERSONA", "USD"),
                   help="set PERSONA's daily budget in US dollars (none: no budget)")
    add_json(p, "print one JSON object")


def _budget(raw: str) -> float | None:
    if raw.strip().lower() in ("none", "off", "-"):
        return None
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(say("budget_not_number", raw=raw[:40])) from None
    if not math.isfinite(value) or value < 0:
        raise UsageError(say("budget_negative", raw=raw[:40]))
    return value


def usage(args: argparse.Namespace) -> int:
    """tokens per persona per day and their price; --budget sets a persona's daily budget"""
    with world(args) as manager:
        costs = manager.costs
        if args.budget:
            persona = manager.world.persona(args.budget[0])  # an unknown persona: a one-line refusal
            costs.set_budget(persona.persona_id, _budget(args.budget[1]))
        if args.persona:
            manager.world.persona(args.persona)
        rows = costs.usage(days=args.days, persona_id=args.persona)
        budgets = costs.budgets()
        names = {p.persona_id: p.name for p in manager.world.personas()}
        if args.json:
            print_json({"days": args.days, "prices": str(costs.prices_path), "budgets": budgets,
                        "usage": [r.to_dict() for r in rows]})
            return 0
        print(say("out_prices", path=costs.prices_path))
        if not rows:
            print(say("out_no_calls"))
        for r in rows:
            cost = "—" if r.cost_usd is None else f"${r.cost_usd:.4f}"
            print(say("out_usage_row", day=r.day, name=names.get(r.persona_id, r.persona_id), id=r.persona_id,
                      model=r.model, took=r.input_tokens, gave=r.output_tokens, calls=r.calls, cost=cost))
        for pid, usd in sorted(budgets.items()):
            spent = costs.spent_today(pid)
            print(say("out_budget_row", name=names.get(pid, pid), id=pid, usd=usd, spent=spent,
                      over=say("out_budget_over") if spent >= usd else ""))
    return 0
