"""The packaged local model without weights: `local_saying(line)` is a real LocalModel whose inference
process (saiverse/llm/local/_child.py) is a stand-in that completes every prompt with one fixed line, so
LocalModel's own checks on that line run (tests/test_local_sanity.py, the chat's notice in tests/test_ui_models.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


class _LineChild:
    """A stand-in inference process whose completion is one fixed line."""

    pid = None
    starts = 1

    def __init__(self, line: str) -> None:
        self.line = line
        self.loaded = {"metadata": {}, "seconds": 0.0}

    def ensure(self) -> tuple[None, dict[str, object]]:
        return None, self.loaded

    def request(self, op: str, **payload: object) -> Iterator[dict[str, object]]:
        yield {"event": "chunk", "data": {"choices": [{"text": self.line}]}}
        yield {"event": "done", "data": {}}

    def call(self, op: str, **payload: object) -> dict[str, object]:
        return {"count": len(str(payload.get("text", "")).encode()) // 3 + 1}

    def close(self) -> None:
        pass


def local_saying(line: str) -> object:
    """The packaged model (by its file name), answering `line` to every prompt."""
    from saiverse.llm.local import LocalModel
    from saiverse.llm.local._profile import PACKAGED_NAME

    model = LocalModel("local", path=lambda: Path("unused.gguf"), file_name=PACKAGED_NAME)
    model.load_error = None
    model._child = _LineChild(line)  # type: ignore[assignment]
    return model
