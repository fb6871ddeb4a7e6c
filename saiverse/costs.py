"""Cost in sight: the tokens each persona's pulses spend, per day and model; what the cloud models cost;
and a daily budget per persona, after which she answers with the local model.

- **Usage** (`usage_day`, database step 15): a pulse's model calls — (model, input, output tokens), each
  counted by the model or, for a stream, estimated (sea/llm_node.py) — are added to the persona's local
  day in one upsert when the pulse ends (saiverse/pulse/_controller.py `_record_spent`).
- **Prices** live in the home, `<home>/prices.json` (0600, written atomically), a table the person edits
  (the 設定 tab's 💰 利用量 panel, or by hand): US dollars per million input and output tokens, by model
  name; a name not in it takes the longest key it starts with (`gemini-2.5-flash` covers
  `gemini-2.5-flash-001`); the local and offline models cost nothing. A file that does not read is
  refused with the reason, never overwritten.
- **Budget** (`persona_budget`): dollars a day. Once her priced calls today reach it, `guarded` hands her
  the local model instead of a priced one, with a `budget` notice the chat shows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

from chat import ChatModel, ModelNotice
from database.engine import Database
from saiverse.disk import atomic_write
from saiverse.errors import UserError
from words import say

PRICES_FILE = "prices.json"
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "offline": (0.0, 0.0),
    "local": (0.0, 0.0),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}
"""The table a new home starts with (list prices, USD per million input / output tokens); the person
edits it to their plan."""

ModelResolver = Callable[[Any, str], tuple[ChatModel, "str | None"]]


class PriceTableError(UserError):
    """`prices.json` does not read as a price table; the message says where and why."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float

    def of(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass
class UsageRow:
    """One persona's use of one model on one day."""

    day: str
    persona_id: str
    model: str
    input_tokens: int
    output_tokens: int
    calls: int
    cost_usd: float | None
    """None: the model has no price in the table."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def usd(value: float) -> str:
    """Dollars as a person reads them: cents, or the digits that matter below a cent."""
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.6f}".rstrip("0")


def today() -> str:
    return date.today().isoformat()


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise PriceTableError(say("price_not_number", where=where, value=value))
    return float(value)


def parse_prices(raw: Any, source: str = PRICES_FILE) -> dict[str, Price]:
    """`{"models": {name: {"input": n, "output": n}}}` → the table (PriceTableError saying what is wrong)."""
    models = raw.get("models") if isinstance(raw, dict) else None
    if not isinstance(models, dict):
        raise PriceTableError(say("price_no_table", source=source))
    table: dict[str, Price] = {}
    for name, row in models.items():
        key = str(name).strip().lower()
        if not key or not isinstance(row, dict):
            raise PriceTableError(say("price_bad_row", source=source, name=name))
        table[key] = Price(_number(row.get("input"), say("price_where", source=source, name=name, part="input")),
                           _number(row.get("output"), say("price_where", source=source, name=name, part="output")))
    return table


class Costs:
    """Usage, prices and budgets of one world and its home."""

    def __init__(self, db: Database, home: Path, lang: Callable[[], str] = lambda: "ja") -> None:
        self.db = db
        self.home = home
        self.lang = lang
        """The language the budget notice is said in (SAIVERSE_LANG)."""

    # ---- prices ---------------------------------------------------------------------------------
    @property
    def prices_path(self) -> Path:
        return self.home / PRICES_FILE

    def prices(self) -> dict[str, Price]:
        """The home's price table (written with `DEFAULT_PRICES` the first time it is asked for)."""
        path = self.prices_path
        if not path.exists():
            self.save_prices({k: Price(*v) for k, v in DEFAULT_PRICES.items()})
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise PriceTableError(say("price_unreadable", path=path, why=exc)) from exc
        return parse_prices(raw, str(path))

    def save_prices(self, table: dict[str, Price]) -> None:
        """Write the table (sorted, one model a line), atomically and private to this user."""
        body = {"currency": "USD", "per": "1,000,000 tokens",
                "models": {k: {"input": p.input, "output": p.output} for k, p in sorted(table.items())}}
        atomic_write(self.prices_path, json.dumps(body, ensure_ascii=False, indent=1) + "\n")

    def price_of(self, model: str, table: dict[str, Price] | None = None) -> Price | None:
        """The price of a model by name: exact, else the longest key the name starts with; None if unknown."""
        table = self.prices() if table is None else table
        name = model.strip().lower()
        if name in table:
            return table[name]
        name = name.split(":", 1)[1] if name.split(":", 1)[0] in ("gemini", "openai", "anthropic") else name
        if name.split(":", 1)[0] in ("local", "offline"):
            return table.get(name.split(":", 1)[0])
        keys = [k for k in table if name.startswith(k)]
        return table[max(keys, key=len)] if keys else None

    # ---- usage ----------------------------------------------------------------------------------
    def record(self, persona_id: str, spent: list[tuple[str, int, int]], day: str | None = None) -> None:
        """Add a pulse's calls to the persona's day, by model, in one transaction."""
        by_model: dict[str, list[int]] = {}
        for model, took, gave in spent:
            row = by_model.setdefault(str(model) or "?", [0, 0, 0])
            row[0] += max(0, int(took))
            row[1] += max(0, int(gave))
            row[2] += 1
        with self.db.session() as s:
            for model, (took, gave, calls) in by_model.items():
                s.execute(text(
                    "INSERT INTO usage_day (PERSONA_ID, DAY, MODEL, INPUT_TOKENS, OUTPUT_TOKENS, CALLS) "
                    "VALUES (:p, :d, :m, :i, :o, :c) ON CONFLICT (PERSONA_ID, DAY, MODEL) DO UPDATE SET "
                    "INPUT_TOKENS = usage_day.INPUT_TOKENS + excluded.INPUT_TOKENS, "
                    "OUTPUT_TOKENS = usage_day.OUTPUT_TOKENS + excluded.OUTPUT_TOKENS, "
                    "CALLS = usage_day.CALLS + excluded.CALLS"),
                    {"p": persona_id, "d": day or today(), "m": model, "i": took, "o": gave, "c": calls})

    def usage(self, *, days: int = 7, persona_id: str | None = None) -> list[UsageRow]:
        """The last `days` days' usage (today included), newest day first, with each row's price."""
        since = (date.today() - timedelta(days=max(1, days) - 1)).isoformat()
        query = ("SELECT DAY, PERSONA_ID, MODEL, INPUT_TOKENS, OUTPUT_TOKENS, CALLS FROM usage_day WHERE DAY >= :s"
                 + (" AND PERSONA_ID = :p" if persona_id else "") + " ORDER BY DAY DESC, PERSONA_ID, MODEL")
        with self.db.engine.connect() as conn:
            rows = conn.execute(text(query), {"s": since, "p": persona_id}).all()
        table = self.prices()
        out = []
        for day, pid, model, took, gave, calls in rows:
            price = self.price_of(str(model), table)
            out.append(UsageRow(str(day), str(pid), str(model), int(took), int(gave), int(calls),
                                None if price is None else price.of(int(took), int(gave))))
        return out

    def spent_today(self, persona_id: str) -> float:
        """Dollars the persona's priced calls cost today."""
        return sum(r.cost_usd or 0.0 for r in self.usage(days=1, persona_id=persona_id))

    # ---- budgets --------------------------------------------------------------------------------
    def budgets(self) -> dict[str, float]:
        with self.db.engine.connect() as conn:
            return {str(p): float(v) for p, v in conn.execute(text("SELECT PERSONA_ID, DAILY_USD FROM persona_budget"))}

    def set_budget(self, persona_id: str, usd: float | None) -> None:
        """Dollars a day for the persona (None: no budget)."""
        if usd is not None:
            usd = _number(usd, say("price_budget"))
        with self.db.session() as s:
            s.execute(text("DELETE FROM persona_budget WHERE PERSONA_ID = :p"), {"p": persona_id})
            if usd is not None:
                s.execute(text("INSERT INTO persona_budget (PERSONA_ID, DAILY_USD) VALUES (:p, :u)"),
                          {"p": persona_id, "u": usd})

    def over_budget(self, persona_id: str) -> tuple[float, float] | None:
        """(spent today, budget) once today's priced calls reached the persona's budget; else None."""
        budget = self.budgets().get(persona_id)
        if budget is None:
            return None
        spent = self.spent_today(persona_id)
        return (spent, budget) if spent >= budget else None

    def guarded(self, resolve: ModelResolver, local: ModelResolver) -> ModelResolver:
        """`resolve`, except that a persona over her budget gets `local`'s model instead of a priced one,
        with a `budget` notice saying so."""

        def model_for(persona: Any, kind: str) -> tuple[ChatModel, str | None]:
            model, notice = resolve(persona, kind)
            persona_id = str((persona or {}).get("persona_id") or "")
            price = self.price_of(model.name) if persona_id else None
            if price is None or (price.input == 0 and price.output == 0):
                return model, notice
            over = self.over_budget(persona_id)
            if over is None:
                return model, notice
            instead, _why = local(persona, kind)
            name = (persona or {}).get("name") or persona_id
            said = say("budget_used_up", lang=self.lang(), name=name, budget=usd(over[1]), spent=usd(over[0]),
                       model=model.name, local=instead.name)
            return instead, ModelNotice(said, kind="budget")

        return model_for
