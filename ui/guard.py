"""What stands between the network and the app (docs/ARCHITECTURE.md, "Serving").

- **Host check.** A web page elsewhere can point its own name at 127.0.0.1 (DNS rebinding) and then
  talk to the app as if it were the same site; its requests still carry that name in `Host`. Every
  request (every route: the page, `/config`, `/gradio_api/file=…`, uploads, the queue) whose `Host` is
  not one of ours gets 403 before Gradio sees it. Ours: `localhost`, the loopback addresses, the
  address bound, the names in SAIVERSE_ALLOWED_HOSTS, and — when bound to every interface — any IP
  address (a name is what rebinding needs; an address cannot be rebound) plus this machine's name.
- **Login.** Bound to anything but loopback the app is reachable by other devices, so it starts only
  with a password set (saiverse/care/_login.py) and asks for it on Gradio's login page.
"""

from __future__ import annotations

import ipaddress
import shlex
import socket
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from saiverse.port import UserError

DEFAULT_HOME = Path("~/.saiverse")
"""saiverse/setting_fields.py's DEFAULT_HOME (tests/test_labels.py holds them equal)."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


class LoginRequiredError(UserError):
    """A non-loopback address asked for without a password set."""


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the app on this machine."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name_of(header: str) -> str:
    """The name part of a `Host` header value: no port, no brackets, lower case, no final dot."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value[1:]
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


class HostGuard:
    """ASGI middleware: 403 for any HTTP or WebSocket request whose Host is not allowed."""

    def __init__(self, app: Any, names: Iterable[str], any_address: bool = False) -> None:
        self.app = app
        self.names = frozenset(host_name_of(n) for n in names if n.strip())
        self.any_address = any_address

    def allowed(self, header: str) -> bool:
        name = host_name_of(header)
        if not name:
            return False
        if name in self.names:
            return True
        if self.any_address:
            try:
                ipaddress.ip_address(name)
                return True
            except ValueError:
                return False
        return False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if self.allowed(host):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = (f"SAIVerse does not answer to the host name {host_name_of(host)[:100]!r}. Open it by its "
                "address (http://127.0.0.1:PORT/), or add the name to SAIVERSE_ALLOWED_HOSTS.\n").encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def allowed_names(host: str, extra: Iterable[str] = ()) -> tuple[frozenset[str], bool]:
    """(Host names the app answers to, whether any IP address is also accepted) for binding `host`."""
    names = set(LOOPBACK_NAMES) | {n for n in extra if n.strip()}
    bound = host.strip().strip("[]").lower()
    wide = bound in WILDCARDS
    if not wide:
        names.add(bound)
    else:
        try:
            machine = socket.gethostname().lower()
        except OSError:
            machine = ""
        if machine:
            names |= {machine, f"{machine}.local"}  # the phone may reach it by its mDNS name
    return frozenset(names), wide


def lan_addresses() -> list[str]:
    """This machine's addresses other devices on the network may reach (best effort, no packets sent)."""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))  # UDP connect only picks the outgoing interface
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    out: list[str] = []
    for addr in found:
        if addr not in out and not ipaddress.ip_address(addr).is_loopback:
            out.append(addr)
    return out


def addresses_to_open(host: str, port: int, scheme: str = "http") -> list[str]:
    """The URLs to type on another device (or this one) for an app bound to `host`:`port` (https when the
    page is served with a certificate, saiverse/care/_tls.py)."""
    bound = host.strip().strip("[]")
    if bound in WILDCARDS:
        hosts = lan_addresses() or ["127.0.0.1"]
    else:
        hosts = [bound]
    return [f"{scheme}://{f'[{h}]' if ':' in h else h}:{port}/" for h in hosts]


def password_command(settings: Any) -> str:
    """`python main.py [--home DIR] password set` for the home of `settings`: `--home` named unless the
    home is the default one (a command typed in another shell may not have SAIVERSE_HOME set)."""
    home = Path(settings.home).expanduser()
    named = "" if home.resolve() == DEFAULT_HOME.expanduser().resolve() else f" --home {shlex.quote(str(home))}"
    return f"python main.py{named} password set"


def require_login_for(host: str, login: Any, command: str = "python main.py password set") -> None:
    """Refuse to bind a non-loopback `host` without a stored login (saiverse/care/_login.py); `command`
    is the one that sets it for this home (`password_command`)."""
    if login is None and not is_loopback(host):
        raise LoginRequiredError(
            f"--host {host} would let other devices open SAIVerse, which needs a login: set a password first "
            f"with `{command}` (or leave --host at 127.0.0.1)")
