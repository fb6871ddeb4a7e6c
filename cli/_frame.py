"""What every command shares: its parser entry from its docstring, the home, the world, JSON output.

A command is a plain function `(args) -> exit code` whose docstring's first line is its `--help`
line (as llm's `cli.py`); `command()` adds it to the parser with `set_defaults(func=…)`.
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cli._args import PORT

if TYPE_CHECKING:  # the parser is built before any command runs: the world's imports wait for one
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings

Command = Callable[[argparse.Namespace], int]
"""A command: the parsed arguments in, the exit code out (saiverse/errors.py)."""


def print_json(obj: Any) -> None:
    """One JSON value on one line, UTF-8 as it is (Japanese stays readable)."""
    print(json.dumps(obj, ensure_ascii=False, default=str), flush=True)


def add_home(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    """`--home`; on a subcommand it must not reset a value given before the subcommand's name."""
    p.add_argument("--home", help="data home (default: $SAIVERSE_HOME or ~/.saiverse)",
                   **({} if top else {"default": argparse.SUPPRESS}))


def add_bind(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    """`--host` and `--port`, where the UI listens."""
    keep = {} if top else {"default": argparse.SUPPRESS}
    p.add_argument("--host", help="interface to bind (default 127.0.0.1)", **keep)
    p.add_argument("--port", type=PORT, help="port (default $SAIVERSE_PORT or 7860)", **keep)


def add_json(p: argparse.ArgumentParser, what: str = "print JSON") -> None:
    """`--json`."""
    p.add_argument("--json", action="store_true", help=what)


def command(sub: Any, func: Command, name: str | None = None, *, home: bool = True) -> argparse.ArgumentParser:
    """Add `func` as subcommand `name` (default: its name with dashes); its docstring is the help."""
    doc = inspect.getdoc(func) or ""
    p = sub.add_parser(name or func.__name__.rstrip("_").replace("_", "-"),
                       help=doc.split("\n", 1)[0], description=doc)
    if home:
        add_home(p)
    p.set_defaults(func=func)
    return p


def settings(args: argparse.Namespace) -> Settings:
    """The settings in force: flags, then env, `.env`, settings.json, defaults (saiverse/settings.py)."""
    import words
    from saiverse.settings import load_settings

    loaded = load_settings(args.home, host=args.host, port=args.port)
    words.use(loaded.lang)  # this home's language (its .env may say) words every message from here on
    return loaded


@contextmanager
def world(args: argparse.Namespace) -> Iterator[SAIVerseManager]:
    """The home's world opened (migrated and seeded first), closed when the command is done."""
    from saiverse.manager import SAIVerseManager

    manager = SAIVerseManager(settings(args))
    try:
        yield manager
    finally:
        manager.close()


def print_events(events: Iterable[dict[str, Any]]) -> int:
    """A pulse's events as JSON lines; exit 1 when one of them is an `error`."""
    failed = False
    for ev in events:
        print_json(ev)
        failed = failed or ev.get("type") == "error"
    return 1 if failed else 0  # saiverse/errors.py FAILED_EXIT: the command ran, its work failed
