"""A production run whose process "died" mid-step, for the resume tests (tests/test_production.py) and the
claims on interrupted runs (tests/test_claims.py)."""

from __future__ import annotations

from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse._production import RunPorts


class _Crash(BaseException):
    """Stands for the process dying in the middle of a step (not an error a worker would catch)."""


def interrupted_run(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A picture-book run whose process "died" at its first picture (ソラ in the atelier): its row."""
    original = RunPorts.create_picture

    def crash(self: RunPorts, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise _Crash()

    monkeypatch.setattr(RunPorts, "create_picture", crash)
    with pytest.raises(_Crash):
        manager.production.start("sora", "atelier", "絵本を作って: 猫の冒険", lambda ev: None)
    monkeypatch.setattr(RunPorts, "create_picture", original)
    (run,) = manager.production.runs()
    assert run["status"] == "interrupted"
    return run
