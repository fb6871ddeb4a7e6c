"""A document save that committed but was not renamed into place is finished by whoever comes next.

`ItemStore._write_document` stages `.<file>.v<N>.tmp` (and the summary's), commits the row naming
version N, then renames the staged files in. If its process dies between the commit and the renames,
the row names version N while the file still holds N-1. Start-up repair finishes that save only when
a process opens the home alone; meanwhile every reader and writer of the document calls
`finish_committed_save` under the document's lock (saiverse/locks.py), so none of them reads the
stale text or writes a version N+1 on top of it. Under that lock no save is in flight, so a staged
file of the committed version is always one whose writer is gone.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

from saiverse.disk import sha256_of
from saiverse.world._media import commit_staged, staged_name, summary_path

log = logging.getLogger(__name__)




def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _version(state: dict[str, Any]) -> int:
    try:
        return int(state.get("version", 1))
    except (TypeError, ValueError):
        return 1


def committed_copy(path: Path, state: dict[str, Any]) -> Path:
    """The file holding the version the row names: its staged copy when the rename did not happen yet."""
    staged = staged_name(path, _version(state))
    sha = state.get("sha256")
    if _regular(staged) and (not isinstance(sha, str) or sha256_of(staged) == sha):
        return staged
    return path


def finish_committed_save(path: Path, state: dict[str, Any]) -> bool:
    """Rename a committed but unrenamed save of `path` (text and summary) into place; whether one was.

    The caller holds the document's lock. A staged text whose sha256 differs from the row's is not the
    committed text and is left for start-up repair to remove.
    """
    staged = committed_copy(path, state)
    if staged == path:
        return False
    commit_staged(staged, path)
    summary = staged_name(summary_path(path), _version(state))
    if _regular(summary):
        commit_staged(summary, summary_path(path))
    log.warning("finished a document save a stopped process had committed: %s (version %d)", path.name,
                _version(state))
    return True
