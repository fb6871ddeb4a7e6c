"""Voices from servers: an OpenAI-compatible `/v1/audio/speech` server the user runs (Kokoro-FastAPI,
openedai-speech, AllTalk …), OpenAI's own TTS, and Gemini's TTS — through the providers' client libraries
(`openai`, `google-genai`), as the chat models talk to them (saiverse/llm/openai_sdk.py, gemini.py).

Every engine returns a WAV: the OpenAI speech endpoint is asked for `response_format="wav"`; Gemini answers
raw 16-bit PCM (24 kHz mono), wrapped here. The voice list is read from the server where it offers one
(Kokoro-FastAPI's `GET /v1/audio/voices`), else the provider's documented voices. A key is never logged.
"""

from __future__ import annotations

import io
import json
import logging
import urllib.error
import urllib.request
import wave
from collections.abc import Callable
from typing import Any

from saiverse.voice._settings import VoiceError, VoiceSettings

log = logging.getLogger(__name__)

OPENAI_URL = "https://api.openai.com/v1"
NO_KEY = "no-key"
"""Sent as the key to a compatible server without one (the SDK insists on a key; local servers ignore it)."""
OPENAI_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"]
"""OpenAI's documented TTS voices (also what most compatible servers accept by name)."""
GEMINI_VOICES = ["Kore", "Puck", "Zephyr", "Charon", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe", "Autonoe",
                 "Enceladus", "Iapetus", "Umbriel", "Algieba", "Despina", "Erinome", "Algenib", "Rasalgethi",
                 "Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux", "Pulcherrima", "Achird",
                 "Zubenelgenubi", "Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat"]
"""Gemini TTS's prebuilt voices."""
DEFAULT_MODELS = {"openai-compatible": "tts-1", "openai": "gpt-4o-mini-tts", "gemini": "gemini-2.5-flash-preview-tts"}
DEFAULT_VOICES = {"openai-compatible": "alloy", "openai": "alloy", "gemini": "Kore"}
GEMINI_RATE = 24000


