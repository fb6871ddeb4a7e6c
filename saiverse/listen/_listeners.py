"""The listeners: who turns a recording into words, as the settings name it (saiverse/setting_fields.py `stt_*`).

- `openai-compatible`: any server with OpenAI's `POST {base}/audio/transcriptions` (multipart: `file`,
  `model`; answers `{"text": …}`): faster-whisper-server / Speaches, whisper.cpp's server,
  LocalAI, openedai-whisper, vLLM. `stt_url` is its base URL (`…/v1`), `stt_api_key` its key if any.
  An empty `stt_engine` with `stt_url` set means this one.
- `openai`: OpenAI itself, with the key the chat models use (OPENAI_API_KEY) and the same client.
- `gemini`: Gemini's `generateContent` with the audio inline and an instruction to write down what is
  said, with GEMINI_API_KEY (Gemini has no transcription endpoint of its own).
Both clients are the official SDKs already pinned for the chat models; each is imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from saiverse.listen._audio import ListenError

OFFICIAL_URL = "https://api.openai.com/v1"
GEMINI_URL = "https://generativelanguage.googleapis.com"
DEFAULT_MODELS = {"openai-compatible": "whisper-1", "openai": "whisper-1", "gemini": "gemini-2.5-flash"}
"""The model asked for when `stt_model` is empty. Most Whisper servers take `whisper-1` as their default
model's name (Speaches and LocalAI map it; whisper.cpp's server ignores the field)."""
ENGINE_NAMES = {"openai-compatible": "OpenAI 互換サーバー", "openai": "OpenAI", "gemini": "Gemini"}
GEMINI_PROMPT = ("Transcribe this recording exactly as spoken, in the language spoken. Answer with the words "
                 "only: no notes, no timestamps, no quotation marks.")
NO_KEY = "no-key"
"""Sent as the key to a compatible server configured without one (the SDK insists on a key)."""


@dataclass(frozen=True)
class Listener:
    """One configured listener: which engine, where, with which model and key."""

    engine: str
    """`openai-compatible`, `openai` or `gemini`."""
    url: str
    """The base URL requests go to (shown in messages; never holds the key)."""
    model: str
    key: str | None
    timeout: float
    lang: str = "ja"
    """The language of the refusals."""

    def describe(self) -> str:
        """`OpenAI 互換サーバー http://…/v1 (whisper-1)`: what the 設定 tab and the CLI say listens."""
        return f"{ENGINE_NAMES[self.engine]} {self.url} ({self.model})"

    def transcribe(self, data: bytes, ext: str, mime: str) -> str:
        """The words of `data` (audio of kind `ext`/`mime`); ListenError when the server fails."""
        if self.engine == "gemini":
            return self._gemini(data, mime)
        return self._openai(data, ext, mime)

    def _fail(self, kind: str, **values: Any) -> ListenError:
        return ListenError(kind, self.lang, url=self.url, **values)

    def _openai(self, data: bytes, ext: str, mime: str) -> str:
        import openai  # slow to load (~0.8 s): only a listening that happens pays for it

        client = openai.OpenAI(api_key=self.key or NO_KEY, base_url=self.url, timeout=self.timeout, max_retries=0)
        try:
            answer = client.audio.transcriptions.create(model=self.model, file=(f"speech.{ext}", data, mime),
                                                        response_format="json")
        except openai.APITimeoutError:
            raise self._fail("timeout", seconds=self.timeout) from None
        except openai.APIConnectionError:
            raise self._fail("unreachable") from None
        except openai.APIStatusError as exc:
            raise self._refused(exc.status_code, _detail(exc.body) or exc.message) from None
        finally:
            client.close()
        return _words(getattr(answer, "text", answer), self)

    def _gemini(self, data: bytes, mime: str) -> str:
        from google import genai
        from google.genai import errors as genai_errors
        from google.genai import types

        options = types.HttpOptions(api_version="v1beta", timeout=int(self.timeout * 1000),
                                    base_url=None if self.url.startswith(GEMINI_URL) else self.url)
        client = genai.Client(api_key=self.key, http_options=options)
        try:
            answer = client.models.generate_content(
                model=self.model, contents=[types.Part.from_bytes(data=data, mime_type=mime), GEMINI_PROMPT])
        except genai_errors.APIError as exc:
            raise self._refused(int(exc.code or 0), str(exc.message or exc.status or "")) from None
        except Exception as exc:  # noqa: BLE001 - the SDK's transport (httpx or httpx2) fails in its own types
            if "timeout" in type(exc).__name__.lower():
                raise self._fail("timeout", seconds=self.timeout) from None
            if type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore"):
                raise self._fail("unreachable") from None
            raise
        finally:
            client.close()
        return _words(answer.text or "", self)

    def _refused(self, status: int, detail: str) -> ListenError:
        if status in (401, 403):
            return self._fail("refused_key", status=status)
        detail = _redact(detail, self.key)[:300] or "—"
        return self._fail("rejected", status=status, detail=detail)


def _detail(body: object) -> str:
    """The message of an OpenAI-style error body (`{"error": {"message": …}}`, or `{"detail": …}`)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("message") or inner.get("detail") or "")
        return str(inner or body.get("detail") or "")
    return str(body or "")


def _redact(text: str, key: str | None) -> str:
    return text.replace(key, "***") if key and len(key) >= 4 else text


def _words(text: object, listener: Listener) -> str:
    words = str(text or "").strip()
    if not words:
        raise listener._fail("no_words")
    return words


def listener_for(settings: Any) -> Listener | None:
    """The listener `settings` name (None: nobody listens); ListenError when it is named but unusable."""
    engine = str(getattr(settings, "stt_engine", "") or "")
    url = str(getattr(settings, "stt_url", "") or "")
    lang = str(getattr(settings, "lang", "ja") or "ja")
    if engine == "off" or (not engine and not url):
        return None
    engine = engine or "openai-compatible"
    model = str(getattr(settings, "stt_model", "") or "") or DEFAULT_MODELS[engine]
    timeout = float(getattr(settings, "request_timeout", 60.0) or 60.0)
    if engine == "openai-compatible":
        if not url:
            raise ListenError("no_url", lang)
        return Listener(engine, url, model, getattr(settings, "stt_api_key", None), timeout, lang)
    if engine == "openai":
        key = getattr(settings, "openai_official_api_key", None)
        base = str(getattr(settings, "openai_official_base_url", "") or "") or OFFICIAL_URL
    else:
        key = getattr(settings, "gemini_api_key", None)
        base = str(getattr(settings, "gemini_base_url", "") or "") or GEMINI_URL
    if not key:
        raise ListenError("no_key", lang, engine=ENGINE_NAMES[engine])
    return Listener(engine, base.rstrip("/"), model, key, timeout, lang)
