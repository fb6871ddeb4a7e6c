"""The page's voice requests, beside Gradio's routes (issue 37; the page side is ui/voice.py).

- `POST /voice/say` `{"persona": id, "name": shown name, "text": …}` → how the page says it:
  `{"engine": "browser", "text", "voice", "speed", "pitch"}` (the page's own speechSynthesis), `{"engine",
  "url"}` (a WAV the app made, or found in its cache), `{"engine": "off"}`, or `{"error": …}` (the reply
  stays silent; the page shows the message once). The persona is found by id, else by the name her bubble shows.
- `POST /voice/warm` `{}` → `{"warming": bool}`: the speaker was turned on; the embedded engine's process
  (seconds to start and load its model) is started now, unless it is already being started, so the first
  sentence does not wait for it (saiverse/voice VoiceService.warm). Nothing else is started or said.
- `GET /voice/audio/<token>`: a WAV `say` handed out (or an audio item's file the item modal opened), by
  the random token it gave. Nothing else of the home is reachable: a token names a file this process made,
  found in `<home>/audio/` or was shown, and it is served only while it is still a regular file in the home
  (not a link out of it).
- `POST /voice/keep` `{"persona", "name", "text", "building"}` → `{"item_id", "name"}` or `{"error"}`: the 💾 of a
  persona line: the line in her voice, sentence by sentence from the audio cache (nothing heard is made again),
  joined into one WAV and kept as an audio item in the building (saiverse/world/_item_audio.py).
- `POST /voice/keep-recording?building=ID&text=…` (the recording as the body) → the same: the last 🎤 recording
  kept as an audio item, its transcription (`text`) as what is said in it.
- `POST /voice/listen` (the recording as the body, at most saiverse/listen MAX_AUDIO_BYTES) →
  `{"text"}` or `{"error"}`: the microphone button and call mode; `GET /voice/listen` → `{"ready", "line"}`:
  whether anyone listens, asked before recording.

ui/web_guard.py's rules hold for them as for every route: a POST from another site's page gets 403, and
before the login of a networked app everything here gets 401. The manager is found through the Gradio
app serving the request (`attach`, called by ui/app.py build_app).
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from saiverse.port import CityPort, UserError, transcribe
from ui.i18n import Labels

MAX_SAY_BYTES = 64 * 1024
"""A sentence (or a past line) to say: far more than any chat line's sentence."""
ISSUED_KEEP = 512
"""Audio tokens remembered per app (the oldest is forgotten first; a forgotten one is said again)."""
_CITIES: WeakKeyDictionary[Any, Desk] = WeakKeyDictionary()


