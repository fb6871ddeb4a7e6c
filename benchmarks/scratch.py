"""Scratch folders of a benchmark run: made private, removed when the run ends (a run's homes can
hold a million messages; /tmp should not keep them). `--home DIR` options are the user's own and
are never removed."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path


def scratch(prefix: str) -> Path:
    """A new private folder under the system's temp dir, removed at the interpreter's exit (a normal
    end, an error or Ctrl+C alike)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
