"""The command line's frame: the parser made of every command module, one-line errors, exit codes.

`python main.py [--home DIR] COMMAND …`; no command starts the UI. Each module of this package adds
its commands with `register(sub)`; the order below is the order of `--help`.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

import words
from cli._args import Parser, check_args
from cli._frame import add_bind, add_home

COMMAND_MODULES = (
    "cli._system", "cli._world", "cli._memory", "cli._tracks", "cli._playbooks", "cli._backup", "cli._admin",
    "cli._voice", "cli._listen", "cli._model", "cli._login", "cli._tls", "cli._usage",
)
"""The modules whose `register(sub)` adds commands, in `--help` order."""


def build_parser() -> argparse.ArgumentParser:
    """The whole parser: top-level flags, then every command module's subcommands."""
    parser = Parser(prog="main.py", description="SAIVerse: a city of AI personas.")
    add_home(parser, top=True)
    add_bind(parser, top=True)
    sub = parser.add_subparsers(dest="command")
    for name in COMMAND_MODULES:
        import_module(name).register(sub)
    return parser


def _utf8_output() -> None:
    """JSON is UTF-8 whatever the locale says: Japanese stays readable and never fails to encode."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")


def _use_language() -> None:
    """Word the parser's refusals in SAIVERSE_LANG already (a command's own settings, with its --home, follow)."""
    from saiverse.settings import load_settings

    try:
        words.use(load_settings().lang)
    except Exception:  # noqa: BLE001 - an unreadable setting is the command's to report, in Japanese meanwhile
        words.use("ja")


def main(argv: list[str] | None = None) -> int:
    """Run one command; user errors print one line (exit 2), bugs name their type (exit 1)."""
    from saiverse.errors import (
        FAILED_EXIT,
        INTERRUPTED_EXIT,
        RAISE_ERRORS_ENV,
        USER_ERROR_EXIT,
        busy_database_message,
        is_user_error,
    )
    from saiverse.settings import raise_errors

    _utf8_output()
    _use_language()
    args = build_parser().parse_args(argv)
    if args.command is None:  # no command: the UI
        from cli._system import serve

        args.func = serve
    try:
        check_args(args)
        return int(args.func(args))
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT
    except Exception as exc:
        busy = busy_database_message(exc)
        if is_user_error(exc) or busy:
            print(words.say("cli_error", message=busy or exc), file=sys.stderr)
            return USER_ERROR_EXIT
        if raise_errors():
            raise
        print(words.say("cli_bug", kind=type(exc).__name__, message=exc, env=RAISE_ERRORS_ENV), file=sys.stderr)
        return FAILED_EXIT
