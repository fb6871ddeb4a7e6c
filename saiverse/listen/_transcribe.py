"""A recording in, its words out; what listens now; changing the listener from the 設定 tab."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from saiverse.listen._audio import MAX_AUDIO_BYTES, ListenError, audio_kind, size_text
from saiverse.listen._listeners import listener_for

STATUS = {
    "ready": ("聞き取り: {what}", "Listening: {what}"),
    "none": ("聞き取り: なし (マイクは使えません)", "Listening: none (the microphone is off)"),
}


def transcribe(settings: Any, audio: bytes | str | Path, *, name: str = "") -> str:
    """The words spoken in `audio` (bytes, or a file's path) by the listener `settings` name.

    Raises:
        ListenError: no listener set, the file unreadable, empty, too large or not audio, or the
            listener unreachable, too slow or refusing — the message says which, in `settings.lang`.
    """
    lang = str(getattr(settings, "lang", "ja") or "ja")
    if isinstance(audio, (str, Path)):
        path = Path(audio)
        name = name or path.name
        try:
            size = path.stat().st_size
            if size > MAX_AUDIO_BYTES:
                raise ListenError("too_large", lang, size=size_text(size), limit=size_text(MAX_AUDIO_BYTES))
            data = path.read_bytes()
        except OSError as exc:
            raise ListenError("unreadable", lang, name=name, why=exc.strerror or type(exc).__name__) from None
    else:
        data = bytes(audio)
    name = name or "recording"
    if not data:
        raise ListenError("empty", lang)
    if len(data) > MAX_AUDIO_BYTES:
        raise ListenError("too_large", lang, size=size_text(len(data)), limit=size_text(MAX_AUDIO_BYTES))
    kind = audio_kind(data)
    if kind is None:
        raise ListenError("not_audio", lang, name=name)
    listener = listener_for(settings)
    if listener is None:
        raise ListenError("no_listener", lang)
    return listener.transcribe(data, *kind)


def listener_status(settings: Any) -> tuple[bool, str]:
    """(whether someone listens, one line saying who or why not), in `settings.lang`."""
    en = str(getattr(settings, "lang", "ja")) == "en"
    try:
        listener = listener_for(settings)
    except ListenError as exc:
        return False, str(exc)
    if listener is None:
        return False, STATUS["none"][en]
    return True, STATUS["ready"][en].format(what=listener.describe())


def listen_refusal(settings: Any) -> str | None:
    """None when someone listens; else why not, as the chat's 🎤 says it (where to set one)."""
    try:
        listener = listener_for(settings)
    except ListenError as exc:
        return str(exc)
    return str(ListenError("no_listener", str(getattr(settings, "lang", "ja") or "ja"))) if listener is None else None


def save_listener(store: Any, values: Mapping[str, Any]) -> Any:
    """Save the 設定 tab's listener fields through `store` (a SettingsStore); returns the new Settings.

    `engine` ('' = by URL), `url`, `model`, `key` (a non-empty key replaces the stored one; `clear_key`
    removes it). A value that cannot be used raises SettingsError naming the field; nothing is saved then.
    """
    from saiverse.setting_values import SettingsError, http_url, stt_engine

    changes: dict[str, str | None] = {}
    try:
        engine = stt_engine(str(values.get("engine") or ""))
    except ValueError as exc:
        raise SettingsError(f"stt_engine {exc}") from None
    url = str(values.get("url") or "").strip()
    try:
        url = http_url(url) if url else ""
    except ValueError as exc:
        raise SettingsError(f"stt_url {exc}, got {url!r}") from None
    if engine == "openai-compatible" and not url:
        raise SettingsError("stt_url is needed for an OpenAI-compatible listener (e.g. http://127.0.0.1:8000/v1)")
    model = str(values.get("model") or "").strip()
    if any(c.isspace() for c in model):
        raise SettingsError(f"stt_model must be one word, got {model!r}")
    changes.update(stt_engine=engine or None, stt_url=url or None, stt_model=model or None)
    key = str(values.get("key") or "").strip()
    if any(c.isspace() for c in key):
        raise SettingsError("stt_api_key must not contain spaces")
    if key:
        changes["stt_api_key"] = key
    elif values.get("clear_key"):
        changes["stt_api_key"] = None
    return store.save(changes)



