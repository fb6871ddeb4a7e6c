"""Loopback speech servers that speak the real wire formats: OpenAI's `POST /v1/audio/speech` (JSON in, the
audio bytes out with their content type), Kokoro-FastAPI's `GET /v1/audio/voices`, and Gemini's
`POST /v1beta/models/{model}:generateContent` answering `inlineData` of raw 16-bit PCM
(`audio/L16;codec=pcm;rate=24000`). The sound is a real tone of a length that grows with the text, so a
test can measure it with sox. Every request is recorded (path, headers, JSON body).
"""

from __future__ import annotations

import base64
import io
import json
import math
import struct
import threading
import wave
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RATE = 24000


def tone_pcm(seconds: float, rate: int = RATE, freq: float = 220.0) -> bytes:
    """A sine tone at half scale, 16-bit little-endian mono."""
    n = int(seconds * rate)
    return b"".join(struct.pack("<h", int(16000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(n))


def tone_wav(seconds: float, rate: int = RATE) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(tone_pcm(seconds, rate))
    return out.getvalue()


def seconds_for(text: str) -> float:
    """About 8 characters a second, as Japanese speech goes."""
    return max(0.3, len(text) / 8)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names (HTTP headers are case-insensitive; the SDKs send `authorization`)."""
    body: Any


@dataclass
class SpeechServer:
    """An OpenAI-compatible speech server (and Gemini's TTS) on 127.0.0.1; `url` is `http://127.0.0.1:PORT`."""

    voices: list[str] | None = field(default_factory=lambda: ["af_bella", "jf_alpha", "jm_kumo"])
    """What `GET /v1/audio/voices` lists (None: the server has no such route, 404, as openedai-speech)."""
    key: str | None = None
    """When set, requests without `Bearer <key>` get 401."""
    status: int = 200
    """Any other status answers every speech request with OpenAI's error body."""
    requests: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> SpeechServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def speech(self) -> list[Seen]:
        return [r for r in self.requests if r.path.endswith(("/audio/speech", ":generateContent"))]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
                body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
                self._reply(status, json.dumps(body).encode(), "application/json")

            def _authorized(self) -> bool:
                if fake.key is None:
                    return True
                got = self.headers.get("authorization") or ""
                key = self.headers.get("x-goog-api-key")
                return got == f"Bearer {fake.key}" or key == fake.key

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                fake.requests.append(Seen("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
                if self.path.rstrip("/").endswith("/audio/voices") and fake.voices is not None:
                    self._reply(200, json.dumps({"voices": fake.voices}).encode(), "application/json")
                else:
                    self._error(404, "Not Found")

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                fake.requests.append(Seen("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if not self._authorized():
                    self._error(401, "Incorrect API key provided", "invalid_api_key")
                elif fake.status != 200:
                    self._error(fake.status, "the server says no")
                elif self.path.endswith("/audio/speech"):
                    self._speech(body)
                elif self.path.endswith(":generateContent"):
                    self._gemini(body)
                else:
                    self._error(404, "Not Found")

            def _speech(self, body: Any) -> None:
                if not isinstance(body, dict) or not body.get("input") or not body.get("model") or not body.get(
                        "voice"):
                    self._error(400, "model, input and voice are required")
                    return
                if fake.voices is not None and body["voice"] not in fake.voices + ["alloy"]:
                    self._error(400, f"Voice {body['voice']} not found")
                    return
                if body.get("response_format", "mp3") != "wav":
                    self._reply(200, b"ID3\x03\x00fake-mp3", "audio/mpeg")  # what a server sends by default
                    return
                seconds = seconds_for(body["input"]) / float(body.get("speed") or 1.0)
                self._reply(200, tone_wav(seconds), "audio/wav")

            def _gemini(self, body: Any) -> None:
                try:
                    text = body["contents"][0]["parts"][0]["text"]
                    config = body["generationConfig"]
                    assert gemini_voice(body)
                    assert config["responseModalities"] == ["AUDIO"]
                except (KeyError, IndexError, TypeError, AssertionError):
                    self._reply(400, json.dumps({"error": {"code": 400, "message": "bad TTS request",
                                                           "status": "INVALID_ARGUMENT"}}).encode(),
                                "application/json")
                    return
                pcm = tone_pcm(seconds_for(text))
                answer = {"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {
                    "mimeType": "audio/L16;codec=pcm;rate=24000", "data": base64.b64encode(pcm).decode()}}]},
                    "finishReason": "STOP", "index": 0}], "modelVersion": "fake-tts",
                    "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 10, "totalTokenCount": 15}}
                self._reply(200, json.dumps(answer).encode(), "application/json")

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def _either(obj: dict[str, Any], camel: str) -> Any:
    """A field by its proto JSON name or its snake_case one: Google's API takes both, and google-genai 3.3
    sends the speech config's inner fields in snake_case."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return obj[camel] if camel in obj else obj[snake]


def gemini_voice(body: dict[str, Any]) -> str:
    """The prebuilt voice a Gemini TTS request asks for."""
    speech = _either(body["generationConfig"], "speechConfig")
    return str(_either(_either(_either(speech, "voiceConfig"), "prebuiltVoiceConfig"), "voiceName"))


def sox_stat(path: Path) -> dict[str, float]:
    """`sox F -n stat`'s figures (length in seconds, RMS and maximum amplitude …), measured by sox itself."""
    import subprocess

    done = subprocess.run(["sox", str(path), "-n", "stat"], capture_output=True, text=True, check=True, timeout=60)
    out: dict[str, float] = {}
    for line in done.stderr.splitlines():
        name, _, value = line.partition(":")
        try:
            out[" ".join(name.split()).lower()] = float(value.split()[0])
        except (ValueError, IndexError):
            continue
    return out
