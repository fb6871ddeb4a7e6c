"""What a killed `migrate --db` leaves beside the database, and its removal by the next run.

The copy taken before a migration (`<db>.bak-<stamp>-v<N>`) is written under a hidden name
(`.<db>.bak-<stamp>-v<N>.partial`) and renamed when complete, so a half-written copy is never named
as a backup. The next migration of the same file (it holds the migration lock, so no copy is being
written meanwhile) removes such partial copies with their journals, and also a copy named as a backup
by an older version that still has a hot `-journal` beside it: SQLite deletes a copy's journal when
the copy completes, so one with a journal was never finished (and would roll back to nothing).
"""

from __future__ import annotations

import re
from pathlib import Path

PARTIAL_SUFFIX = ".partial"


def partial_name(final: Path) -> Path:
    """Where the copy that becomes `final` is written."""
    return final.with_name(f".{final.name}{PARTIAL_SUFFIX}")


def remove_partial_backups(db: Path) -> list[Path]:
    """Remove what killed copies of `db` left (the caller holds the migration lock); returns what went."""
    stem = re.escape(db.name)
    partial = re.compile(rf"^\.{stem}\.bak-\d{{8}}_\d{{6}}-v\d+(-\d+)?{re.escape(PARTIAL_SUFFIX)}(-journal)?$")
    named = re.compile(rf"^{stem}\.bak-\d{{8}}_\d{{6}}-v\d+(-\d+)?$")
    removed: list[Path] = []
    if not db.parent.is_dir():
        return removed
    for path in sorted(db.parent.iterdir()):
        if path.is_symlink() or not path.is_file():
            continue
        journal = path.with_name(path.name + "-journal")
        if partial.match(path.name) or (named.match(path.name) and journal.is_file() and not journal.is_symlink()):
            for gone in (path, journal):
                if gone.is_file() and not gone.is_symlink():
                    gone.unlink()
                    removed.append(gone)
    return removed
