"""One Settings, one precedence: flag → env → home .env → cwd .env → settings.json → default;
a persona's columns over all of it for that persona (saiverse/settings.py, saiverse/llm/registry.py)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from saiverse.llm.registry import model_for, model_name_for
from saiverse.settings import (
    DEFAULT_LIGHTWEIGHT_MODEL,
    SettingsError,
    SettingsStore,
    describe,
    load_settings,
)

LAYERS = ["flag", "env", "home .env", "cwd .env", "settings.json", "default"]


def _write_layers(home: Path, cwd: Path, monkeypatch: pytest.MonkeyPatch, present: list[str]) -> None:
    """Give `default_model` a different value in each layer named in `present`."""
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")  # conftest's `offline` would win over every file
    if "env" in present:
        monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "from-env")
    if "home .env" in present:
        (home / ".env").write_text("SAIVERSE_DEFAULT_MODEL=from-home-dotenv\n")
    if "cwd .env" in present:
        (cwd / ".env").write_text("SAIVERSE_DEFAULT_MODEL=from-cwd-dotenv\n")
    if "settings.json" in present:
        (home / "settings.json").write_text(json.dumps({"default_model": "from-settings-json"}))


@pytest.mark.parametrize("strongest", LAYERS)
def test_each_layer_wins_over_every_weaker_one(strongest: str, saiverse_home: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    present = LAYERS[LAYERS.index(strongest):-1]  # this layer and all weaker ones
    _write_layers(saiverse_home, tmp_path, monkeypatch, present)
    flags = {"default_model": "from-flag"} if strongest == "flag" else {}
    s = load_settings(**flags)
    expected = {"flag": ("from-flag", "flag", "--default-model"),
                "env": ("from-env", "env", "SAIVERSE_DEFAULT_MODEL"),
                "home .env": ("from-home-dotenv", ".env", str(saiverse_home / ".env")),
                "cwd .env": ("from-cwd-dotenv", ".env", str(tmp_path / ".env")),
                "settings.json": ("from-settings-json", "settings.json", str(saiverse_home / "settings.json")),
                "default": ("auto", "default", "")}[strongest]
    source = s.source("default_model")
    assert (s.default_model, source.kind, source.where) == expected


def test_flags_for_host_and_port_and_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_PORT", "8000")
    s = load_settings(tmp_path / "elsewhere", port=9001, host="0.0.0.0")
    assert (s.home, s.port, s.host) == ((tmp_path / "elsewhere").resolve(), 9001, "0.0.0.0")
    assert str(s.source("home")) == "flag --home" and s.source("port").kind == "flag"
    assert load_settings().port == 8000 and load_settings().source("port").where == "SAIVERSE_PORT"


def test_home_comes_from_the_working_directory_env_file_never_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_HOME")
    home = tmp_path / "dot-home"
    home.mkdir()
    (home / ".env").write_text(f"SAIVERSE_HOME={tmp_path / 'ignored'}\nSAIVERSE_LANG=en\n")
    (tmp_path / ".env").write_text(f"SAIVERSE_HOME={home}\n")
    s = load_settings()
    assert s.home == home.resolve() and s.source("home").kind == ".env"
    assert s.lang == "en" and s.source("lang").where == str(home.resolve() / ".env")
    assert s.database_url == f"sqlite:///{home.resolve() / 'saiverse.db'}"


def test_env_files_are_read_not_exported(saiverse_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("GEMINI_API_KEY=dotenv-key-1234\nSAIVERSE_LANG=\n")
    s = load_settings()
    assert s.gemini_api_key == "dotenv-key-1234" and "GEMINI_API_KEY" not in os.environ
    assert s.lang == "ja" and s.source("lang").kind == "default"  # an empty value sets nothing


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("SAIVERSE_PORT", "eighty", "SAIVERSE_PORT must be an integer, got 'eighty' (from env SAIVERSE_PORT)"),
    ("SAIVERSE_REQUEST_TIMEOUT", "soon", "SAIVERSE_REQUEST_TIMEOUT must be a number"),
    ("SAIVERSE_DATABASE_URL", "postgresql://db/saiverse", "postgresql+psycopg://"),
    ("SAIVERSE_DATABASE_URL", "mysql://db/saiverse", "sqlite:///PATH"),
    ("SAIVERSE_PULSE_WORKERS_REMOTE", "maybe", "SAIVERSE_PULSE_WORKERS_REMOTE must be on or off"),
    ("SAIVERSE_WORKER_HEARTBEAT", "0.1", "must be between 0.2 and 600 seconds"),
    ("SAIVERSE_WORKER_TICK", "90", "must be between 1 and 59 seconds"),
])
def test_unusable_values_name_the_variable_and_where(variable: str, value: str, message: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match="^" + variable) as info:
        load_settings()
    assert message in str(info.value)


def test_a_bad_value_in_a_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SAIVERSE_MAX_UPLOAD_BYTES=lots\n")
    with pytest.raises(SettingsError, match=r"SAIVERSE_MAX_UPLOAD_BYTES must be an integer.*\.env"):
        load_settings()


def test_store_saves_what_no_stronger_layer_decides(saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")
    monkeypatch.setenv("SAIVERSE_VISION_MODEL", "vision-from-env")
    store = SettingsStore(load_settings())
    new = store.save({"default_model": "gemini-2.5-flash", "vision_model": "vision-saved", "gemini_api_key": "k" * 12})
    assert store.current is new
    assert new.default_model == "gemini-2.5-flash" and new.source("default_model").kind == "settings.json"
    assert new.vision_model == "vision-from-env" and new.source("vision_model").kind == "env"
    assert json.loads((saiverse_home / "settings.json").read_text())["vision_model"] == "vision-saved"
    assert load_settings() == new  # the next start resolves to the same values
    cleared = store.save({"default_model": None, "gemini_api_key": ""})
    assert cleared.default_model == "auto" and cleared.gemini_api_key is None
    assert cleared.source("default_model").kind == "default"
    with pytest.raises(SettingsError, match="cannot hold port"):
        store.save({"port": "1"})


def test_describe_masks_keys_and_lists_every_source(saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaSecretValue9876")
    rows = {r["name"]: r for r in describe(load_settings(port=7000))}
    assert rows["gemini_api_key"]["value"] == "****9876" and "Secret" not in json.dumps(rows)
    assert rows["port"] == {"name": "port", "env": "SAIVERSE_PORT", "value": 7000, "source": "flag",
                            "where": "--port"}
    assert rows["home"]["source"] == "env" and rows["openai_api_key"]["value"] == ""
    assert {r["source"] for r in rows.values()} <= {"flag", "env", ".env", "settings.json", "default"}


def test_persona_columns_win_for_that_persona(saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = load_settings()
    plain = {"default_model": None, "lightweight_model": None}
    assert model_name_for(s, plain, "normal") == "offline"
    assert model_name_for(s, {"default_model": "openai:llama3"}, "normal") == "openai:llama3"
    # No one chose a lightweight model and there is no Gemini key: the persona's normal model answers.
    assert model_name_for(s, {"default_model": "openai:llama3"}, "lightweight") == "openai:llama3"
    assert model_name_for(s, {"lightweight_model": "openai:tiny"}, "lightweight") == "openai:tiny"
    monkeypatch.setenv("SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL", DEFAULT_LIGHTWEIGHT_MODEL)
    chosen = load_settings()  # the user chose the built-in name explicitly: it is used (offline with a notice)
    assert model_name_for(chosen, plain, "lightweight") == DEFAULT_LIGHTWEIGHT_MODEL
    model, notice = model_for(chosen, plain, "lightweight")
    assert model.provider == "offline" and notice and "軽量モデル" in notice
    assert model_name_for(s, {"default_model": "gemini-2.5-flash"}, "image") == "gemini-2.5-flash"


def test_env_example_lists_exactly_what_is_read() -> None:
    """.env.example claims only what the app reads, and every variable it reads is there."""
    from saiverse.errors import RAISE_ERRORS_ENV
    from saiverse.settings import HOME_ENV, OPTIONS

    text = (Path(__file__).resolve().parents[1] / ".env.example").read_text(encoding="utf-8")
    listed = set(re.findall(r"^# ([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    assert listed == {o.env for o in OPTIONS} | {HOME_ENV, RAISE_ERRORS_ENV}
    assert "sqlite:///PATH" in text and "postgresql+psycopg://" in text
