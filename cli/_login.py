"""`python main.py password set|clear|status`: the login that opening the app to other devices needs.

`set` asks twice at a terminal (nothing is echoed) or reads one line from standard input
(`echo "$PW" | python main.py password set`); the password never appears on the command line, where
other users could read it in the process list. See saiverse/care/_login.py for how it is stored.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from typing import Any

from cli._frame import add_json, command, print_json, settings
from saiverse.errors import UsageError

PrintJson = Callable[[Any], None]


def register(sub: Any) -> None:
    """This module's command on the main parser."""
    p = command(sub, password)
    p.add_argument("action", choices=["set", "clear", "status"])
    # Older scripts pass --user: still read and stored, but the login asks for the password alone. Its default
    # (saiverse.care's DEFAULT_USER) is taken when the command runs: the parser imports none of the domain.
    p.add_argument("--user", default=None, help=argparse.SUPPRESS)
    add_json(p, "print one JSON object")


def password(args: argparse.Namespace) -> int:
    """set or clear the login needed to open the app from other devices"""
    return password_command(settings(args), args, print_json)


def _read_password() -> str:
    from saiverse.care import check_password

    if sys.stdin is not None and sys.stdin.isatty():
        first = getpass.getpass("new password: ")
        check_password(first)
        if getpass.getpass("again: ") != first:
            raise UsageError("the two passwords differ; nothing was changed")
        return first
    line = sys.stdin.readline(4096) if sys.stdin is not None else ""
    if not line:
        raise UsageError("no password given: type it at the prompt, or pipe one line to standard input")
    return line.rstrip("\r\n")


def password_command(settings: Any, args: argparse.Namespace, print_json: PrintJson) -> int:
    """Run `password ACTION` for the home of `settings`."""
    from saiverse.care import DEFAULT_USER, clear_login, login_path, read_login, set_login

    home = settings.home
    if args.action == "set":
        login = set_login(home, _read_password(), args.user or DEFAULT_USER)
        result = {"ok": True, "user": login.user, "file": str(login_path(home))}
        text = (f"password set (stored hashed in {login_path(home)}); start with "
                "`python main.py --host 0.0.0.0` to open SAIVerse from your phone")
    elif args.action == "clear":
        had = clear_login(home)
        result = {"ok": True, "cleared": had}
        text = "password removed; the app now binds loopback only" if had else "no password was set"
    else:
        login = read_login(home)
        result = {"set": login is not None, "user": login.user if login else None}
        text = "a password is set" if login else "no password is set"
    print_json(result) if args.json else print(text)
    return 0
