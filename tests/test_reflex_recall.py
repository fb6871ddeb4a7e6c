"""Reflex recall (saiverse/memory/_reflex.py): before a persona answers the user, what her memory holds on
the user's words enters the prompt, dated and marked as memory — no tool call needed; a persona can
turn it off (`python main.py persona reflex-off ID`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.memory import REFLEX_SHARE, reflex_setting_key
from saiverse.memory._reflex import HEADER, lore
from tests.support.models import ScriptedModel

P = "mina"
ROOT = Path(__file__).resolve().parents[1]


def _said_long_ago(m: SAIVerseManager) -> None:
    start = datetime.now() - timedelta(days=40)
    m.memory.add(P, "user", "駅前のさくらクリニックで診てもらったら、寝不足と眼精疲労だって。", tags=["conversation"],
                 created_at=start)
    for i in range(300):  # a month of other talk: the clinic line is far out of the verbatim window
        m.memory.add(P, "user" if i % 2 == 0 else "assistant", f"今日は雨だったね。夕ごはんはカレーにした（{i}）。",
                     tags=["conversation"], created_at=start + timedelta(days=1, minutes=10 * i))


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_the_user_message_brings_an_old_memory_into_the_prompt(make_manager: Callable[..., SAIVerseManager], store: str,
                                                               request: pytest.FixtureRequest,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if store == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    model = ScriptedModel()
    m = make_manager(model)
    _said_long_ago(m)
    list(m.handle_user_input("library", "このまえ医者に何て言われたか覚えてる？", persona_id=P))
    system = model.history[-1].system or ""
    assert HEADER in system
    memory = system[system.index(HEADER):]
    day = (datetime.now() - timedelta(days=40)).astimezone().strftime("%Y-%m-%d")
    assert f"[{day}] (相手) 駅前のさくらクリニック" in memory  # 医者 → クリニック, with the day it was said
    assert "カレー" not in memory  # weak hits stay out
    assert len(memory) <= 8000 * REFLEX_SHARE


def test_a_memopedia_keyword_in_the_message_brings_its_page(make_manager: Callable[..., SAIVerseManager]) -> None:
    model = ScriptedModel()
    m = make_manager(model)
    m.memopedia.create(P, "こむぎ", summary="ユーザーの飼い猫。茶トラで、かつおぶしが好き。", keywords=["こむぎ", "茶トラ"],
                       category="people")
    m.memopedia.create(P, "図書館の合言葉", summary="フクロウ。", keywords=["合言葉"])
    list(m.handle_user_input("library", "こむぎが今朝また窓辺で寝てたよ", persona_id=P))
    system = model.history[-1].system or ""
    memory = system[system.index(HEADER):]
    assert "(Memopedia「こむぎ」、「こむぎ」で) ユーザーの飼い猫。茶トラで、かつおぶしが好き。" in memory
    assert "合言葉" not in memory  # a page whose keywords are not in the message stays out
    m.memopedia.create(P, "Cat café", summary="Where the user met Mika.", keywords=["cat"], category="terms")
    assert lore(m.memopedia, P, "Which category was it?") == []  # a latin keyword is a whole word
    assert lore(m.memopedia, P, "The CAT café again!") == ["- (Memopedia「Cat café」、「cat」で) Where the user met Mika."]


def test_nothing_worth_it_adds_nothing_and_reflex_off_is_kept(make_manager: Callable[..., SAIVerseManager],
                                                             saiverse_home: Path) -> None:
    model = ScriptedModel()
    m = make_manager(model)
    _said_long_ago(m)
    list(m.handle_user_input("library", "おはよう", persona_id=P))
    assert HEADER not in (model.history[-1].system or "")
    m.close()
    out = subprocess.run([sys.executable, str(ROOT / "main.py"), "persona", "reflex-off", P, "--json",
                          "--home", str(saiverse_home)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"persona_id": P, "reflex_recall": False}
    model = ScriptedModel()
    m = make_manager(model)
    list(m.handle_user_input("library", "このまえ医者に何て言われたか覚えてる？", persona_id=P))
    assert HEADER not in (model.history[-1].system or "")


def test_deleting_a_persona_forgets_her_reflex_switch(manager: SAIVerseManager) -> None:
    manager.world_settings.set_flag(reflex_setting_key(P), False)
    report = manager.admin.delete_persona(P)
    assert report.removed.get("world_setting") == 1 and manager.world_settings.get(reflex_setting_key(P)) is None
