"""Model servers the user already runs on this machine: Ollama, LM Studio, llama.cpp's llama-server.

Each is looked for at its usual address (settings `ollama_url`, `lmstudio_url`, `llamacpp_url`:
:11434, :1234, :8080 on 127.0.0.1) with a short timeout, all three at once, in a background thread
started with the app (`start_scan`): start-up never waits for it. What was found is kept here
(`found_servers`), and `auto` answers with a found server's model when no cloud key is set, before
the packaged model (saiverse/llm/registry.py). Ollama lists its models at `/api/tags`, the others
at `/v1/models`; all three are then talked to through the `openai` SDK at `<url>/v1`.
A persona may name one directly: `ollama:<model>`, `lmstudio:<model>`, `llamacpp:<model>`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from saiverse.settings import Settings
from words import say

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 0.6
"""Seconds one probe may take (a local server answers in milliseconds)."""
KINDS: dict[str, tuple[str, str, str]] = {
    # kind: (Settings field of its URL, label, path that lists the models)
    "ollama": ("ollama_url", "Ollama", "/api/tags"),
    "lmstudio": ("lmstudio_url", "LM Studio", "/v1/models"),
    "llamacpp": ("llamacpp_url", "llama.cpp server", "/v1/models"),
}
_NOT_CHAT = ("embed", "bge-", "rerank", "whisper", "clip")


@dataclass(frozen=True)
class FoundServer:
    """One server that answered, with its models."""

    kind: str
    """`ollama`, `lmstudio` or `llamacpp` (also the prefix of its model names)."""
    label: str
    url: str
    models: tuple[str, ...]

    @property
    def base_url(self) -> str:
        """Where the `openai` SDK talks to it."""
        return self.url.rstrip("/") + "/v1"

    def chat_model(self) -> str | None:
        """The model `auto` would use here: the first that is not an embedding/reranking model."""
        return next((m for m in self.models if not any(w in m.lower() for w in _NOT_CHAT)), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (CLI, 設定 tab)."""
        return {"kind": self.kind, "label": self.label, "url": self.url, "models": list(self.models),
                "chat_model": self.chat_model()}


def _urls(settings: Settings) -> tuple[str, ...]:
    return tuple(str(getattr(settings, field)) for field, _label, _path in KINDS.values())


def server_url(settings: Settings, kind: str) -> str | None:
    """The configured URL of a server kind (None for an unknown kind)."""
    spec = KINDS.get(kind)
    return str(getattr(settings, spec[0])).rstrip("/") if spec else None


def _models(kind: str, data: Any) -> tuple[str, ...]:
    if kind == "ollama":
        rows = data.get("models") if isinstance(data, dict) else None
        return tuple(str(r.get("name") or r.get("model")) for r in rows or [] if isinstance(r, dict)
                     and (r.get("name") or r.get("model")))
    rows = data.get("data") if isinstance(data, dict) else None
    return tuple(str(r["id"]) for r in rows or [] if isinstance(r, dict) and r.get("id"))


def probe_one(kind: str, url: str, timeout: float = PROBE_TIMEOUT) -> FoundServer | None:
    """The server of `kind` at `url` and its models, or None when nothing (of that kind) answers in time."""
    import httpx

    _field, label, path = KINDS[kind]
    try:
        # A plain-HTTP address needs no TLS context: building one (loading the CA bundle) per probe
        # cost more than the start's whole look; an https:// address is verified as always.
        secure = url.lower().startswith("https://")
        response = httpx.get(url.rstrip("/") + path, timeout=timeout, verify=secure)
        response.raise_for_status()
        models = _models(kind, response.json())
    except (httpx.HTTPError, ValueError) as exc:
        log.debug("no %s at %s: %s", label, url, exc)
        return None
    return FoundServer(kind, label, url.rstrip("/"), models)


def probe(settings: Settings, timeout: float = PROBE_TIMEOUT) -> list[FoundServer]:
    """Look for every kind now (in parallel: the whole look takes one timeout at most); remembers the result."""
    kinds = list(KINDS)
    with ThreadPoolExecutor(max_workers=len(kinds), thread_name_prefix="probe") as pool:
        results = list(pool.map(lambda k: probe_one(k, server_url(settings, k) or "", timeout), kinds))
    found = [r for r in results if r is not None]
    with _lock:
        _found[_urls(settings)] = found
    return found


_lock = threading.Lock()
_found: dict[tuple[str, ...], list[FoundServer]] = {}


def found_servers(settings: Settings) -> list[FoundServer]:
    """What the last look found at these settings' addresses ([] before any look finished); never probes."""
    if not settings.detect_servers:
        return []
    with _lock:
        return list(_found.get(_urls(settings), []))


def forget_servers() -> None:
    """Forget every look (tests)."""
    with _lock:
        _found.clear()


def start_scan(settings: Settings,
               on_done: Callable[[list[FoundServer]], None] | None = None) -> threading.Thread | None:
    """Look in a daemon thread (None when `detect_servers` is off); `on_done` gets what was found."""
    if not settings.detect_servers:
        return None

    def run() -> None:
        found = probe(settings)
        if found:
            log.info("model servers found: %s", ", ".join(f"{s.label} ({len(s.models)})" for s in found))
        if on_done is not None:
            on_done(found)

    thread = threading.Thread(target=run, name="model-server-scan", daemon=True)
    thread.start()
    return thread


def auto_server(settings: Settings) -> tuple[str, str] | None:
    """(model name, why in `settings.lang`) of the found server model `auto` uses, None when none was found."""
    for server in found_servers(settings):
        model = server.chat_model()
        if model:
            return (f"{server.kind}:{model}",
                    say("auto_server", lang=settings.lang, label=server.label, url=server.url, model=model))
    return None
