"""Other sites and strangers: what the app answers besides the Host check (ui/guard.py; issue 34).

- **Other sites.** A page on any site can make the browser post to the app — a multipart upload, the
  login form, a JSON call with the cookie. A state-changing request (any method but GET/HEAD/OPTIONS,
  and every WebSocket) whose `Origin` — or, without one, `Referer` — is not the app's own (its scheme
  and host:port are the request's `Host`) gets 403 before Gradio sees it. Without either header it is
  not a browser's cross-site request (a browser always sends `Origin` on a cross-origin POST): let by.
- **Before the login** (an app open to the network): nothing but the login page and what it loads
  (`PUBLIC_PATHS`, `PUBLIC_PREFIXES`) and the login itself answers; everything else (`/openapi.json`,
  `/gradio_api/heartbeat/…`, `/config`, files) gets 401. The page at `/` is then SAIVerse's own login
  page (ui/login_page.py: one password field), not Gradio's, so it carries none of Gradio's config or
  API (Gradio embeds the whole API in its page: building ids, playbook names).
- **The login attempt** carries its client address to the gate (saiverse/care/_login.py `LOGIN_CLIENT`:
  the lockout is per address) and waits `Gate.slowdown()` when guesses come from everywhere at once.
- **A call of a function that does not exist** (`fn_index` not in the app) gets 422 and one log line,
  not Gradio's 500 with a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from saiverse.port import LOGIN_CLIENT
from ui._gradio_compat import known_functions, login_cookie_names, login_tokens

log = logging.getLogger(__name__)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_PATHS = frozenset({"/", "/login", "/login/", "/theme.css", "/favicon.ico", "/manifest.json",
                          "/gradio_api/startup-events"})
"""The login page and what it loads; and the start-up check Gradio's own launch makes of itself."""
PUBLIC_PREFIXES = ("/assets/", "/static/", "/saiverse/")
CALL_PATHS = ("/gradio_api/queue/join", "/gradio_api/run/predict")
"""Where a body names the function it calls by `fn_index`."""
MAX_CALL_BODY = 8 * 1024 * 1024


def _headers(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope.get("headers") or []}


def same_origin(scope: dict[str, Any]) -> bool:
    """Whether the request's `Origin` (else `Referer`) is the app itself, or it names none."""
    headers = _headers(scope)
    raw = headers.get(b"origin") or headers.get(b"referer")
    if raw is None:
        return True
    source = raw.decode("latin-1").strip()
    if source == "null":
        return False
    parts = urlsplit(source)
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host


def logged_in(scope: dict[str, Any]) -> bool:
    """Whether the request carries a session cookie Gradio's login gave out (its `app.tokens`)."""
    tokens, cookie_id = login_tokens(scope.get("app"))
    if tokens is None or cookie_id is None:
        return False
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(_headers(scope).get(b"cookie", b"").decode("latin-1"))
    except Exception:  # noqa: BLE001 - a malformed cookie header is no session
        return False
    for name in login_cookie_names(cookie_id):
        if name in jar and jar[name].value in tokens:
            return True
    return False


async def _answer(send: Any, status: int, text: str | bytes, kind: str = "text/plain; charset=utf-8") -> None:
    body = text.encode() if isinstance(text, str) else text
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind.encode()), (b"cache-control", b"no-store"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class SiteGuard:
    """ASGI middleware for the rules in the module docstring; `gate` is the login's (None: no login) and
    `login_page` the page `/` answers before it (ui/login_page.py)."""

    def __init__(self, app: Any, gate: Any = None, login_page: bytes = b"") -> None:
        self.app = app
        self.gate = gate
        self.login_page = login_page

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        path = scope.get("path", "")
        if (scope["type"] == "websocket" or method not in SAFE_METHODS) and not same_origin(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await _answer(send, 403, "SAIVerse does not take changes sent from another site's page.\n")
            return
        if self.gate is not None and not logged_in(scope):
            if path not in PUBLIC_PATHS and not path.startswith(PUBLIC_PREFIXES):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _answer(send, 401, "Log in first.\n")
                return
            if path.rstrip("/") == "/login" and method == "POST":
                await self._login(scope, receive, send)
                return
            if path == "/" and method == "GET":
                await _answer(send, 200, self.login_page, "text/html; charset=utf-8")
                return
        if method == "POST" and path.rstrip("/") in CALL_PATHS:
            await self._call(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        client = scope.get("client") or ("", 0)
        wait = self.gate.slowdown()
        if wait:
            await asyncio.sleep(wait)
        token = LOGIN_CLIENT.set(str(client[0]))
        try:
            await self.app(scope, receive, send)
        finally:
            LOGIN_CLIENT.reset(token)

    async def _call(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Read the call's body; refuse a function index the app does not have; hand the body on."""
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > MAX_CALL_BODY:
                await _answer(send, 413, "The request is too large.\n")
                return
        body = b"".join(chunks)
        data = _json(body)
        fn_index = data.get("fn_index") if isinstance(data, dict) else None
        fns = known_functions(scope.get("app"), data.get("session_hash") if isinstance(data, dict) else None)
        unknown = not isinstance(fn_index, int) or isinstance(fn_index, bool) or fn_index not in (fns or {})
        if fn_index is not None and fns is not None and unknown:
            log.warning("refused a call of fn_index %r, which this app does not have (%s)", fn_index, scope.get("path"))
            await _answer(send, 422, f"No function {fn_index!r} in this app.\n")
            return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None  # not JSON: Gradio answers that itself


