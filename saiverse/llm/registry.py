"""Which model answers: a persona and a kind → a configured name → a provider instance.

`model_for` is the one model chain: the persona's column, else the setting (whose own precedence is
in saiverse/settings.py), else offline. Names: `None`/""/`offline` → offline; `gemini…` → Gemini
(needs `GEMINI_API_KEY`); `openai:<model>` → an OpenAI-compatible server (needs
`SAIVERSE_OPENAI_BASE_URL`). A name that cannot be served falls back to offline, and the caller
gets a Japanese notice to show the user.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from typing import Any

from chat import ChatModel
from saiverse.llm.offline import OfflineModel
from saiverse.llm.openai_compat import OpenAICompatModel
from saiverse.llm.retry import RetryPolicy
from saiverse.settings import Settings

_OFFLINE = OfflineModel()
_cache: dict[tuple[object, ...], ChatModel] = {}
_lock = threading.Lock()

_PURPOSE_TEXT = {
    "chat": "", "lightweight": "（軽量モデル）", "vision": "（画像認識）", "image": "（画像生成）",
}


def _fingerprint(secret: str | None) -> str:
    # The cache key must change when the key does, without holding the key itself.
    return hashlib.sha256(secret.encode()).hexdigest()[:12] if secret else ""


def _cached(key: tuple[object, ...], build: type | object, **kwargs: object) -> ChatModel:
    with _lock:
        model = _cache.get(key)
        if model is None:
            model = build(**kwargs)  # type: ignore[operator]
            _cache[key] = model
        return model


def clear_model_cache() -> None:
    """Forget cached model instances (tests; settings changed at run time)."""
    with _lock:
        _cache.clear()


def resolve_model(name: str | None, settings: Settings, *, purpose: str = "chat",
                  retry: RetryPolicy | None = None) -> tuple[ChatModel, str | None]:
    """The model for `name` and a user-visible notice (Japanese) when it fell back to offline.

    `purpose` (`chat`, `lightweight`, `vision`, `image`) only words the notice; `retry` overrides
    the backoff policy (tests).
    """
    raw = (name or "").strip()
    what = _PURPOSE_TEXT.get(purpose, "")
    if not raw or raw.lower() == "offline":
        return _OFFLINE, None
    if raw.lower().startswith("gemini"):
        if not settings.gemini_api_key:
            return _OFFLINE, (f"GEMINI_API_KEY が設定されていないため、「{raw}」{what}の代わりに"
                              "オフラインモデルで応答します。")
        key = ("gemini", raw, settings.gemini_base_url or "", _fingerprint(settings.gemini_api_key),
               settings.request_timeout, retry)
        from saiverse.llm.gemini import GeminiModel  # imported on first use: google-genai is slow to load

        return _cached(key, GeminiModel, name=raw, api_key=settings.gemini_api_key,
                       base_url=settings.gemini_base_url, timeout=settings.request_timeout, retry=retry), None
    if raw.lower().startswith("openai:"):
        if not settings.openai_base_url:
            return _OFFLINE, (f"SAIVERSE_OPENAI_BASE_URL が設定されていないため、「{raw}」{what}の代わりに"
                              "オフラインモデルで応答します。")
        key = ("openai", raw, settings.openai_base_url, _fingerprint(settings.openai_api_key),
               settings.request_timeout, retry)
        return _cached(key, OpenAICompatModel, name=raw, base_url=settings.openai_base_url,
                       api_key=settings.openai_api_key, timeout=settings.request_timeout, retry=retry), None
    return _OFFLINE, (f"モデル「{raw}」{what}には対応していないため、オフラインモデルで応答します"
                      "（gemini-… か openai:<モデル名> を指定してください）。")


MODEL_KINDS: dict[str, tuple[str, str, str]] = {
    # kind: (persona column, Settings field, purpose wording of a fallback notice)
    "normal": ("default_model", "default_model", "chat"),
    "lightweight": ("lightweight_model", "default_lightweight_model", "lightweight"),
    "vision": ("vision_model", "vision_model", "vision"),
    "image": ("default_model", "default_model", "image"),
}
"""The model kinds a caller may ask for; any other kind is `normal`."""


def model_name_for(settings: Settings, persona: Mapping[str, Any], kind: str = "normal") -> str:
    """The model name a persona uses for `kind`: its own column, else the setting.

    `lightweight` and `vision` go to the persona's normal model when neither the persona nor the user
    chose one (the setting is its built-in default, a Gemini model) and there is no Gemini key.
    """
    column, setting, _purpose = MODEL_KINDS.get(kind, MODEL_KINDS["normal"])
    own = persona.get(column)
    if own:
        return str(own)
    if kind in ("lightweight", "vision") and settings.source(setting).kind == "default" \
            and not settings.gemini_api_key:
        return str(persona.get("default_model") or settings.default_model)
    return str(getattr(settings, setting))


def model_for(settings: Settings, persona: Mapping[str, Any], kind: str = "normal") -> tuple[ChatModel, str | None]:
    """The model a persona uses for `kind` (see MODEL_KINDS) and a notice when it fell back to offline."""
    purpose = MODEL_KINDS.get(kind, MODEL_KINDS["normal"])[2]
    return resolve_model(model_name_for(settings, persona, kind), settings, purpose=purpose)