class Desk:
    """One app's voice desk: its manager and the audio tokens it handed out."""

    def __init__(self, manager: CityPort) -> None:
        self.manager = manager
        self._issued: OrderedDict[str, Path] = OrderedDict()
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None

    def issue(self, path: Path) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._issued[token] = path
            while len(self._issued) > ISSUED_KEEP:
                self._issued.popitem(last=False)
        return token

    def issued(self, token: str) -> Path | None:
        with self._lock:
            return self._issued.get(token)

    def persona(self, ref: str, name: str) -> Any:
        personas = self.manager.personas()
        return next((p for p in personas if p.persona_id == ref), None) or next(
            (p for p in personas if name and p.name == name), None)

    def warm(self) -> bool:
        """Start the embedded engine when a persona speaks through it (one start at a time; module docstring)."""
        with self._lock:
            if self._warming is not None and self._warming.is_alive():
                return True
        voices = self.manager.voices
        voice = next((v for v in (voices.voice_for(p.persona_id) for p in self.manager.personas())
                      if v.engine == "embedded"), None)
        worker = voices.warm(voice) if voice is not None else None
        with self._lock:
            self._warming = worker
        return worker is not None

    def say(self, body: dict[str, Any]) -> dict[str, Any]:
        """What the page is to do for one sentence of one persona (see the module docstring)."""
        from saiverse.port import VoiceError, speakable

        lang = str(getattr(self.manager.settings, "lang", "ja"))
        persona = self.persona(str(body.get("persona") or ""), str(body.get("name") or "").strip())
        if persona is None:
            return {"engine": "off"}
        voices = self.manager.voices
        voice = voices.voice_for(persona.persona_id)
        text = str(body.get("text") or "")
        if voice.engine == "off":
            return {"engine": "off"}
        if voice.engine == "browser":
            return {"engine": "browser", "text": speakable(text), "voice": voice.voice or "",
                    "speed": voice.speed, "pitch": voice.pitch}
        try:
            path = voices.synthesize(voice, text)
        except VoiceError as exc:
            return {"engine": voice.engine, "error": _said(exc, lang)}
        if path is None:
            return {"engine": voice.engine}
        return {"engine": voice.engine, "url": f"voice/audio/{self.issue(Path(path))}"}


    def keep(self, body: dict[str, Any]) -> dict[str, Any]:
        """A persona line's voice kept as an audio item in the building the window shows."""
        from saiverse.port import VoiceError, speakable

        labels = Labels(str(getattr(self.manager.settings, "lang", "ja")))
        persona = self.persona(str(body.get("persona") or ""), str(body.get("name") or "").strip())
        text = str(body.get("text") or "")
        if persona is None:
            return {"error": labels("voice_keep_nothing")}
        voice = self.manager.voices.voice_for(persona.persona_id)
        if voice.engine == "browser":
            return {"error": labels("voice_keep_browser")}
        try:
            data = self.manager.voices.line_wav(voice, text)
        except VoiceError as exc:
            return {"error": labels("voice_failed", error=_said(exc, labels.lang))}
        if data is None:
            return {"error": labels("voice_keep_nothing")}
        said = speakable(text)
        name = line_item_name(labels, persona.name, said)
        return self._kept(str(body.get("building") or ""), data, name, said,
                          {"created_by": "voice", "persona_id": persona.persona_id, "engine": voice.engine})

    def keep_recording(self, building: str, data: bytes, text: str) -> dict[str, Any]:
        """The last 🎤 recording kept as an audio item, its transcription as what is said in it."""
        labels = Labels(str(getattr(self.manager.settings, "lang", "ja")))
        name = labels("voice_rec_name", words=_snippet(text)) if text.strip() else labels("voice_rec_untitled")
        return self._kept(building, data, name, text, {"created_by": "recording"})

    def _kept(self, building: str, data: bytes, name: str, said: str, state: dict[str, Any]) -> dict[str, Any]:
        try:
            item = self.manager.uploads.keep_audio(building, data, name, description=said, state=state)
        except (UserError, ValueError, LookupError) as exc:  # no such building, not audio, too large
            return {"error": str(exc)}
        return {"item_id": item.item_id, "name": item.name}


def line_item_name(labels: Labels, persona: str, said: str) -> str:
    """The name of a line kept in her voice: `ミナの声「first words…」` (the page's 💾 and `speak --keep-in`)."""
    return labels("voice_item_name", persona=persona, words=_snippet(said))


def _snippet(text: str, limit: int = 14) -> str:
    """The first words of what is said, for an item's name."""
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def _said(exc: BaseException, lang: str) -> str:
    text = getattr(exc, "text", None)  # VoiceError.text(lang): its message in the window's language
    return str(text(lang)) if callable(text) else str(exc)


def attach(blocks: Any, manager: CityPort) -> None:
    """Let the voice routes of the app serving `blocks` reach `manager` (ui/app.py build_app)."""
    _CITIES[blocks] = Desk(manager)


def audio_url(manager: CityPort, path: Path) -> str | None:
    """The page's URL of a WAV `manager`'s voices made (the ペルソナ tab's 試聴); None before a window is served."""
    desk = next((d for d in list(_CITIES.values()) if d.manager is manager), None)
    return f"voice/audio/{desk.issue(Path(path))}" if desk is not None else None


