"""User errors apart from bugs: what the CLI reports as one plain line.

A `UserError` is something the person at the keyboard caused and can fix — a wrong id, bad JSON,
an unreadable file, an unusable setting — and its message names the thing and says why. Errors of
the layers below (database, tools, sea) cannot subclass it; `is_user_error` names those three. main.py
prints a user error plainly and exits with USER_ERROR_EXIT; anything else is a bug: it is reported
with its type and exits with FAILED_EXIT, or is re-raised with its traceback when RAISE_ERRORS_ENV
is set (docs/ARCHITECTURE.md, "Errors").
"""

from __future__ import annotations

USER_ERROR_EXIT = 2
"""Exit code of a command refused because of its input (argparse uses 2 for bad usage too)."""
FAILED_EXIT = 1
"""Exit code of a command whose work failed (an `error` event, an unfinished run, a bug)."""
INTERRUPTED_EXIT = 130
"""Exit code after Ctrl+C."""
RAISE_ERRORS_ENV = "SAIVERSE_RAISE_ERRORS"
"""Set (non-empty) in the process environment: unknown errors re-raise with their traceback."""


class UserError(Exception):
    """Bad input or setup the user can fix; the message says which thing and why."""


class UsageError(UserError, ValueError):
    """A command-line argument that cannot be used (bad JSON, a missing run id, an unreadable file)."""


def is_user_error(exc: BaseException) -> bool:
    """Whether `exc` is the user's to fix (printed plainly) rather than a bug."""
    from database.migrate import MigrationError
    from sea.playbook import PlaybookError
    from tools import ToolError

    # The layers below cannot subclass UserError (they import nothing from saiverse): named here.
    return isinstance(exc, (UserError, MigrationError, PlaybookError, ToolError))


def busy_database_message(exc: BaseException) -> str | None:
    """One line for a database another program holds locked past the busy timeout, or None.

    SQLAlchemy's message carries the SQL statement and its parameters over several lines; the
    person needs only what happened and what to do. Nothing was written: the statement failed."""
    import sqlite3

    seen: BaseException | None = exc
    for _ in range(10):  # the sqlite3 error is the cause (or the `orig`) of SQLAlchemy's
        if seen is None:
            break
        orig = getattr(seen, "orig", None)
        for err in (seen, orig):
            if isinstance(err, sqlite3.OperationalError) and any(
                    w in str(err).lower() for w in ("database is locked", "database table is locked", "busy")):
                from words import say

                return say("db_locked")
        seen = seen.__cause__ or seen.__context__
    return None
