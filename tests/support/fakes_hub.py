"""Loopback fakes of the Hugging Face file endpoint (`HF_ENDPOINT`) and of local model servers.

`FakeHub` serves files under `/{repo}/resolve/{revision}/{file}` as the hub does for an LFS file: the
HEAD answers 302 to a CDN address (here its own `/cdn/<sha256>`) with `X-Repo-Commit`,
`X-Linked-Etag` (the sha256), `X-Linked-Size`, `ETag`; the CDN answers GET with `Accept-Ranges`,
`Content-Length` and Range requests (206). Unknown repositories and files answer 404 with the hub's
`X-Error-Code`. It can cut the connection after some bytes (once), go slowly, or lie about the sha256.

`FakeModelServer` is Ollama (`GET /api/tags`) or LM Studio / llama-server (`GET /v1/models`) with the
OpenAI-compatible `POST /v1/chat/completions` of tests/support/fakes_llm.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.support.fakes_llm import FakeServer, Recorded, openai_stream, openai_text

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class HubFile:
    path: Path
    sha256: str
    served_sha256: str = ""
    """What the hub claims (a wrong one tests refusal); empty: the true sha256."""


@dataclass
class FakeHub:
    """The hub's file endpoint on 127.0.0.1; `url` is what HF_ENDPOINT is set to."""

    files: dict[tuple[str, str], HubFile] = field(default_factory=dict)
    cut_after: int | None = None
    """Close the first CDN GET after this many bytes (a dropped connection), then serve normally."""
    bytes_per_s: int | None = None
    """Throttle the CDN (so a test can kill a pull midway)."""
    log: list[tuple[str, str, str]] = field(default_factory=list)
    """(method, path, Range header) of every request."""
    endless: bool = False
    """The CDN answers GET without a Content-Length and, after the file, sends zeros until the client
    hangs up (a hostile or broken mirror); `sent_endless` counts the bytes it got out."""
    sent_endless: int = 0

    def __post_init__(self) -> None:
        # Two origins, as on the real hub: the hub answers metadata, a CDN on another origin the bytes
        # (huggingface_hub follows a redirect only within the hub's own origin).
        self._servers = [ThreadingHTTPServer(("127.0.0.1", 0), self._handler()) for _ in range(2)]
        self._threads = []
        for server in self._servers:
            server.daemon_threads = True
            self._threads.append(threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                                                  daemon=True))
        self._cut_done = False
        self._gone = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servers[0].server_port}"

    @property
    def cdn_url(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_port}"

    def add(self, repo: str, filename: str, path: Path, *, served_sha256: str = "") -> HubFile:
        entry = HubFile(path, file_sha256(path), served_sha256)
        self.files[(repo, filename)] = entry
        return entry

    def ranges(self) -> list[str]:
        return [r for m, p, r in self.log if m == "GET" and p.startswith("/cdn/")]

    def _by_sha(self, sha: str) -> HubFile | None:
        return next((f for f in self.files.values() if f.sha256 == sha), None)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _error(self, status: int, code: str, message: str) -> None:
                body = json.dumps({"error": message}).encode()
                self.send_response(status)
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _resolve(self) -> None:
                match = re.fullmatch(r"/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)", self.path)
                if not match:
                    return self._error(404, "RepoNotFound", "Repository not found")
                repo, filename = match.group("repo"), match.group("file")
                if not any(r == repo for r, _f in hub.files):
                    return self._error(404, "RepoNotFound", "Repository not found")
                entry = hub.files.get((repo, filename))
                if entry is None:
                    return self._error(404, "EntryNotFound", "Entry not found")
                size = entry.path.stat().st_size
                self.send_response(302)
                self.send_header("Location", f"{hub.cdn_url}/cdn/{entry.sha256}")
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("X-Linked-Etag", f'"{entry.served_sha256 or entry.sha256}"')
                self.send_header("X-Linked-Size", str(size))
                self.send_header("ETag", '"5a2c0b2f9e2d3c4b5a6978e8d7c6b5a4f3e2d1c0"')  # the pointer's git oid
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _cdn(self) -> None:
                entry = hub._by_sha(self.path.rsplit("/", 1)[-1])
                if entry is None:
                    return self._error(404, "EntryNotFound", "Entry not found")
                size = entry.path.stat().st_size
                start = 0
                rng = self.headers.get("Range") or ""
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
                if match:
                    start = int(match.group(1))
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                else:
                    self.send_response(200)
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Type", "application/octet-stream")
                if hub.endless and self.command == "GET":
                    self.send_header("Connection", "close")  # the body ends only when the connection does
                else:
                    self.send_header("Content-Length", str(size - start))
                self.send_header("ETag", f'"{entry.sha256}"')
                self.end_headers()
                if self.command == "HEAD":
                    return
                if hub.endless:
                    return self._endless(entry.path, start)
                cut = None
                if hub.cut_after is not None and not hub._cut_done:
                    hub._cut_done = True
                    cut = hub.cut_after
                sent = 0
                try:
                    with entry.path.open("rb") as fh:
                        fh.seek(start)
                        while True:
                            block = fh.read(1 << 16)
                            if not block:
                                break
                            if cut is not None and sent + len(block) > cut:
                                self.wfile.write(block[: cut - sent])
                                self.wfile.flush()
                                self.close_connection = True
                                self.connection.shutdown(2)  # the connection drops mid-file
                                return
                            if hub._gone:  # the hub went away: its open downloads drop too
                                self.connection.shutdown(2)
                                return
                            self.wfile.write(block)
                            sent += len(block)
                            if hub.bytes_per_s:
                                time.sleep(len(block) / hub.bytes_per_s)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    return

            def _endless(self, path: Path, start: int) -> None:
                self.close_connection = True
                try:
                    with path.open("rb") as fh:
                        fh.seek(start)
                        self.wfile.write(fh.read())
                    zeros = bytes(1 << 16)
                    while not hub._gone:
                        self.wfile.write(zeros)
                        hub.sent_endless += len(zeros)
                except OSError:
                    return

            def _route(self) -> None:
                hub.log.append((self.command, self.path, self.headers.get("Range") or ""))
                if self.path.startswith("/cdn/"):
                    return self._cdn()
                return self._resolve()

            def do_HEAD(self) -> None:  # noqa: N802
                self._route()

            def do_GET(self) -> None:  # noqa: N802
                self._route()

        return Handler

    def __enter__(self) -> FakeHub:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._gone = True
        for server in self._servers:
            server.shutdown()
            server.server_close()


