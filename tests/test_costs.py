"""Cost in sight: every pulse's model calls are counted per persona, day and model; the home's price
table (an editable file) prices the cloud ones; a persona over her daily budget answers with the local
model, saying so; `python main.py usage` shows it all and sets budgets — run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from saiverse.costs import PriceTableError
from saiverse.manager import SAIVerseManager
from tests.support.models import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]


def _cloud() -> ScriptedModel:
    model = ScriptedModel(follows_instructions=False)
    model.name = "gpt-4.1"  # type: ignore[misc]  # a priced cloud model, as the table names it
    return model


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "--home", str(home), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.backends("sqlite", "postgresql")  # the upsert and the budget's reads run on both
def test_usage_is_counted_priced_and_a_budget_hands_her_the_local_model(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path) -> None:
    model = _cloud()
    manager = make_manager(model)
    list(manager.handle_user_input("library", "星の話をして", persona_id="mina"))
    [row] = manager.costs.usage(days=1)
    assert (row.persona_id, row.model) == ("mina", "gpt-4.1") and row.calls >= 2  # the router and the reply
    assert row.input_tokens > 0 and row.output_tokens > 0
    assert row.cost_usd == pytest.approx((row.input_tokens * 2.0 + row.output_tokens * 8.0) / 1e6)
    prices = json.loads((saiverse_home / "prices.json").read_text(encoding="utf-8"))
    assert prices["models"]["gpt-4.1"] == {"input": 2.0, "output": 8.0}
    assert (saiverse_home / "prices.json").stat().st_mode & 0o777 == 0o600

    manager.costs.set_budget("mina", row.cost_usd / 2)  # already used up today
    asked = len(model.history)
    events = list(manager.handle_user_input("library", "もう一つ話して", persona_id="mina"))
    notices = [e for e in events if e["type"] == "notice" and e.get("kind") == "budget"]
    assert notices and "今日の予算" in notices[0]["text"] and "ローカルモデル" in notices[0]["text"]
    assert len(model.history) == asked  # the priced model was not asked
    end = events[-1]
    assert end["type"] == "pulse_end" and end["model"] != "gpt-4.1"
    assert any(r.model != "gpt-4.1" for r in manager.costs.usage(days=1))  # the local calls are counted too

    manager.costs.set_budget("mina", None)
    list(manager.handle_user_input("library", "ありがとう", persona_id="mina"))
    assert len(model.history) > asked  # no budget: the cloud model answers again


def test_the_budget_notice_follows_the_language(make_manager: Callable[..., SAIVerseManager],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    manager = make_manager(_cloud())
    manager.costs.record("mina", [("gpt-4.1", 1000, 1000)])
    manager.costs.set_budget("mina", 0.001)
    events = list(manager.handle_user_input("library", "hello", persona_id="mina"))
    [notice] = {e["text"] for e in events if e["type"] == "notice" and e.get("kind") == "budget"}
    assert notice.startswith("ミナ has used up today's budget of $0.001") and "local model" in notice


def test_the_price_table_is_the_homes_to_edit(manager: SAIVerseManager, saiverse_home: Path) -> None:
    path = saiverse_home / "prices.json"
    manager.costs.prices()  # written with the defaults the first time
    table = json.loads(path.read_text(encoding="utf-8"))
    table["models"]["my-cloud"] = {"input": 1.0, "output": 3.0}
    path.write_text(json.dumps(table), encoding="utf-8")
    price = manager.costs.price_of("my-cloud-2025")  # the longest key the name starts with
    assert price is not None and (price.input, price.output) == (1.0, 3.0)
    assert manager.costs.price_of("gemini:gemini-2.5-flash-001").output == 2.5  # type: ignore[union-attr]
    assert manager.costs.price_of("local:gemma-3-270m").input == 0  # type: ignore[union-attr]
    assert manager.costs.price_of("openai:llama3") is None  # a model of one's own server: no price
    path.write_text('{"models": {"gpt-4.1": {"input": -1, "output": 2}}}', encoding="utf-8")
    with pytest.raises(PriceTableError, match="gpt-4.1 input は 0 以上の数"):
        manager.costs.prices()
    assert "-1" in path.read_text(encoding="utf-8")  # a bad table is refused, never overwritten


def test_usage_from_the_cli(make_manager: Callable[..., SAIVerseManager], saiverse_home: Path) -> None:
    manager = make_manager(_cloud())
    list(manager.handle_user_input("library", "こんにちは", persona_id="mina"))
    manager.close()
    done = _cli(saiverse_home, "usage")
    assert done.returncode == 0, done.stderr
    assert "ミナ (mina)  gpt-4.1:" in done.stdout and "料金表:" in done.stdout and "$0.0" in done.stdout
    done = _cli(saiverse_home, "usage", "--budget", "mina", "0.25", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["budgets"] == {"mina": 0.25} and data["usage"][0]["model"] == "gpt-4.1"
    refused = _cli(saiverse_home, "usage", "--budget", "mina", "たくさん")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--budget" in refused.stderr
    assert "Traceback" not in refused.stderr
    unknown = _cli(saiverse_home, "usage", "--budget", "nobody", "1")
    assert unknown.returncode == 2 and "nobody" in unknown.stderr


@pytest.mark.chronicle_by_hand
def test_calls_outside_a_chat_are_counted_for_the_persona(make_manager: Callable[..., SAIVerseManager]) -> None:
    """A production run's plan and chapters and a Chronicle summary call the model with no chat pulse:
    each call is counted for the persona it was made for, in the table the panel, the CLI and the budget read."""
    from tests.support.ltm_helpers import converse

    model = ScriptedModel(follows_instructions=True)
    model.name = "gpt-4.1"  # type: ignore[misc]
    manager = make_manager(model)
    summary = manager.production.start("sora", "atelier", "作品を作って: 灯台守の一日", lambda _e: None)
    assert summary.finished
    asked = len(model.history)
    [sora] = [r for r in manager.costs.usage(days=1) if r.persona_id == "sora"]
    assert sora.model == "gpt-4.1" and sora.calls == asked >= 2  # the plan and each chapter, no more, no less
    assert sora.input_tokens > 0 and sora.output_tokens > 0 and sora.cost_usd > 0

    converse(manager, 70)  # written straight into her memory: no pulse, so nothing counted yet
    assert not [r for r in manager.costs.usage(days=1) if r.persona_id == "mina"]
    built = manager.chronicle_builder.build_due("mina")
    assert built.created
    [mina] = [r for r in manager.costs.usage(days=1) if r.persona_id == "mina"]
    assert mina.calls == len(model.history) - asked >= 1 and mina.output_tokens > 0
    assert manager.costs.spent_today("mina") > 0  # the daily budget sees them too


def test_an_items_summary_is_counted_for_the_persona_whose_tool_asked(
        saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """document_create asks the persona's lightweight model (a real Gemini client, a loopback server) for
    the summary: that call is hers in the usage table, with the tokens the server reported."""
    from saiverse.settings import load_settings
    from tests.support.fakes_llm import FakeServer, Reply, gemini_parts

    with FakeServer() as fake:
        fake.fallback = Reply(json=gemini_parts([{"text": "灯台の記録の要約です。"}], prompt_tokens=40, output_tokens=12))
        monkeypatch.setenv("GEMINI_API_KEY", "test-key-123")
        monkeypatch.setenv("SAIVERSE_GEMINI_BASE_URL", fake.url)
        manager = SAIVerseManager(load_settings())
        try:
            manager.admin.update_persona("mina", {"lightweight_model": "gemini-test-lite"})
            manager.run_tool("document_create", "mina", None,
                             {"name": "灯台の記録", "description": "d", "content": "灯台の話。" * 40})
            assert [r.persona_id for r in manager.costs.usage(days=1)] == ["mina"]
            [row] = manager.costs.usage(days=1)
            assert (row.model, row.calls, row.input_tokens, row.output_tokens) == ("gemini-test-lite", 1, 40, 12)
            manager.items.create_document("あなたのメモ", "ユーザーが書いた。" * 10, owner_kind="building",
                                          owner_id="library", summary_model="gemini-test-lite")
            assert manager.costs.usage(days=1)[0].calls == 1  # the user's own document: no persona to charge
        finally:
            manager.close()
