"""What the inference process last did with each local model on this machine: generated, or died loading.

The 設定 tab says ✅ for a local model only after it has really generated here, and a model whose
process died twice running while loading is broken: its personas fall back as for a missing key, and
the line under the chat says why. Both facts outlive the app (a restart must not crash on the same
model again), so they are kept in `<home>/local_models.json` (0600), one entry per model file.

An entry holds for the exact file and the exact llama.cpp build it was made with: a new download, a
rebuilt or upgraded `llama-cpp-python`, or 「もう一度試す」 (`forget`) makes the model untried again.
Writes are read-change-write under the home's lock for this file, then a temp file renamed into place,
so two processes never lose each other's entry and a kill never leaves half a file.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from saiverse.disk import atomic_write
from saiverse.locks import item_lock
from words import say

HEALTH_FILE = "local_models.json"
"""The record's name in the data home."""

State = Literal["ok", "broken"]
"""`ok`: the model generated on this machine with this build; `broken`: its process died twice loading."""


@dataclass(frozen=True)
class Health:
    """The last word about one model file with the installed llama.cpp build."""

    state: State
    at: str
    """When (UTC, ISO 8601)."""
    reason: str = ""
    """Why it is broken (Japanese), empty when ok."""


_read_cache: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
"""path → ((mtime_ns, size), contents): every pulse asks whether the local model is broken."""


def broken_words(reason: str) -> str:
    """Why a broken model cannot answer, as the 設定 tab, the model line and a fallback notice say it."""
    return say("local_broken", reason=reason)


@functools.lru_cache(maxsize=1)
def build_fingerprint() -> str:
    """The installed llama.cpp build (its shared libraries' names, sizes and times), without loading it;
    read once per process (an upgrade takes effect at the next start, as the upgraded library does)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return ""
    parts: list[str] = []
    for folder in spec.submodule_search_locations:
        lib = Path(folder) / "lib"
        for path in sorted(lib.glob("*")) if lib.is_dir() else []:
            st = path.stat()
            parts.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def _name(model: Path) -> str:
    """One name per file however it was reached (`local`, `local:NAME`, a path with `..`)."""
    return str(Path(model).resolve())


def _file_key(model: Path) -> str:
    try:
        st = model.stat()
    except OSError:
        return f"{model}|missing"
    return f"{model}|{st.st_size}|{st.st_mtime_ns}"


class HealthBook:
    """The record in one data home."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / HEALTH_FILE

    def _read(self) -> dict[str, Any]:
        try:
            st = self.path.stat()
        except OSError:
            return {}
        stamp = (st.st_mtime_ns, st.st_size)
        cached = _read_cache.get(str(self.path))
        if cached is not None and cached[0] == stamp:
            return dict(cached[1])
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        data = data if isinstance(data, dict) else {}
        _read_cache[str(self.path)] = (stamp, data)
        return dict(data)

    def _key(self, model: Path) -> str:
        return f"{_file_key(model)}|{build_fingerprint()}"

    def get(self, model: Path) -> Health | None:
        """What is known of `model` with this build (None: not yet tried, or the file or build changed)."""
        entry = self._read().get(_name(model))
        if not isinstance(entry, dict) or entry.get("key") != self._key(model):
            return None
        state = entry.get("state")
        if state not in ("ok", "broken"):
            return None
        return Health(state, str(entry.get("at", "")), str(entry.get("reason", "")))

    def set(self, model: Path, state: State, reason: str = "") -> None:
        """Record what just happened to `model` (atomic; other processes' entries are kept)."""
        entry = {"key": self._key(model), "state": state, "reason": reason,
                 "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self._change(lambda data: data.__setitem__(_name(model), entry))

    def forget(self, model: Path) -> None:
        """「もう一度試す」: the model is untried again (its next use loads it afresh)."""
        self._change(lambda data: data.pop(_name(model), None))

    def _change(self, edit: Any) -> None:
        with item_lock(self.home, HEALTH_FILE):
            data = self._read()
            edit(data)
            atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1))  # mkstemp: 0600