class FakeModelServer(FakeServer):
    """Ollama (`kind="ollama"`: `/api/tags`) or an OpenAI-style server (`/v1/models`) that lists `models`
    and answers `/v1/chat/completions` from the FakeServer script."""

    def __init__(self, kind: str, models: list[str], *, say: str = "",
                 decide: Callable[[dict[str, Any]], str] | None = None) -> None:
        self.kind = kind
        self.models = models
        self.say = say
        """With `say`, every chat completion answers it (streamed when asked), JSON asks (the router) get `{"playbook":
        "basic_chat", "args": {}}`, instead of the FakeServer script."""
        self.decide = decide
        """With `say`: what a JSON ask (`response_format` or `tools`) gets instead, from its request body
        (a weak model's prose, broken JSON)."""
        super().__init__()

    def listing(self) -> dict[str, Any]:
        if self.kind == "ollama":  # as Ollama's /api/tags answers
            return {"models": [{"name": m, "model": m, "modified_at": "2026-11-01T10:00:00.000000+09:00",
                                "size": 1_929_000_000, "digest": hashlib.sha256(m.encode()).hexdigest(),
                                "details": {"parent_model": "", "format": "gguf", "family": "qwen2",
                                            "families": ["qwen2"], "parameter_size": "3.1B",
                                            "quantization_level": "Q4_K_M"}} for m in self.models]}
        return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "organization_owner"}
                                           for m in self.models]}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base = super()._handler()
        fake = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:  # noqa: N802
                if not fake.say:
                    return super().do_POST()
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw or b"{}")
                with fake._lock:
                    fake.requests.append(Recorded("POST", self.path, httpx.Headers(dict(self.headers)), body))
                if body.get("stream"):
                    reply = openai_stream([fake.say[: len(fake.say) // 2], fake.say[len(fake.say) // 2:]])
                elif (body.get("response_format") or body.get("tools")) and fake.decide is not None:
                    reply = openai_text(fake.decide(body))
                elif body.get("response_format") or body.get("tools"):
                    reply = openai_text(json.dumps({"playbook": "basic_chat", "args": {}}, ensure_ascii=False))
                else:
                    reply = openai_text(fake.say)
                self._send(reply)

            def do_GET(self) -> None:  # noqa: N802
                path = "/api/tags" if fake.kind == "ollama" else "/v1/models"
                if self.path != path:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(fake.listing()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
