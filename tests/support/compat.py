"""Where upstream's reference data is (`../shared/compat`), for the conformance tests.

It lives beside the checkout, not in it; `$SAIVERSE_COMPAT_DIR` points elsewhere. A test that needs
it calls `compat_path(...)`, which skips with the reason (what is missing, where it was looked for)
when it is absent, so the suite passes on a checkout alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _find() -> Path | None:
    candidates = [Path(os.environ["SAIVERSE_COMPAT_DIR"])] if os.environ.get("SAIVERSE_COMPAT_DIR") else []
    # ../shared/compat beside the checkout; ../../shared/compat beside a worktree folder of it
    candidates += [ROOT.parent / "shared" / "compat", ROOT.parent.parent / "shared" / "compat"]
    return next((c for c in candidates if c.is_dir()), None)


COMPAT_DIR = _find()
"""The reference folder, or None when this checkout has none beside it."""


def compat_path(*parts: str) -> Path:
    """`COMPAT_DIR / parts`, or a visible skip naming what is missing."""
    path = COMPAT_DIR.joinpath(*parts) if COMPAT_DIR is not None else None
    if path is None or not path.exists():
        pytest.skip(f"upstream reference data not found: {'/'.join(parts) or 'compat'} "
                    "(../shared/compat beside the checkout, or $SAIVERSE_COMPAT_DIR)")
    return path


def _find_v03() -> Path | None:
    candidates = [Path(os.environ["SAIVERSE_COMPAT_V03_DIR"])] if os.environ.get("SAIVERSE_COMPAT_V03_DIR") else []
    candidates += [ROOT.parent / "shared" / "compat-v03", ROOT.parent.parent / "shared" / "compat-v03"]
    return next((c for c in candidates if c.is_dir()), None)


COMPAT_V03_DIR = _find_v03()
"""Upstream v0.3's reference folder (`../shared/compat-v03`, or `$SAIVERSE_COMPAT_V03_DIR`), or None."""


def compat_v03_path(*parts: str) -> Path:
    """`COMPAT_V03_DIR / parts`, or a visible skip naming what is missing."""
    path = COMPAT_V03_DIR.joinpath(*parts) if COMPAT_V03_DIR is not None else None
    if path is None or not path.exists():
        pytest.skip(f"upstream v0.3 reference data not found: {'/'.join(parts) or 'compat-v03'} "
                    "(../shared/compat-v03 beside the checkout, or $SAIVERSE_COMPAT_V03_DIR)")
    return path
