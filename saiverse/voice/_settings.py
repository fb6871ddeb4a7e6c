"""Each persona's voice: which engine speaks for her, in which voice, how fast, at which pitch.

Kept in the city's database as the world setting `voice:<persona id>` (a JSON object), like reflex
recall's switch (saiverse/memory/_reflex.py) and the 自律 switch (saiverse/world/_settings.py): it
belongs to the city, travels with its backup and needs no schema step. A persona with no entry speaks
with the embedded engine's default voice.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from saiverse.errors import UserError
from saiverse.world import WorldSettings

Engine = Literal["embedded", "openai-compatible", "openai", "gemini", "browser", "off"]
"""Who makes the sound:

- `embedded`: Kokoro-82M on this CPU, in a supervised child process; no key, no network;
- `openai-compatible`: a `/v1/audio/speech` server the user runs (Kokoro-FastAPI, openedai-speech,
  AllTalk …) at `url`;
- `openai` / `gemini`: the provider's own TTS with the key of 設定;
- `browser`: the page's own `speechSynthesis` (the server makes no audio);
- `off`: she does not speak."""
ENGINES: tuple[str, ...] = get_args(Engine)
"""Every engine name, in the order the UI offers them."""
VOICE_ENGINES = ENGINES
"""The same, under the name the UI's port (saiverse/port.py) gives it."""
SERVER_ENGINES = ("embedded", "openai-compatible", "openai", "gemini")
"""The engines whose audio the server makes (and caches); `browser` and `off` make none here."""
SETTING_PREFIX = "voice:"
"""World setting key prefix; the persona id follows."""
SPEED_RANGE = (0.5, 2.0)
PITCH_RANGE = (-12.0, 12.0)


class VoiceError(UserError):
    """A voice that cannot be set or cannot speak now; the message (Japanese) says which and why.

    `kind`: `bad_setting` (an unknown engine, a bad speed or URL), `unknown_voice`, `no_key`,
    `unreachable` (the server did not answer), `refused` (it answered with an error), `crashed` (the
    embedded engine's process died or hung; the next request starts it anew), `missing` (the
    embedded engine is not installed). `str()` is the Japanese message; `text(settings.lang)` picks the
    settings' language (the CLI and the UI use it)."""

    def __init__(self, ja: str, en: str = "", kind: str = "bad_setting") -> None:
        super().__init__(ja)
        self.ja, self.en, self.kind = ja, en or ja, kind

    def text(self, lang: str) -> str:
        """The message in `lang` ("en" or Japanese)."""
        return self.en if lang == "en" else self.ja



@dataclass(frozen=True)
class VoiceSettings:
    """One persona's voice. Empty `voice` means the engine's default."""

    engine: Engine = "embedded"
    voice: str = ""
    """The engine's voice name (`jf_alpha`, `alloy`, `Kore` …)."""
    speed: float = 1.0
    """1.0 is the engine's normal pace; 0.5 … 2.0."""
    pitch: float = 0.0
    """Semitones up or down, -12 … 12, for engines that have it (the browser's); others ignore it."""
    url: str = ""
    """The base URL of an `openai-compatible` server (`http://127.0.0.1:8880/v1`); for `openai`, an
    optional base URL overriding 設定's."""
    model: str = ""
    """The server's TTS model ("" is the engine's default: `tts-1` on a compatible server,
    `gpt-4o-mini-tts` on OpenAI, `gemini-2.5-flash-preview-tts` on Gemini)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VoiceSettings:
        """The settings a stored or imported object holds; unknown keys are ignored, bad values raise
        VoiceError."""
        fields = ("engine", "voice", "speed", "pitch", "url", "model")
        known = {k: data[k] for k in fields if data.get(k) is not None}
        return checked(cls(), **known)


def checked(base: VoiceSettings, **changes: Any) -> VoiceSettings:
    """`base` with `changes`, each checked: a clear Japanese message for an unknown engine, a speed or
    pitch out of range, a URL that is not http(s)."""
    out = replace(base, **{k: v for k, v in changes.items() if v is not None})
    if out.engine not in ENGINES:
        raise VoiceError(f"エンジン {out.engine!r} はありません (使えるもの: {', '.join(ENGINES)})",
                         f"no engine {out.engine!r} (choose one of: {', '.join(ENGINES)})")
    try:
        speed, pitch = float(out.speed), float(out.pitch)
    except (TypeError, ValueError):
        raise VoiceError(f"速さ {out.speed!r} / 高さ {out.pitch!r} は数ではありません",
                         f"speed {out.speed!r} / pitch {out.pitch!r} is not a number") from None
    if not (math.isfinite(speed) and SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]):
        raise VoiceError(f"速さ {out.speed} は使えません ({SPEED_RANGE[0]} から {SPEED_RANGE[1]} まで)",
                         f"speed {out.speed} cannot be used (from {SPEED_RANGE[0]} to {SPEED_RANGE[1]})")
    if not (math.isfinite(pitch) and PITCH_RANGE[0] <= pitch <= PITCH_RANGE[1]):
        raise VoiceError(f"高さ {out.pitch} は使えません ({PITCH_RANGE[0]:g} から {PITCH_RANGE[1]:g} 半音まで)",
                         f"pitch {out.pitch} cannot be used ({PITCH_RANGE[0]:g} to {PITCH_RANGE[1]:g} semitones)")
    url = str(out.url or "").strip().rstrip("/")
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise VoiceError(f"URL {url!r} は使えません (http://… か https://… で、例: http://127.0.0.1:8880/v1)",
                             f"URL {url!r} cannot be used (http://… or https://…, e.g. http://127.0.0.1:8880/v1)")
    if out.engine == "openai-compatible" and not url:
        raise VoiceError("openai-compatible エンジンには --url (サーバーのベース URL、"
                         "例: http://127.0.0.1:8880/v1) が要ります",
                         "the openai-compatible engine needs --url (the server's base URL, "
                         "e.g. http://127.0.0.1:8880/v1)")
    return replace(out, speed=speed, pitch=pitch, url=url, voice=str(out.voice or "").strip(),
                   model=str(out.model or "").strip())


def voice_setting_key(persona_id: str) -> str:
    """The world setting holding one persona's voice."""
    return f"{SETTING_PREFIX}{persona_id}"


def voice_for(world_settings: WorldSettings, persona_id: str) -> VoiceSettings:
    """The persona's voice (the default when none is set, or when what is stored no longer reads)."""
    raw = world_settings.get(voice_setting_key(persona_id))
    if not raw:
        return VoiceSettings()
    try:
        data = json.loads(raw)
        return VoiceSettings.from_dict(data if isinstance(data, dict) else {})
    except (ValueError, VoiceError):
        return VoiceSettings()


def set_voice(world_settings: WorldSettings, persona_id: str, **changes: Any) -> VoiceSettings:
    """Change the persona's voice (only the given fields; None leaves a field) and return it; checked first,
    so a bad value changes nothing. One committed write."""
    new = checked(voice_for(world_settings, persona_id), **changes)
    world_settings.set(voice_setting_key(persona_id), json.dumps(new.to_dict(), ensure_ascii=False))
    return new
