"""Shared fixtures: every test gets its own data home (a temp dir), never ~/.saiverse."""

from __future__ import annotations

from pathlib import Path

import pytest

ENV_KEYS = [
    "SAIVERSE_HOME", "SAIVERSE_DATABASE_URL", "SAIVERSE_LANG", "SAIVERSE_DEFAULT_MODEL",
    "SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL", "SAIVERSE_LIGHTWEIGHT_VISION_MODEL", "SAIVERSE_VISION_MODEL",
    "GEMINI_API_KEY", "SAIVERSE_GEMINI_BASE_URL", "SAIVERSE_OPENAI_BASE_URL", "SAIVERSE_OPENAI_API_KEY",
    "SAIVERSE_PORT", "SAIVERSE_HOST", "SAIVERSE_CONTEXT_TOKENS",
]


@pytest.fixture(autouse=True)
def saiverse_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point SAIVERSE_HOME at a fresh temp dir and clear every other SAIVerse variable."""
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("SAIVERSE_HOME", str(home))
    # A developer's .env must not leak into tests.
    monkeypatch.chdir(tmp_path)
    return home
