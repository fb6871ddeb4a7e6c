"""Which model answers: a persona and a kind → a configured name → a provider instance.

`model_for` is the one model chain: the persona's column, else the setting (whose own precedence is
in saiverse/settings.py). Names and what each needs are in saiverse/llm/names.py; `auto` (the default)
is a cloud model whose key is set, else the embedded `local` model when llama.cpp and a model file
are there, else the deterministic `offline` model. A name that cannot be served falls back to offline
and the caller gets a Japanese notice saying why. Provider instances are cached per configuration.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from chat import ChatModel
from saiverse.llm.local import (
    Health,
    HealthBook,
    InstalledModel,
    LocalModelMissing,
    broken_words,
    model_path,
    models_on_disk,
    packaged_available,
    runtime_available,
)
from saiverse.llm.names import AUTO_CHOICES, ModelName, parse_name
from saiverse.llm.offline import OfflineModel
from saiverse.llm.retry import RetryPolicy
from saiverse.llm.servers import auto_server, found_servers, server_url
from saiverse.settings import Settings
from words import say

_OFFLINE = OfflineModel()
_cache: dict[tuple[object, ...], ChatModel] = {}
_lock = threading.Lock()

_PURPOSE_TEXT = {"lightweight": "purpose_lightweight", "vision": "purpose_vision", "image": "purpose_image"}
"""How a fallback notice words the purpose (words/_models.py keys); a chat model's notice names none."""
_KEYS = {"openai": ("openai_official_api_key", "OPENAI_API_KEY"),
         "anthropic": ("anthropic_api_key", "ANTHROPIC_API_KEY"), "gemini": ("gemini_api_key", "GEMINI_API_KEY")}


def _fingerprint(secret: str | None) -> str:
    # The cache key must change when the key does, without holding the key itself.
    return hashlib.sha256(secret.encode()).hexdigest()[:12] if secret else ""


def _cached(key: tuple[object, ...], build: Callable[[], ChatModel]) -> ChatModel:
    with _lock:
        model = _cache.get(key)
        if model is None:
            model = _cache[key] = build()
        return model


def clear_model_cache() -> None:
    """Forget cached model instances (tests; settings changed at run time); a local model's inference
    process ends with it."""
    _drop(lambda _key: True)


def _drop(matches: Callable[[tuple[object, ...]], bool]) -> None:
    """Forget the cached models whose key `matches`; a local model's inference process ends with it."""
    with _lock:
        models = [_cache.pop(k) for k in [k for k in _cache if matches(k)]]
    for model in models:
        if model.provider == "local":
            model.close()  # type: ignore[attr-defined]


def local_problem(settings: Settings, spec: str = "") -> str | None:
    """Why `local:<spec>` cannot run here (None when it can), without loading anything."""
    problem = runtime_available()
    if problem:
        return problem
    try:
        path = model_path(settings, spec)
    except LocalModelMissing as exc:
        return str(exc)
    if not path.is_file() and not (path.name.startswith("gemma-3-270m") and packaged_available()):
        return say("local_file_missing", lang=settings.lang, path=path)  # (the packaged one is assembled on first use)
    health = HealthBook(settings.home).get(path)
    if health is not None and health.state == "broken":
        return broken_words(health.reason)
    return None


def _default_health(settings: Settings) -> Health | None:
    """What the default local model last did on this machine with this build (None: untried)."""
    try:
        return HealthBook(settings.home).get(model_path(settings, ""))
    except LocalModelMissing:
        return None


def local_broken(settings: Settings) -> bool:
    """Whether the default local model is recorded as broken on this machine (with this build and file)."""
    health = _default_health(settings)
    return health is not None and health.state == "broken"


def retry_local(settings: Settings) -> None:
    """「もう一度試す」: the default local model is untried again (its broken record is forgotten, its cached
    instance and process dropped), so the next reply starts it afresh."""
    try:
        path = model_path(settings, "")
    except LocalModelMissing:
        return
    HealthBook(settings.home).forget(path)
    _drop(lambda key: key[0] == "local" and key[1] == str(path))


def local_verified(settings: Settings) -> str | None:
    """When the default local model last really generated on this machine with this build (None: not
    yet, or the file or the build changed since)."""
    health = _default_health(settings)
    return health.at if health is not None and health.state == "ok" else None


def _load_failure(settings: Settings) -> str | None:
    """Why the default local model failed to load in this process (None when it has not failed)."""
    with _lock:
        models = [m for k, m in _cache.items() if k[0] == "local" and k[1] == str(model_path(settings, ""))]
    return next((m.load_error for m in models if getattr(m, "load_error", None)), None)  # type: ignore[attr-defined]


def auto_choice(settings: Settings) -> tuple[str, str]:
    """What `auto` answers with now, and why (in `settings.lang`)."""
    for field, name in AUTO_CHOICES:
        if getattr(settings, field):
            return name, say("auto_key", lang=settings.lang, env=_env_of(field), name=name)
    server = auto_server(settings)  # what the start-up look found (never probes here)
    if server is not None:
        return server
    problem = local_problem(settings) or _load_failure(settings)
    if problem is None:
        return "local", say("auto_local", lang=settings.lang)
    return "offline", say("auto_offline", lang=settings.lang, problem=problem)


