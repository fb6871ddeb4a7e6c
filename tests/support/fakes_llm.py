"""Small fake model servers on 127.0.0.1 that speak the real wire formats (Gemini, OpenAI, Anthropic).

A `FakeServer` records every request (path, headers, parsed JSON body) and answers from a FIFO
of scripted `Reply`s; helpers below build the provider-specific payloads. Used as a context
manager; the port is chosen by the OS (port 0).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


@dataclass
class Recorded:
    """One request the fake received."""

    method: str
    path: str
    headers: httpx.Headers
    body: Any


@dataclass
class Reply:
    """One scripted answer: a JSON body, SSE events, or raw bytes, with status and headers."""

    status: int = 200
    json: Any = None
    sse: list[str] | None = None
    """Raw `data:` payloads (already JSON-encoded strings); written as an event stream."""
    sse_sep: str = "\n\n"
    events: list[tuple[str, str]] | None = None
    """Named SSE events (`event: name` + `data: json`), as Anthropic streams them."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (to provoke client timeouts)."""
    match: str = ""
    """Only used for a request whose path contains this text."""


class FakeServer:
    """A scripted HTTP server on loopback; `url` is its base URL."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self.fallback: Reply | None = None
        """Answer used (and kept) when no queued reply fits."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`."""
        return f"http://127.0.0.1:{self._server.server_port}"

    def queue(self, *replies: Reply) -> FakeServer:
        """Add replies to the end of the script."""
        with self._lock:
            self.replies.extend(replies)
        return self

    def _next(self, path: str) -> Reply:
        with self._lock:
            for i, reply in enumerate(self.replies):
                if reply.match in path:
                    return self.replies.pop(i)
            if self.fallback is not None:
                return self.fallback
        return Reply(status=500, json={"error": {"message": f"no scripted reply for {path}"}})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                with fake._lock:
                    # Case-insensitive, as HTTP headers are (the SDKs send `authorization`).
                    fake.requests.append(Recorded("POST", self.path, httpx.Headers(dict(self.headers)), body))
                reply = fake._next(self.path)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.events is not None:
                    payload = "".join(f"event: {name}\ndata: {data}\n\n" for name, data in reply.events).encode()
                    self.send_header("Content-Type", "text/event-stream")
                elif reply.sse is not None:
                    payload = "".join(f"data: {event}{reply.sse_sep}" for event in reply.sse).encode()
                    self.send_header("Content-Type", "text/event-stream")
                else:
                    payload = json.dumps(reply.json if reply.json is not None else {}).encode()
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass  # keep test output clean

        return Handler

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# -- Gemini payloads --------------------------------------------------------------------------

def gemini_parts(parts: list[dict[str, Any]], *, prompt_tokens: int = 7, output_tokens: int = 3) -> dict:
    """A `GenerateContentResponse` JSON with one candidate made of `parts`."""
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": output_tokens,
                          "totalTokenCount": prompt_tokens + output_tokens},
        "modelVersion": "fake",
    }


def gemini_text(text: str, **kw: Any) -> Reply:
    """A generateContent answer carrying `text`."""
    return Reply(json=gemini_parts([{"text": text}]), **kw)


def gemini_call(name: str, args: dict[str, Any]) -> Reply:
    """A generateContent answer asking for a function call."""
    return Reply(json=gemini_parts([{"functionCall": {"name": name, "args": args}}]))


def gemini_image(data: bytes, mime: str = "image/png") -> Reply:
    """A generateContent answer carrying an inline image."""
    inline = {"inlineData": {"mimeType": mime, "data": base64.b64encode(data).decode()}}
    return Reply(json=gemini_parts([inline]))


def gemini_stream(chunks: list[str]) -> Reply:
    """A streamGenerateContent SSE answer: one `data: {json}\\r\\n\\r\\n` event per chunk."""
    return Reply(sse=[json.dumps(gemini_parts([{"text": c}])) for c in chunks], sse_sep="\r\n\r\n")