def pcm_wav(pcm: bytes, rate: int = GEMINI_RATE) -> bytes:
    """16-bit little-endian mono PCM as a WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return out.getvalue()


def _is_wav(data: bytes) -> bool:
    return len(data) > 44 and data[:4] == b"RIFF" and data[8:12] == b"WAVE"


class OpenAISpeech:
    """`openai-compatible` (base URL from the voice) and `openai` (設定's key and base URL)."""

    def __init__(self, name: str, settings: Callable[[], Any]) -> None:
        self.name = name
        self._settings = settings

    def _endpoint(self, voice: VoiceSettings) -> tuple[str, str | None]:
        s = self._settings()
        if self.name == "openai":
            key = getattr(s, "openai_official_api_key", None)
            if not key:
                raise VoiceError("OpenAI の音声には API キーが要ります (設定 → OPENAI_API_KEY)",
                                 "OpenAI's voices need an API key (設定 / OPENAI_API_KEY)", kind="no_key")
            return (voice.url or getattr(s, "openai_official_base_url", None) or OPENAI_URL).rstrip("/"), key
        base = voice.url.rstrip("/")
        # 設定's compatible server key goes only to that same server, never to another URL.
        same = (getattr(s, "openai_base_url", None) or "").rstrip("/") == base
        return base, (getattr(s, "openai_api_key", None) if same else None)

    def _client(self, voice: VoiceSettings) -> Any:
        import openai  # slow to load: only a voice that uses it pays

        base, key = self._endpoint(voice)
        timeout = float(getattr(self._settings(), "request_timeout", 60.0))
        return openai.OpenAI(api_key=key or NO_KEY, base_url=base, timeout=timeout, max_retries=0), base

    def speak(self, voice: VoiceSettings, text: str) -> bytes:
        import openai

        client, base = self._client(voice)
        try:
            response = client.audio.speech.create(
                model=voice.model or DEFAULT_MODELS[self.name], voice=voice.voice or DEFAULT_VOICES[self.name],
                input=text, response_format="wav", speed=voice.speed)
            data = response.read()
        except openai.APIConnectionError as exc:
            raise _unreachable(base, exc) from exc
        except openai.APIStatusError as exc:
            raise _refused(base, exc.status_code, _detail(exc)) from exc
        finally:
            client.close()
        if not _is_wav(data):
            raise VoiceError(f"音声サーバー {base} の答えは WAV ではありません ({len(data)} バイト)",
                             f"the voice server {base} did not answer a WAV ({len(data)} bytes)", kind="refused")
        return data

    def voices(self, voice: VoiceSettings) -> list[str]:
        """Kokoro-FastAPI and others list their voices at `GET {base}/audio/voices`; OpenAI has a fixed list."""
        if self.name == "openai":
            return list(OPENAI_VOICES)
        base, key = self._endpoint(voice)
        request = urllib.request.Request(f"{base}/audio/voices", headers={
            "Authorization": f"Bearer {key or NO_KEY}", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - the user's http(s) server
                body = json.loads(answer.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if exc.code in (404, 405):
                return list(OPENAI_VOICES)  # the server keeps no list: the names OpenAI's clients send
            raise _refused(base, exc.code, exc.reason) from exc
        except (OSError, ValueError) as exc:
            raise _unreachable(base, exc) from exc
        items = body.get("voices", body.get("data", [])) if isinstance(body, dict) else body
        names = [str(v.get("id") or v.get("name") or "") if isinstance(v, dict) else str(v) for v in items or []]
        return [n for n in names if n]

    def close(self) -> None:
        return None


class GeminiSpeech:
    """Gemini's TTS (`generate_content` with an audio answer), with 設定's key."""

    name = "gemini"

    def __init__(self, settings: Callable[[], Any]) -> None:
        self._settings = settings

    def speak(self, voice: VoiceSettings, text: str) -> bytes:
        from google import genai
        from google.genai import errors, types

        s = self._settings()
        key = getattr(s, "gemini_api_key", None)
        if not key:
            raise VoiceError("Gemini の音声には API キーが要ります (設定 → GEMINI_API_KEY)",
                             "Gemini's voices need an API key (設定 / GEMINI_API_KEY)", kind="no_key")
        timeout = float(getattr(s, "request_timeout", 60.0))
        base = getattr(s, "gemini_base_url", None) or None
        client = genai.Client(api_key=key, http_options=types.HttpOptions(
            api_version="v1beta", timeout=int(timeout * 1000), base_url=base))
        where = base or "Gemini"
        speech = types.SpeechConfig(voice_config=types.VoiceConfig(
            prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=voice.voice or DEFAULT_VOICES["gemini"])))
        try:
            response = client.models.generate_content(
                model=voice.model or DEFAULT_MODELS["gemini"], contents=text,
                config=types.GenerateContentConfig(response_modalities=["AUDIO"], speech_config=speech))
        except errors.APIError as exc:
            raise _refused(where, int(getattr(exc, "code", 0) or 0), str(getattr(exc, "message", "") or "")) from exc
        except OSError as exc:
            raise VoiceError(f"{where} に接続できません ({type(exc).__name__})",
                             f"cannot reach {where} ({type(exc).__name__})", kind="unreachable") from exc
        except Exception as exc:  # httpx's transport errors (the SDK's own httpx fork has other classes)
            if "connect" in type(exc).__name__.lower() or "timeout" in type(exc).__name__.lower():
                raise VoiceError(f"{where} に接続できません ({type(exc).__name__})",
                                 f"cannot reach {where} ({type(exc).__name__})", kind="unreachable") from exc
            raise
        for candidate in response.candidates or []:
            for part in (candidate.content.parts if candidate.content else None) or []:
                blob = part.inline_data
                if blob is not None and blob.data:
                    rate = _rate(blob.mime_type or "")
                    return pcm_wav(blob.data, rate)
        raise VoiceError(f"{where} の答えに音声がありません", f"{where} answered no audio", kind="refused")

    def voices(self, voice: VoiceSettings) -> list[str]:
        return list(GEMINI_VOICES)

    def close(self) -> None:
        return None


def _rate(mime: str) -> int:
    """`audio/L16;codec=pcm;rate=24000` → 24000."""
    for part in mime.split(";"):
        name, _, value = part.strip().partition("=")
        if name == "rate" and value.isdigit():
            return int(value)
    return GEMINI_RATE


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or "")[:200]
        return str(err)[:200]
    return str(getattr(exc, "message", "") or "")[:200]


def _unreachable(where: str, exc: BaseException) -> VoiceError:
    return VoiceError(f"音声サーバー {where} に接続できません ({type(exc).__name__})",
                      f"cannot reach the voice server {where} ({type(exc).__name__})", kind="unreachable")


def _refused(where: str, status: int, detail: str) -> VoiceError:
    hint_ja, hint_en = {
        401: ("キーが通りません", "the key was refused"), 403: ("キーが通りません", "the key was refused"),
        404: ("そのモデルか /audio/speech がありません", "no such model, or no /audio/speech"),
        429: ("混んでいるか上限です。あとでもう一度", "busy or over the limit; try again later"),
    }.get(status, ("", ""))
    tail = f": {detail}" if detail else ""
    return VoiceError(f"{where} が音声を断りました (HTTP {status}{'、' + hint_ja if hint_ja else ''}){tail}",
                      f"{where} refused the speech (HTTP {status}{', ' + hint_en if hint_en else ''}){tail}",
                      kind="no_key" if status in (401, 403) else "refused")


def server_engine(name: str, settings: Callable[[], Any]) -> OpenAISpeech | GeminiSpeech:
    """The engine object for a server engine name."""
    if name == "gemini":
        return GeminiSpeech(settings)
    if name in ("openai", "openai-compatible"):
        return OpenAISpeech(name, settings)
    raise VoiceError(f"エンジン {name!r} はサーバーのものではありません", f"{name!r} is not a server engine")
