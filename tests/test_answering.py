"""Honest models, per persona (issue 21): what each persona is configured with, what really answers,
and why — in the domain (saiverse/llm/answering.py), in the chat's notice and on the persona chips."""

from __future__ import annotations

import pytest

from saiverse.llm.answering import answering
from saiverse.llm.registry import auto_choice, local_problem, resolve_model
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from ui.i18n import Labels
from ui.model_lines import models_notice_html
from ui.side_panel import header_html

AIR = {"persona_id": "air", "name": "エア", "default_model": "gemini-2.5-flash"}


def test_a_cloud_persona_without_a_key_says_it_answers_with_the_default() -> None:
    entry = answering(load_settings(), AIR)  # tests' default model is offline (tests/conftest.py)
    assert (entry.configured, entry.answers, entry.fallback, entry.needs) == (
        "gemini-2.5-flash", "offline", True, "GEMINI_API_KEY")
    assert entry.line() == "エア: gemini-2.5-flash — キーがないため オフライン"
    model, notice = resolve_model("gemini-2.5-flash", load_settings())
    assert model.provider == "offline" and notice and "GEMINI_API_KEY" in notice


def test_without_a_key_a_cloud_persona_falls_back_to_the_local_model_like_everyone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "auto")
    settings = load_settings()
    if local_problem(settings):
        pytest.skip(f"the local model cannot run here: {local_problem(settings)}")
    entry = answering(settings, AIR)
    assert entry.answers == "local" and entry.line() == "エア: gemini-2.5-flash — キーがないため ローカルモデル"
    model, notice = resolve_model("gemini-2.5-flash", settings)  # built, not loaded: nothing is read yet
    assert model.provider == "local" and "ローカルモデル" in (notice or "") and "オフライン" not in (notice or "")
    mina = answering(settings, {"persona_id": "mina", "name": "ミナ"})
    assert (mina.configured, mina.answers, mina.fallback) == ("auto", "local", False)
    assert mina.line() == "ミナ: ローカルモデル — キーがないため"


def test_with_a_key_the_persona_answers_with_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "g-1234567890")
    entry = answering(load_settings(), AIR)
    assert (entry.answers, entry.fallback, entry.reason) == ("gemini-2.5-flash", False, "設定どおり")
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "auto")
    mina = answering(load_settings(), {"persona_id": "mina", "name": "ミナ"})
    assert mina.answers == auto_choice(load_settings())[0] == "gemini-2.5-flash"
    assert mina.reason == "GEMINI_API_KEY があるため"


def test_an_unknown_name_falls_back_and_says_so() -> None:
    entry = answering(load_settings(), {"persona_id": "x", "name": "エックス", "default_model": "llama3"})
    assert entry.fallback and entry.answers == "offline" and "対応していない" in entry.line()


def test_the_chat_notice_and_the_chips_say_each_personas_model(manager: SAIVerseManager) -> None:
    manager.admin.update_persona("mina", {"default_model": "gemini-2.5-flash"})
    labels = Labels("ja")
    html = models_notice_html(manager, labels, None)
    assert "ミナ: gemini-2.5-flash — キーがないため オフライン" in html
    assert 'class="sv-settings-link"' in html and "設定タブ" in html
    view = manager.building_view("library")
    assert view["models"]["mina"]["answers"] == "offline" and view["models"]["mina"]["fallback"]
    header = header_html(view, labels)
    assert "sv-model-badge sv-model-fallback" in header and "⚠ オフライン" in header
    assert "ミナ: gemini-2.5-flash — キーがないため オフライン" in header  # the chip's tooltip


def test_the_console_line_names_personas_that_fell_back(manager: SAIVerseManager) -> None:
    assert "\n" not in manager.startup_notice()
    manager.admin.update_persona("sora", {"default_model": "claude-sonnet-4-5"})
    first, *rest = manager.startup_notice().splitlines()
    assert first.startswith("モデル: offline — ")
    assert rest == ["  ソラ: claude-sonnet-4-5 — キーがないため オフライン"]
