"""Notices a person keeping a world sees: which model answers and why, who is where, each notice once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import main as cli_main
from database.migrate import migrate
from saiverse.llm.registry import auto_choice
from saiverse.manager import SAIVerseManager
from saiverse.seed import PERSONAS
from saiverse.settings import load_settings


def test_startup_notice_says_which_model_and_why(make_manager: Callable[..., SAIVerseManager],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    line = make_manager().startup_notice()  # tests/conftest.py sets SAIVERSE_DEFAULT_MODEL=offline
    assert line.startswith("モデル: offline — ") and "env (SAIVERSE_DEFAULT_MODEL)" in line
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "gemini-2.5-flash")
    line = make_manager().startup_notice()  # no key: what `auto` answers with (local where llama.cpp runs)
    chosen = auto_choice(load_settings())[0]
    assert line.startswith(f"モデル: {chosen} — ") and "GEMINI_API_KEY" in line and "\n" not in line


def test_a_message_nobody_answers_gets_who_is_where(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("museum", "誰かいますか"))
    assert [e["type"] for e in events] == ["user_message", "notice"]
    notice = events[-1]
    assert notice["kind"] == "nobody_here"
    assert "ミナは図書館" in notice["text"] and "ソラはアトリエ" in notice["text"] and "@名前" in notice["text"]
    manager.admin.update_persona("sora", {"interaction_mode": "sleep"})
    text = list(manager.handle_user_input("atelier", "起きてる？"))[-1]["text"]
    assert "ソラは休んでいます" in text and "ミナは図書館" in text
    assert [h.speaker_kind for h in manager.history("museum")] == ["user"]  # the hint is not history


def test_seed_personas_live_where_the_readme_says() -> None:
    where = {p["name"]: p["building_id"] for p in PERSONAS}
    assert where == {"ミナ": "library", "ソラ": "atelier"}
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "| ミナ (`mina`) | 図書館 |" in readme and "| ソラ (`sora`) | アトリエ |" in readme


def test_a_fallback_notice_comes_once_per_pulse(make_manager: Callable[..., SAIVerseManager],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "gemini-2.5-flash")
    manager = make_manager()
    events = list(manager.handle_user_input("library", "思い出して: 前に話した本のこと"))
    texts = [e["text"] for e in events if e.get("kind") == "model_fallback"]
    assert texts and len(texts) == len(set(texts))


def test_cli_migrate_of_the_home_backs_the_world_up(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saiverse_home.mkdir(parents=True)
    migrate(saiverse_home / "saiverse.db", target=5)
    assert cli_main.main(["migrate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert Path(report["backup_path"]).parent == saiverse_home / "backups"
    assert Path(report["backup_path"]).name.startswith("saiverse-migration-")
