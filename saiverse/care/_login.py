"""The login that guards the app when it is reachable from other devices (README, "From a phone").

`python main.py password set` stores a user name and a *hash* of the password in `<home>/login.json`
(mode 600): scrypt with a random salt, so the file never holds the password and a copied file does
not give it away quickly. The file is not part of a backup (saiverse/care/_backup.py archives the
database, the media folders and settings.json only): a restored world asks for a new password.

`--host` other than loopback is refused until a password is set (ui/guard.py); the app then asks
for it on its login page (ui/login_page.py), which has one field: the password (`Gate` checks nothing
else). Wrong passwords are counted per client address (`LOGIN_CLIENT`,
set for each attempt by ui/web_guard.py): after `MAX_FAILURES` within `LOCKOUT_SECONDS` every attempt
from that address is refused for that long, so the password cannot be guessed at speed — and a
stranger's guesses never lock the owner out (issue 34: 200 wrong passwords from anywhere did). Beyond
`GLOBAL_CEILING` failures from all addresses together, attempts are slowed (`Gate.slowdown`), never refused.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from portable import O_BINARY
from saiverse.inputs import InputError, check_name, check_text
from words import say

LOGIN_FILE = "login.json"
"""Under the data home; never archived."""
DEFAULT_USER = "saiverse"
"""The user name when none is given."""
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt cost (about 16 MB and a few tens of milliseconds per check)."""
MAX_FAILURES = 10
LOCKOUT_SECONDS = 300.0
GLOBAL_CEILING = 50
"""Failures from every address within LOCKOUT_SECONDS beyond which each attempt waits `SLOW_SECONDS`."""
SLOW_SECONDS = 2.0
LOGIN_CLIENT: ContextVar[str] = ContextVar("saiverse_login_client", default="")
"""The address of the client whose login attempt is being checked (Gradio's `auth` gets no request)."""


@dataclass(frozen=True)
class Login:
    """The stored login: the user name and the salted hash of the password."""

    user: str
    salt: bytes
    digest: bytes

    def matches(self, user: str, password: str) -> bool:
        """Whether `user` and `password` are this login (compared in constant time)."""
        try:
            candidate = _hash(password, self.salt)
        except (UnicodeEncodeError, ValueError):
            return False
        same_user = hmac.compare_digest(user.encode("utf-8", "replace"), self.user.encode("utf-8"))
        return hmac.compare_digest(candidate, self.digest) and same_user


def _hash(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)


def login_path(home: Path) -> Path:
    """Where the login of `home` is stored."""
    return Path(home) / LOGIN_FILE


def check_password(password: str) -> str:
    """A password a person may set: UTF-8 text of MIN_PASSWORD_CHARS or more; else InputError."""
    check_text(password, say("what_password"), max_chars=MAX_PASSWORD_CHARS)
    if len(password) < MIN_PASSWORD_CHARS:
        raise InputError(say("pw_short", n=len(password), least=MIN_PASSWORD_CHARS))
    if password != password.strip():
        raise InputError(say("pw_space"))
    return password


def set_login(home: Path, password: str, user: str = DEFAULT_USER) -> Login:
    """Store a new login for `home` (replacing any): written to a temp file, then renamed over."""
    user = check_name(user, say("what_user"), max_chars=64)
    salt = secrets.token_bytes(16)
    login = Login(user, salt, _hash(check_password(password), salt))
    home = Path(home)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"user": login.user, "algorithm": "scrypt", "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P,
            "salt": salt.hex(), "hash": login.digest.hex()}
    tmp = home / f".{LOGIN_FILE}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, login_path(home))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return login


def clear_login(home: Path) -> bool:
    """Remove the login of `home`; whether there was one."""
    try:
        login_path(home).unlink()
    except FileNotFoundError:
        return False
    return True


def read_login(home: Path) -> Login | None:
    """The stored login, or None when no password is set (an unreadable file counts as none set)."""
    try:
        data = json.loads(login_path(home).read_text(encoding="utf-8"))
        if data.get("algorithm") != "scrypt" or (data.get("n"), data.get("r"), data.get("p")) != \
                (SCRYPT_N, SCRYPT_R, SCRYPT_P):
            return None
        return Login(str(data["user"]), bytes.fromhex(data["salt"]), bytes.fromhex(data["hash"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


class Gate:
    """Gradio's `auth` callable over a stored login, with a lockout per client address after repeated
    failures (`LOGIN_CLIENT`), and a global ceiling that slows (`slowdown`), not locks.

    `login` is the login itself or a function returning the current one (read per attempt, so a
    password changed in the 設定 tab counts at once, and a removed one lets nobody in)."""

    def __init__(self, login: Login | Callable[[], Login | None], clock: Callable[[], float] = time.monotonic) -> None:
        self._source = login if callable(login) and not isinstance(login, Login) else (lambda: login)
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, now: float) -> None:
        """Forget failures older than the lockout (the caller holds the lock)."""
        for client in list(self._failures):
            kept = [t for t in self._failures[client] if now - t < LOCKOUT_SECONDS]
            if kept:
                self._failures[client] = kept
            else:
                del self._failures[client]

    def slowdown(self) -> float:
        """Seconds the next attempt should wait: SLOW_SECONDS once all addresses together failed more
        than GLOBAL_CEILING times recently (a spread-out guessing), else 0."""
        with self._lock:
            self._recent(self._clock())
            return SLOW_SECONDS if sum(map(len, self._failures.values())) >= GLOBAL_CEILING else 0.0

    def __call__(self, user: str, password: str) -> bool:
        now = self._clock()
        client = LOGIN_CLIENT.get()
        with self._lock:
            self._recent(now)
            if len(self._failures.get(client, ())) >= MAX_FAILURES:
                return False
        login = self._source()
        # The password alone: a one-person app has no user to pick, and its login page asks nothing else
        # (ui/login_page.py). The stored user name stays in login.json for older files and scripts.
        ok = login is not None and isinstance(password, str) and login.matches(login.user, password)
        if not ok:
            with self._lock:
                self._failures.setdefault(client, []).append(now)
        return ok
