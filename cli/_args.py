"""Command-line input, checked before a command runs: argparse refusals in one line, whole-number
flags in range, text arguments that are UTF-8 without NUL, and `--args` JSON that is an object of
sane depth and numbers. Every refusal exits 2 with one `error: …` line (saiverse/errors.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
from collections.abc import Callable
from typing import Any, NoReturn

import words
from saiverse.errors import USER_ERROR_EXIT, UsageError
from saiverse.inputs import check_json_value, check_text

PATH_ARGS = frozenset({"file", "playbook"})
"""Arguments that name a file to read: a non-UTF-8 file name is a real name on Linux, and is read."""
POSITIONAL_ARGS = frozenset({"text", "name", "run_id", "path", "action", "command"})
"""Arguments named by their metavar (TEXT) in messages, not as a flag."""


ARGPARSE_MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"the following arguments are required: (?P<args>.+)"), "ap_required"),
    (re.compile(r"unrecognized arguments: (?P<args>.+)"), "ap_unrecognized"),
    (re.compile(r"argument (?P<arg>[^:]+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.+)\)"),
     "ap_choice"),
    (re.compile(r"argument (?P<arg>[^:]+): expected one argument"), "ap_one_value"),
    (re.compile(r"argument (?P<arg>[^:]+): expected (?P<n>\d+) arguments"), "ap_n_values"),
    (re.compile(r"argument (?P<arg>[^:]+): expected at least one argument"), "ap_some_values"),
    (re.compile(r"argument (?P<arg>[^:]+): not allowed with argument (?P<other>.+)"), "ap_not_with"),
    (re.compile(r"argument (?P<arg>[^:]+): invalid (?P<kind>.+?) value: (?P<value>.+)"), "ap_invalid"),
    (re.compile(r"argument (?P<arg>[^:]+): (?P<rest>.+)"), "ap_argument"),  # a type's own refusal (`whole`)
)
"""argparse's own refusals (English, from Python's argparse.py) and the words.py key that says each."""


def worded(message: str) -> str:
    """An argparse refusal in the language in force; one this table does not know stays as argparse said it."""
    for pattern, key in ARGPARSE_MESSAGES:
        match = pattern.fullmatch(message)
        if match:
            return words.say(key, **match.groupdict())
    return message


class HelpFormatter(argparse.HelpFormatter):
    """`--help` in the language in force: every English text of the parser — argparse's headings, a
    command's docstring, an argument's help — goes through `words.help_text` as it is printed."""

    def start_section(self, heading: str | None) -> None:
        super().start_section(words.help_text(heading) if heading else heading)

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, words.help_text("usage: ") if prefix is None else prefix)

    def _format_text(self, text: str) -> str:
        return super()._format_text(words.help_text(text))

    def _expand_help(self, action: argparse.Action) -> str:
        if action.help:  # a copy: the action is the parser's, and the next --help may be in the other language
            action = copy.copy(action)
            action.help = words.help_text(action.help)
        return super()._expand_help(action)


class Parser(argparse.ArgumentParser):
    """argparse with a one-line refusal: `error: <what>` and exit 2, like every other bad input; its
    `--help` follows SAIVERSE_LANG (HelpFormatter)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USER_ERROR_EXIT, words.say("cli_usage", prog=self.prog, message=worded(message)) + "\n")


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, or a message saying so."""

    def parse(raw: str) -> int:
        try:
            value = int(raw.strip().replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(words.say("ap_whole", low=low, high=high, raw=repr(raw[:40]))) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(words.say("ap_range", low=low, high=high, raw=raw[:40]))
        return value

    parse.__name__ = "whole number"
    return parse


LIMIT = whole(1, 1_000_000_000)
"""--limit: how many lines or messages (a year of conversations is far below the top)."""
PORT = whole(1, 65535)
"""--port."""


def check_args(args: argparse.Namespace) -> None:
    """Text arguments must be UTF-8 without NUL: a lone surrogate (a non-UTF-8 byte) is refused, naming it."""
    for name, value in vars(args).items():
        if isinstance(value, str) and name not in PATH_ARGS:
            shown = name.upper() if name in POSITIONAL_ARGS else "--" + name.replace("_", "-")
            check_text(value, words.say("what_argument", name=shown))


def json_object(raw: str, what: str = "--args") -> dict[str, Any]:
    """A JSON object from the command line; UsageError naming `what` for anything else."""

    def refuse_constant(name: str) -> Any:
        raise UsageError(words.say("cli_json_constant", what=what, name=name))

    try:
        value = json.loads(raw, parse_constant=refuse_constant)
    except UsageError:
        raise
    except json.JSONDecodeError as exc:
        raise UsageError(words.say("cli_not_json", what=what, msg=exc.msg, col=exc.colno)) from exc
    except RecursionError as exc:
        raise UsageError(words.say("cli_json_deep", what=what)) from exc
    except ValueError as exc:  # a number with more digits than Python converts (4300)
        raise UsageError(words.say("cli_json_digits", what=what)) from exc
    if not isinstance(value, dict):
        raise UsageError(words.say("cli_json_object", what=what, kind=words.say("json_" + type(value).__name__)))
    return check_json_value(value, what)