def installed_models(settings: Settings, personas: Iterable[Any] = ()) -> list[InstalledModel]:
    """The GGUF models in `<home>/models/` and who uses each (saiverse/llm/local/_installed.py), `auto` read
    as what it answers with now."""
    return models_on_disk(settings, personas, auto=lambda: auto_choice(settings)[0])


def _env_of(field: str) -> str:
    return next(env for kind, (f, env) in _KEYS.items() if f == field)


def _local(parsed: ModelName, settings: Settings) -> ChatModel:
    from saiverse.llm.local import LocalModel

    path = model_path(settings, parsed.model_id)
    key = ("local", str(path), settings.local_context, settings.local_threads, settings.local_profile,
           settings.local_stall_seconds, settings.local_keep_alive, str(settings.home))
    name = "local" if not parsed.model_id else parsed.raw
    return _cached(key, lambda: LocalModel(name, path=lambda: path, n_ctx=settings.local_context,
                                           n_threads=settings.local_threads,
                                           profile_setting=settings.local_profile, file_name=path.name,
                                           health=HealthBook(settings.home),
                                           stall_seconds=settings.local_stall_seconds,
                                           keep_alive=settings.local_keep_alive))


def _build(parsed: ModelName, settings: Settings, retry: RetryPolicy | None) -> ChatModel:
    timeout = settings.request_timeout
    if parsed.kind == "gemini":
        from saiverse.llm.gemini import GeminiModel  # google-genai is slow to load

        key = ("gemini", parsed.raw, settings.gemini_base_url or "", _fingerprint(settings.gemini_api_key),
               timeout, retry)
        return _cached(key, lambda: GeminiModel(parsed.raw, api_key=settings.gemini_api_key or "",
                                                base_url=settings.gemini_base_url, timeout=timeout, retry=retry))
    if parsed.kind in ("openai", "compatible", "server"):
        from saiverse.llm.openai_sdk import OpenAIModel

        compatible = parsed.kind != "openai"
        api_key = settings.openai_api_key if parsed.kind == "compatible" else (
            None if parsed.kind == "server" else settings.openai_official_api_key)
        base = settings.openai_base_url if parsed.kind == "compatible" else settings.openai_official_base_url
        if parsed.kind == "server":
            base = f"{server_url(settings, parsed.raw.split(':', 1)[0].lower())}/v1"
        key = (parsed.kind, parsed.raw, base or "", _fingerprint(api_key), timeout, retry)
        return _cached(key, lambda: OpenAIModel(parsed.raw, model_id=parsed.model_id, api_key=api_key,
                                                base_url=base, compatible=compatible, timeout=timeout, retry=retry))
    from saiverse.llm.anthropic_sdk import AnthropicModel

    key = ("anthropic", parsed.raw, settings.anthropic_base_url or "", _fingerprint(settings.anthropic_api_key),
           timeout, retry)
    return _cached(key, lambda: AnthropicModel(parsed.raw, model_id=parsed.model_id,
                                               api_key=settings.anthropic_api_key or "",
                                               base_url=settings.anthropic_base_url, timeout=timeout, retry=retry))


def unavailable(parsed: ModelName, settings: Settings) -> str | None:
    """Why the provider of `parsed` cannot be used with these settings (None when it can)."""
    if parsed.kind in _KEYS:
        field, env = _KEYS[parsed.kind]
        return None if getattr(settings, field) else say("env_unset", lang=settings.lang, env=env)
    if parsed.kind == "compatible":
        return None if settings.openai_base_url else \
            say("env_unset", lang=settings.lang, env="SAIVERSE_OPENAI_BASE_URL")
    if parsed.kind == "local":
        return local_problem(settings, parsed.model_id)
    return None


def fallback_name(settings: Settings, instead_of: str = "") -> str:
    """What a persona whose own model cannot answer answers with: what a persona without a model of
    its own answers with (the default setting; `auto`: a cloud model with a key, else `local`), else
    `offline`. A user who set no key expects the same model everyone else talks with, not a weaker one."""
    default = parse_name(settings.default_model)
    if default.kind == "auto" or default.raw == instead_of or default.kind == "unknown" \
            or (default.kind != "offline" and unavailable(default, settings) is not None):
        return auto_choice(settings)[0]
    return default.raw


def model_label(name: str, settings: Settings) -> str:
    """How a notice names a model: `local` → 組み込みのローカルモデル (llama.cpp), `offline` → オフラインモデル."""
    return say(f"label_{name}", lang=settings.lang) if name in ("local", "offline") else name


