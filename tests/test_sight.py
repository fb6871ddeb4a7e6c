"""See what she sees and pins (issue 33, items 3 and 4; saiverse/pulse/_sight.py, saiverse/memory/_pins.py):
`python main.py context` shows the prompt a pulse would build, part by part, without a model or a write;
a pinned line is always in her prompt, within its share of the budget; pins survive kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from saiverse.manager import SAIVerseManager
from saiverse.memory import PIN_HEADER
from saiverse.memory._reflex import HEADER
from tests.support.models import ScriptedModel

P = "mina"
ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _fill(m: SAIVerseManager) -> int:
    """An old fact far outside the verbatim window, a month of other talk; returns the fact's id."""
    start = datetime.now() - timedelta(days=40)
    fact = m.memory.add(P, "user", "駅前のさくらクリニックで診てもらったら、寝不足と眼精疲労だって。",
                        tags=["conversation"], created_at=start)
    for i in range(300):
        m.memory.add(P, "user" if i % 2 == 0 else "assistant", f"今日は雨だったね。夕ごはんはカレーにした（{i}）。",
                     tags=["conversation"], created_at=start + timedelta(days=1, minutes=10 * i))
    return int(fact["id"])


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_the_view_is_the_prompt_the_pulse_builds(make_manager: Callable[..., SAIVerseManager], store: str,
                                                  request: pytest.FixtureRequest,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if store == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    model = ScriptedModel()
    m = make_manager(model)
    _fill(m)
    pinned = m.memory.add(P, "user", "私の猫の名前はモカです。", tags=["conversation"],
                          created_at=datetime.now() - timedelta(days=90))["id"]
    assert m.sight.pin(P, pinned) is True and m.sight.pin(P, pinned) is False
    ask = "このまえ医者に何て言われたか覚えてる？"
    before = m.memory.count(P)
    view = m.sight.context(P, "library", ask)
    assert m.memory.count(P) == before and model.history == []  # nothing written, no model asked
    assert PIN_HEADER in view.system and "私の猫の名前はモカです。" in view.sections["pinned"]
    assert HEADER in view.system and "さくらクリニック" in view.sections["reflex"]
    assert view.messages[-1] == {"role": "user", "content": ask}
    hit = next(r for r in view.recalled if "さくらクリニック" in r.line)
    assert hit.kind == "message" and hit.score and hit.score > 0 and "一致" in hit.why and hit.terms
    assert view.parts["pinned"] > 0 and view.parts["reflex"] > 0 and view.parts["history"] > 0
    assert view.history_kept < view.history_of or view.history_of > 0
    assert view.input_tokens <= view.budget == 8_000
    assert view.pins[0]["message_id"] == pinned and view.pins[0]["in_prompt"] is True
    list(m.handle_user_input("library", ask, persona_id=P))
    assert model.history[0].system == view.system  # the very prompt the pulse's first model call got


def test_pins_beyond_their_share_are_left_out_and_named(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    with m.db.engine.begin() as conn:
        conn.execute(text("UPDATE ai SET CONTEXT_TOKENS = 1000 WHERE AIID = :p"), {"p": P})
    ids = [m.memory.add(P, "user", f"大事なこと{i}: " + "忘れないでほしいことがたくさんあります。" * 3,
                        tags=["conversation"])["id"] for i in range(6)]
    for mid in ids:
        m.sight.pin(P, mid)
    view = m.sight.context(P, "library", "こんにちは")
    kept = [p["in_prompt"] for p in view.pins]
    assert kept[0] and not kept[-1] and kept == sorted(kept, reverse=True)  # the first pinned stay
    assert view.parts["pinned"] <= view.shares["pinned"] == 150
    assert f"ほかにピン留めが {kept.count(False)} 件" in view.sections["pinned"]
    assert any("上限" in n for n in view.notes)
    assert m.sight.unpin(P, ids[0]) is True and m.sight.unpin(P, ids[0]) is False
    assert [p.message_id for p in m.sight.persona_pins(P)] == ids[1:]


def test_a_chat_line_pins_in_each_rememberers_memory_and_goes_with_it(manager: SAIVerseManager) -> None:
    list(manager.handle_user_input("library", "私の誕生日は3月3日です", persona_id=P))
    lines = manager.history("library")
    user = next(e for e in lines if e.speaker_kind == "user")
    reply = next(e for e in lines if e.speaker_kind == "persona")
    done = manager.sight.pin_line("library", user.id)
    assert done.who == ["ミナ"] and done.fits
    assert manager.sight.line_pins("library", user.id) == done.pinned
    assert [p.content for p in manager.sight.persona_pins(P)] == ["私の誕生日は3月3日です"]
    manager.sight.pin_line("library", reply.id)
    assert len(manager.sight.persona_pins(P)) == 2
    manager.sight.unpin_line("library", reply.id)
    assert manager.sight.line_pins("library", reply.id) == {}
    view = manager.sight.context(P, "library", "誕生日いつだっけ")
    assert "私の誕生日は3月3日です" in view.sections["pinned"]
    manager.delete_line("library", user.id)  # the message goes, and its pin with it
    assert manager.sight.persona_pins(P) == []
    with manager.db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM memory_pin")).scalar() == 0


def test_context_and_pins_on_the_command_line(saiverse_home: Path) -> None:
    _cli("chat", "--persona", P, "私の猫の名前はモカです")
    said = [json.loads(x) for x in _cli("memory", "--persona", P, "--json").stdout.splitlines()]
    mid = next(r["id"] for r in said if r["content"] == "私の猫の名前はモカです")
    out = json.loads(_cli("memory", "--persona", P, "--pin", str(mid)).stdout)
    assert out == {"persona_id": P, "message_id": mid, "pinned": True, "changed": True}
    pins = [json.loads(x) for x in _cli("memory", "--persona", P, "--pins").stdout.splitlines()]
    assert [p["message_id"] for p in pins] == [mid]
    view = json.loads(_cli("context", "--persona", P, "--building", "library", "猫の名前は？", "--json").stdout)
    assert set(view["parts"]) == {"system", "pinned", "core", "reflex", "chronicle", "history", "own"}
    assert view["pins"][0]["in_prompt"] and "私の猫の名前はモカです" in view["sections"]["pinned"]
    assert view["budget"] == 8000 and 0 < view["input_tokens"] <= 8000 and view["model"] == "offline"
    assert view["messages"][-1] == {"role": "user", "content": "猫の名前は？"}
    plain = _cli("context", "--persona", P, "猫の名前は？").stdout  # --building: where she is
    assert "budget 8,000 tokens" in plain and "pinned lines" in plain and "=== system ===" in plain
    assert len(_cli("memory", "--persona", P, "--json").stdout.splitlines()) == len(said)  # nothing written
    bad = _cli("memory", "--persona", P, "--pin", "999999", check=False)
    assert bad.returncode == 2 and "999999" in bad.stderr
    assert _cli("context", "--persona", "nobody", "hi", check=False).returncode == 2
    assert json.loads(_cli("memory", "--persona", P, "--unpin", str(mid)).stdout)["changed"] is True
    assert _cli("memory", "--persona", P, "--pins").stdout == ""


def test_a_pin_survives_kill_9(saiverse_home: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    mid = m.memory.add(P, "user", "合言葉は「しろくま」。", tags=["conversation"])["id"]
    m.close()
    code = ("import sys, time\n"
            "from saiverse.manager import SAIVerseManager\nfrom saiverse.settings import load_settings\n"
            "m = SAIVerseManager(load_settings())\n"
            f"m.sight.pin('{P}', {mid})\nprint('pinned', flush=True)\ntime.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "pinned"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    again = make_manager()
    assert [p.message_id for p in again.sight.persona_pins(P)] == [mid]
    assert "合言葉は「しろくま」。" in again.sight.context(P, "library", "合言葉は？").sections["pinned"]


def test_fit_puts_pins_after_who_she_is_and_shortens_a_long_one() -> None:
    from saiverse.llm.offline import estimate_tokens
    from saiverse.memory import Line, Snapshot, fit

    pins = [Line("user", "呼び名は「せんせい」で。"), Line("assistant", "約束: " + "あ" * 2_000), Line("user", "最後のピン")]
    out = fit(Snapshot(budget=2_000, pins=pins), "あなたはミナです。", [{"role": "user", "content": "やあ"}],
              estimate_tokens)
    assert out.system.startswith("あなたはミナです。\n\n" + PIN_HEADER)
    assert out.pins_kept == 3 and "（長いため約" in out.sections["pinned"] and "最後のピン" in out.sections["pinned"]
    assert estimate_tokens(out.sections["pinned"]) <= 300  # PIN_SHARE of 2,000
    assert "(相手) 呼び名は「せんせい」で。" in out.sections["pinned"] and "(自分) 約束:" in out.sections["pinned"]
    assert out.messages == [{"role": "user", "content": "やあ"}]


def test_pins_and_context_on_a_postgresql_city(pg_url: str, monkeypatch: pytest.MonkeyPatch,
                                               make_manager: Callable[..., SAIVerseManager]) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    m = make_manager()
    mid = m.memory.add(P, "user", "好きな花は紫陽花。", tags=["conversation"])["id"]
    m.close()
    assert json.loads(_cli("memory", "--persona", P, "--pin", str(mid)).stdout)["changed"] is True
    assert [json.loads(x)["message_id"] for x in _cli("memory", "--persona", P, "--pins").stdout.splitlines()] == [mid]
    view = json.loads(_cli("context", "--persona", P, "好きな花は？", "--json").stdout)
    assert "好きな花は紫陽花。" in view["sections"]["pinned"] and view["pins"][0]["in_prompt"]
    again = make_manager()
    assert again.memory.delete(P, mid)  # PostgreSQL's foreign key takes the pin with the message
    assert again.sight.persona_pins(P) == []
    with again.db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM memory_pin")).scalar() == 0
