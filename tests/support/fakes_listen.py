"""A loopback Whisper server for the listening tests: OpenAI's `POST /v1/audio/transcriptions` wire format.

The request is a `multipart/form-data` body (a `file` part with its file name and type, a `model`
field, `response_format`), as the `openai` client and a browser's form both send it; the answer is
`{"text": …}`. `TranscriptionServer` parses every request's parts like a real server and answers 400
when the `file` part is missing, so a client that sent something else fails here as it would there.
Recordings are made with sox (`sox_wav`): a spoken-like burst, then silence (what ends a turn).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Part:
    """One part of a multipart form: a field's text, or a file's name, type and bytes."""

    name: str
    data: bytes
    filename: str | None = None
    content_type: str = ""

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


def parse_form(content_type: str, body: bytes) -> dict[str, Part]:
    """The parts of a `multipart/form-data` body, by field name (the standard library's MIME parser)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    parts: dict[str, Part] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            parts[str(name)] = Part(str(name), part.get_payload(decode=True) or b"", part.get_filename(),
                                    part.get_content_type())
    return parts


@dataclass
class Heard:
    """One request the fake server received."""

    path: str
    headers: dict[str, str]
    form: dict[str, Part]


@dataclass
class TranscriptionServer:
    """A Whisper server on 127.0.0.1: answers every transcription with `text` (or `status`/`error`)."""

    text: str = "こんにちは"
    status: int = 200
    error: str = ""
    heard: list[Heard] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def url(self) -> str:
        """The base URL a listener is given (`…/v1`)."""
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path != "/v1/audio/transcriptions":
                    return self._answer(404, {"detail": "Not Found"})
                form = parse_form(self.headers.get("content-type", ""), body)
                fake.heard.append(Heard(self.path, {k.lower(): v for k, v in self.headers.items()}, form))
                if "file" not in form or not form["file"].filename or "model" not in form:
                    return self._answer(400, {"error": {"message": "file and model are required"}})
                if fake.status != 200:
                    return self._answer(fake.status, {"error": {"message": fake.error or "refused"}})
                self._answer(200, {"text": fake.text})

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def __enter__(self) -> TranscriptionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def sox_wav(path: Path, *, speech: float = 1.5, silence: float = 2.5, rate: int = 48000) -> Path:
    """A mono WAV made by sox: `silence`/2 of quiet, `speech` seconds of a voice-like sound (a 180 Hz
    sawtooth, tremolo at 4 Hz like syllables), then `silence` of quiet — what a microphone hears when
    someone asks a short question and stops. Skips the test when sox is missing (scripts/test.sh installs it)."""
    from tests.support.browser import not_installed

    sox = shutil.which("sox")
    if sox is None:
        not_installed("sox is not installed (apt-get install sox, or run scripts/test.sh)")
    subprocess.run([sox, "-n", "-r", str(rate), "-c", "1", "-b", "16", str(path), "synth", str(speech),
                    "sawtooth", "180", "tremolo", "4", "80", "vol", "0.6", "pad", str(silence / 2), str(silence)],
                   check=True, capture_output=True)
    return path
