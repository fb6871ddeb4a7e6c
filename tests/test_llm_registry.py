"""Model names as upstream writes them, what each provider needs, and how the app says what answers."""

from __future__ import annotations

import pytest

from saiverse.llm.names import parse_name
from saiverse.llm.registry import auto_choice, describe_default, model_for, provider_status, resolve_model
from saiverse.settings import load_settings


@pytest.mark.parametrize(("name", "kind", "model_id"), [
    ("gpt-4.1", "openai", "gpt-4.1"), ("gpt-5-mini", "openai", "gpt-5-mini"), ("o3", "openai", "o3"),
    ("o4-mini", "openai", "o4-mini"), ("chatgpt-4o-latest", "openai", "chatgpt-4o-latest"),
    ("claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"), ("gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
    ("openai:gemma", "compatible", "gemma"), ("local", "local", ""), ("local:qwen", "local", "qwen"),
    ("offline", "offline", "offline"), ("", "offline", "offline"), ("auto", "auto", "auto"),
    ("anthropic:my-claude", "anthropic", "my-claude"), ("llama3", "unknown", "llama3"),
    ("openrouter/x", "unknown", "openrouter/x"), ("o", "unknown", "o"),
])
def test_upstream_names_resolve_to_their_provider(name: str, kind: str, model_id: str) -> None:
    parsed = parse_name(name)
    assert (parsed.kind, parsed.model_id) == (kind, model_id)


@pytest.mark.parametrize(("name", "needs"), [
    ("gpt-4.1", "OPENAI_API_KEY"), ("claude-sonnet-4-5", "ANTHROPIC_API_KEY"), ("gemini-2.5-flash", "GEMINI_API_KEY"),
    ("openai:gemma", "SAIVERSE_OPENAI_BASE_URL"), ("llama3", "gpt-…"),
])
def test_a_name_that_cannot_be_served_says_what_it_needs(name: str, needs: str) -> None:
    model, notice = resolve_model(name, load_settings())
    assert model.provider == "offline" and notice and needs in notice and name in notice


def test_provider_status_says_what_is_ready_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-1234567890")
    rows = {s.provider: s for s in provider_status(load_settings())}
    assert set(rows) == {"local", "openai", "anthropic", "gemini", "openai-compatible", "offline"}
    assert rows["anthropic"].ready and not rows["openai"].ready and "OPENAI_API_KEY" in rows["openai"].detail
    assert rows["offline"].ready
    # the local model is ✅ only once it has really answered on this machine (tests/test_llm_local.py)
    assert not rows["local"].ready and "まだ応答していません" in rows["local"].detail
    from saiverse.llm.local import HealthBook, model_path

    settings = load_settings()
    HealthBook(settings.home).set(model_path(settings, ""), "ok")
    assert next(s for s in provider_status(settings) if s.provider == "local").ready
    assert "1234567890" not in repr(rows)


def test_settings_tab_lists_providers(make_manager: object) -> None:
    from ui.i18n import Labels
    from ui.tabs.settings import providers_html

    manager = make_manager()  # type: ignore[operator]
    html = providers_html(manager, Labels("ja"))
    assert 'data-provider="local" data-ready="false"' in html and "まだ応答していません" in html
    assert 'data-provider="openai" data-ready="false"' in html and "OPENAI_API_KEY" in html
    assert "オフラインモデル" in html  # tests answer with the deterministic model, and the tab says so


def test_describe_default_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    assert describe_default(load_settings())[0] == "offline"
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "gpt-4.1")
    name, why = describe_default(load_settings())  # no key: what `auto` answers with (local where it runs)
    assert name == auto_choice(load_settings())[0] and "OPENAI_API_KEY" in why


def test_lightweight_follows_the_personas_model_without_a_gemini_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-1234567890")
    model, notice = model_for(load_settings(), {"default_model": "gpt-4.1"}, "lightweight")
    assert notice is None and model.name == "gpt-4.1"
