"""Pointing the app at model servers (Ollama, LM Studio, llama-server) for the detection tests: an address
where nothing listens, and the three URLs set at once. The servers themselves are in tests/support/fakes_hub.py."""

from __future__ import annotations

import socket

import pytest


def closed_port() -> str:
    """An address where nothing listens (a port bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def point_at(monkeypatch: pytest.MonkeyPatch, ollama: str, lmstudio: str, llamacpp: str) -> None:
    monkeypatch.setenv("SAIVERSE_OLLAMA_URL", ollama)
    monkeypatch.setenv("SAIVERSE_LMSTUDIO_URL", lmstudio)
    monkeypatch.setenv("SAIVERSE_LLAMACPP_URL", llamacpp)
