"""Which model answers: a configured name → a provider instance, or offline with a notice.

Names: `None`/""/`offline` → offline; `gemini…` → Gemini (needs `GEMINI_API_KEY`);
`openai:<model>` → an OpenAI-compatible server (needs `SAIVERSE_OPENAI_BASE_URL`). A name that
cannot be served falls back to offline, and the caller gets a Japanese notice to show the user.
"""

from __future__ import annotations

import hashlib
import threading

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


def pick_model_name(*candidates: str | None) -> str:
    """The first non-empty name (persona column → env → default); `offline` if all are empty."""
    for name in candidates:
        if name and name.strip():
            return name.strip()
    return "offline"


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