def _desk(request: Request) -> Desk | None:
    try:
        return _CITIES.get(request.app.get_blocks())
    except Exception:  # noqa: BLE001 - an app without Blocks (none yet): no voice
        return None


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it is larger than `limit` (read no further)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def _asked(request: Request, answer: Callable[[Desk, dict[str, Any]], dict[str, Any]]) -> Response:
    """A JSON object in (at most MAX_SAY_BYTES), `answer`'s JSON out, run off the event loop."""
    desk = _desk(request)
    raw = await _body(request, MAX_SAY_BYTES)
    if desk is None or raw is None:
        return JSONResponse({"error": "too large" if raw is None else "no city"}, status_code=413 if raw is None
                            else 503)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return JSONResponse({"error": "a JSON object is expected"}, status_code=400)
    return JSONResponse(await run_in_threadpool(answer, desk, body))


async def say(request: Request) -> Response:
    return await _asked(request, Desk.say)


async def warm(request: Request) -> Response:
    desk = _desk(request)
    if desk is None:
        return JSONResponse({"error": "no city"}, status_code=503)
    await _body(request, MAX_SAY_BYTES)  # nothing in it is used
    return JSONResponse({"warming": await run_in_threadpool(desk.warm)})


async def audio(request: Request) -> Response:
    desk = _desk(request)
    path = desk.issued(request.path_params["token"]) if desk is not None else None
    if desk is None or path is None:
        return Response("No such audio.\n", status_code=404, media_type="text/plain")
    home = Path(desk.manager.settings.home).resolve()
    # Served only while it is what was handed out: a regular file inside the home, reached by no link.
    if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(home):
        return Response("No such audio.\n", status_code=404, media_type="text/plain")
    kind = mimetypes.guess_type(path.name)[0] or "audio/wav"  # the cache's WAVs; an audio item's own kind
    return FileResponse(path, media_type=kind, headers={"Cache-Control": "private, max-age=3600"})


async def listen(request: Request) -> Response:
    from saiverse.port import MAX_AUDIO_BYTES, ListenError, listen_refusal

    desk = _desk(request)
    if request.method == "GET":  # 🎤 asks first whether anyone listens (the refusal says where to set one)
        why = listen_refusal(desk.manager.settings) if desk is not None else "no city"
        return JSONResponse({"ready": why is None, "line": why or ""})
    lang = str(getattr(desk.manager.settings, "lang", "ja")) if desk is not None else "ja"
    raw = await _body(request, MAX_AUDIO_BYTES)
    if desk is None:
        return JSONResponse({"error": "no city"}, status_code=503)
    if raw is None:
        return JSONResponse({"error": str(ListenError("too_large", lang, size=f"> {MAX_AUDIO_BYTES // 2**20} MB",
                                                      limit=f"{MAX_AUDIO_BYTES // 2**20} MB"))}, status_code=413)
    try:
        text = await run_in_threadpool(transcribe, desk.manager.settings, raw)
    except UserError as exc:  # ListenError: no listener, not audio, the server down or refusing
        return JSONResponse({"error": str(exc)}, status_code=422)
    return JSONResponse({"text": text})


async def keep(request: Request) -> Response:
    return await _asked(request, Desk.keep)


async def keep_recording(request: Request) -> Response:
    from saiverse.port import MAX_AUDIO_BYTES

    desk = _desk(request)
    raw = await _body(request, MAX_AUDIO_BYTES)
    if desk is None or raw is None:
        return JSONResponse({"error": "too large" if raw is None else "no city"}, status_code=413 if raw is None
                            else 503)
    building, text = request.query_params.get("building", ""), request.query_params.get("text", "")[:2000]
    return JSONResponse(await run_in_threadpool(desk.keep_recording, building, raw, text))


ROUTES = [
    Route("/voice/say", say, methods=["POST"]),
    Route("/voice/keep", keep, methods=["POST"]),
    Route("/voice/keep-recording", keep_recording, methods=["POST"]),
    Route("/voice/warm", warm, methods=["POST"]),
    Route("/voice/audio/{token:str}", audio, methods=["GET"]),
    Route("/voice/listen", listen, methods=["GET", "POST"]),
]
"""Handed to the app Gradio makes (ui/app.py launch_kwargs `app_kwargs["routes"]`)."""