def resolve_model(name: str | None, settings: Settings, *, purpose: str = "chat",
                  retry: RetryPolicy | None = None, _fallback: bool = True) -> tuple[ChatModel, str | None]:
    """The model for `name` and a user-visible notice (Japanese) when it fell back.

    A name that cannot be served falls back to `fallback_name` (the default model; offline last).
    `purpose` (`chat`, `lightweight`, `vision`, `image`) only words the notice; `retry` overrides
    the backoff policy (tests). `auto` falls back without a notice: `describe_default` says why.
    """
    parsed = parse_name(name)
    what = say(_PURPOSE_TEXT[purpose], lang=settings.lang) if purpose in _PURPOSE_TEXT else ""
    automatic = parsed.kind == "auto"
    if automatic:
        parsed = parse_name(auto_choice(settings)[0])
    if parsed.kind == "offline":
        return _OFFLINE, None
    if parsed.kind == "unknown":
        model = _fallback_model(parsed, settings, retry) if _fallback else _OFFLINE
        return model, say("notice_unknown", lang=settings.lang, name=parsed.raw, what=what,
                          label=model_label(model.name, settings), forms=say("name_forms", lang=settings.lang))
    problem = unavailable(parsed, settings)
    if problem is None and parsed.kind == "local":
        try:
            model = _local(parsed, settings)
        except LocalModelMissing as exc:
            problem = str(exc)
        else:
            problem = getattr(model, "load_error", None)
            if problem is None:
                return model, None
    if problem is not None:
        if automatic:
            return _OFFLINE, None
        model = _fallback_model(parsed, settings, retry) if _fallback else _OFFLINE
        return model, say("notice_instead", lang=settings.lang, problem=problem, name=parsed.raw, what=what,
                          label=model_label(model.name, settings))
    return _build(parsed, settings, retry), None


def _fallback_model(parsed: ModelName, settings: Settings, retry: RetryPolicy | None) -> ChatModel:
    name = fallback_name(settings, parsed.raw)
    if name in ("offline", parsed.raw):
        return _OFFLINE
    model, notice = resolve_model(name, settings, retry=retry, _fallback=False)
    return _OFFLINE if notice else model


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
    """The model a persona uses for `kind` (see MODEL_KINDS) and a notice when it fell back to offline.

    For `image`, a model that cannot draw (Claude, llama.cpp) hands drawing to a Gemini or OpenAI
    model whose key is set; without one the picture is drawn procedurally, as offline.
    """
    purpose = MODEL_KINDS.get(kind, MODEL_KINDS["normal"])[2]
    model, notice = resolve_model(model_name_for(settings, persona, kind), settings, purpose=purpose)
    if kind == "image" and not getattr(model, "draws_images", True):
        for field, name in AUTO_CHOICES:
            if getattr(settings, field) and parse_name(name).kind != "anthropic":
                return resolve_model(name, settings, purpose=purpose)
        if model.provider == "anthropic":
            return _OFFLINE, None  # Claude cannot draw: procedural drawing, as offline
    return model, notice


@dataclass(frozen=True)
class ProviderStatus:
    """Whether one provider can answer now, and why (Japanese)."""

    provider: str
    """`local`, `openai`, `anthropic`, `gemini`, `openai-compatible`, a found server (`ollama`, `lmstudio`,
    `llamacpp`) or `offline`."""
    ready: bool
    detail: str
    broken: bool = False
    """The local model's process died twice running while loading it (「もう一度試す」 clears it)."""


def provider_status(settings: Settings) -> list[ProviderStatus]:
    """Every provider with whether it is ready and, when not, what it needs (nothing is loaded)."""
    local = local_problem(settings)
    verified = local_verified(settings) if local is None else None
    if local is not None:
        rows = [ProviderStatus("local", False, local, broken=local_broken(settings))]
    elif verified:
        rows = [ProviderStatus("local", True, say("pv_local_ok", lang=settings.lang, at=verified))]
    else:
        rows = [ProviderStatus("local", False, say("pv_local_untried", lang=settings.lang))]
    for kind, (field, env) in _KEYS.items():
        ready = bool(getattr(settings, field))
        detail = say("pv_key_set" if ready else "pv_key_needed", lang=settings.lang, env=env)
        rows.append(ProviderStatus(kind, ready, detail))
    url = settings.openai_base_url
    rows.append(ProviderStatus("openai-compatible", bool(url), say("pv_compatible", lang=settings.lang, url=url) if url
                               else say("pv_compatible_needed", lang=settings.lang)))
    for server in found_servers(settings):
        model = server.chat_model()
        names = ", ".join(server.models) if server.models else say("pv_no_models", lang=settings.lang)
        rows.append(ProviderStatus(server.kind, bool(model), f"{server.label} ({server.url}): {names}"))
    rows.append(ProviderStatus("offline", True, say("pv_offline", lang=settings.lang)))
    return rows


def describe_default(settings: Settings) -> tuple[str, str]:
    """(model name, why) of what a persona without its own model answers with."""
    name = settings.default_model
    if parse_name(name).kind == "auto":
        return auto_choice(settings)
    model, notice = resolve_model(name, settings)
    if notice:
        return model.name, notice
    source = settings.source("default_model")
    chosen = say("chosen_default", lang=settings.lang) if source.kind == "default" else \
        say("chosen_from", lang=settings.lang, kind=source.kind, where=source.where)
    if model.provider == "offline":
        return "offline", say("default_offline", lang=settings.lang, chosen=chosen)
    if model.provider == "local":
        return name, say("default_local", lang=settings.lang, chosen=chosen)
    return name, say("default_named", lang=settings.lang, name=name, chosen=chosen)