def gemini_error(status: int, message: str = "error", retry_after: str | None = None) -> Reply:
    """A Google API error body (`{"error": {code, message, status}}`)."""
    names = {429: "RESOURCE_EXHAUSTED", 400: "INVALID_ARGUMENT", 500: "INTERNAL", 503: "UNAVAILABLE"}
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = {"error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN")}}
    return Reply(status=status, json=body, headers=headers)


# -- OpenAI payloads --------------------------------------------------------------------------

def openai_message(message: dict[str, Any], *, prompt_tokens: int = 11, output_tokens: int = 5) -> dict:
    """A chat.completion JSON with one choice holding `message`."""
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": output_tokens,
                  "total_tokens": prompt_tokens + output_tokens},
    }


def openai_text(text: str, **kw: Any) -> Reply:
    """A chat completion answering `text`."""
    return Reply(json=openai_message({"content": text}), **kw)


def openai_tool_call(name: str, arguments: str, call_id: str = "call_abc") -> Reply:
    """A chat completion asking for a tool call (`arguments` is the JSON string the API sends)."""
    calls = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]
    return Reply(json=openai_message({"content": None, "tool_calls": calls}))


def openai_stream(chunks: list[str]) -> Reply:
    """A streamed chat completion: role delta, one delta per chunk, a stop chunk, `[DONE]`."""
    def event(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return json.dumps({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                           "model": "fake", "choices": [choice]})
    events = [event({"role": "assistant", "content": ""})] + [event({"content": c}) for c in chunks]
    return Reply(sse=[*events, event({}, "stop"), "[DONE]"])


def openai_image(data: bytes) -> Reply:
    """An images.generations answer with one `b64_json` image."""
    return Reply(json={"created": 0, "data": [{"b64_json": base64.b64encode(data).decode()}]})


def openai_error(status: int, message: str = "error", retry_after: str | None = None) -> Reply:
    """An OpenAI-style error body (`{"error": {message, type, code}}`)."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, headers=headers,
                 json={"error": {"message": message, "type": "error", "code": status}})


# -- Anthropic payloads -----------------------------------------------------------------------

def anthropic_message(content: list[dict[str, Any]], *, input_tokens: int = 13, output_tokens: int = 4,
                      stop: str = "end_turn") -> dict:
    """A Messages API `message` with `content` blocks."""
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake", "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def anthropic_text(text: str, **kw: Any) -> Reply:
    """A message answering `text`."""
    return Reply(json=anthropic_message([{"type": "text", "text": text}]), **kw)


def anthropic_tool_use(name: str, arguments: dict[str, Any], call_id: str = "toolu_01") -> Reply:
    """A message asking for a tool call."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return Reply(json=anthropic_message([block], stop="tool_use"))


def anthropic_stream(chunks: list[str]) -> Reply:
    """A streamed message: message_start, a text block of `chunks` deltas, message_delta, message_stop."""
    start = anthropic_message([], output_tokens=1)
    events = [("message_start", json.dumps({"type": "message_start", "message": start})),
              ("content_block_start", json.dumps({"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}})),
              ("ping", json.dumps({"type": "ping"}))]
    events += [("content_block_delta", json.dumps({"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": c}})) for c in chunks]
    events += [("content_block_stop", json.dumps({"type": "content_block_stop", "index": 0})),
               ("message_delta", json.dumps({"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                               "stop_sequence": None},
                                             "usage": {"output_tokens": len(chunks)}})),
               ("message_stop", json.dumps({"type": "message_stop"}))]
    return Reply(events=events)


def anthropic_error(status: int, message: str = "error", kind: str = "invalid_request_error",
                    retry_after: str | None = None) -> Reply:
    """An Anthropic error body (`{"type": "error", "error": {type, message}}`)."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, headers=headers,
                 json={"type": "error", "error": {"type": kind, "message": message}})
