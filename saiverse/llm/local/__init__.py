"""llama.cpp in a supervised process of its own: the packaged model, its files, profile and prompt.

Parts (private modules; import from here):
- `_child`: The supervised inference process: the app's side of saiverse/llm/local/_runner.py. …
- `_health`: What the inference process last did with each local model on this machine: generated, or …
- `_catalog`: The curated list of models `model pull` offers (CLI and the 設定 tab's 「モデルを入手」), in …
- `_embedder`: Dense vectors of texts from a local GGUF, computed in the supervised inference process. …
- `_files`: Which GGUF file the `local` model loads, and the packaged default assembled into the …
- `_gguf_meta`: The key/value header of a GGUF file, read without loading the model (`model list`, …
- `_installed`: The GGUF models in `<home>/models/`: size, where each came from, its profile, who …
- `_model`: The `local` model: any GGUF run in process by llama.cpp (`llama-cpp-python`), no …
- `_runner`: The inference process itself (run by path; llama.cpp is loaded only there). …
- `_profile`: How a local GGUF model is prompted and what it may decide, per model.
- `_prompt`: Prompts for local models: a base model continues a dialogue transcript; its line is …
- `_pull`: `model pull`: download a GGUF from the Hugging Face hub into `<home>/models/`, …
- `_pull_jobs`: Pulls the UI started, running in background threads: they go on when the page is …
- `_sanity`: What keeps a small base model's line sane (the packaged Gemma 3 270M; …
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.llm.local._catalog import CATALOG as CATALOG
    from saiverse.llm.local._catalog import entry as entry
    from saiverse.llm.local._catalog import local_name as local_name
    from saiverse.llm.local._catalog import resolve as resolve
    from saiverse.llm.local._embedder import LocalEmbedder as LocalEmbedder
    from saiverse.llm.local._files import LocalModelMissing as LocalModelMissing
    from saiverse.llm.local._files import ensure_file as ensure_file
    from saiverse.llm.local._files import model_path as model_path
    from saiverse.llm.local._files import packaged_available as packaged_available
    from saiverse.llm.local._files import runtime_available as runtime_available
    from saiverse.llm.local._gguf_meta import model_kind as model_kind
    from saiverse.llm.local._health import Health as Health
    from saiverse.llm.local._health import HealthBook as HealthBook
    from saiverse.llm.local._health import broken_words as broken_words
    from saiverse.llm.local._installed import installed_models as installed_models
    from saiverse.llm.local._model import LocalModel as LocalModel
    from saiverse.llm.local._prompt import chat_messages as chat_messages
    from saiverse.llm.local._prompt import stops as stops
    from saiverse.llm.local._prompt import transcript as transcript
    from saiverse.llm.local._pull import PullInterrupted as PullInterrupted
    from saiverse.llm.local._pull import PullProgress as PullProgress
    from saiverse.llm.local._pull import make_default as make_default
    from saiverse.llm.local._pull import pull as pull
    from saiverse.llm.local._pull_jobs import PullJobs as PullJobs
    from saiverse.llm.local._pull_jobs import describe as describe

_EXPORTS: dict[str, str] = {
    "CATALOG": "_catalog",
    "broken_words": "_health",
    "Health": "_health",
    "HealthBook": "_health",
    "LocalEmbedder": "_embedder",
    "LocalModel": "_model",
    "LocalModelMissing": "_files",
    "PullInterrupted": "_pull",
    "PullJobs": "_pull_jobs",
    "PullProgress": "_pull",
    "chat_messages": "_prompt",
    "describe": "_pull_jobs",
    "ensure_file": "_files",
    "entry": "_catalog",
    "installed_models": "_installed",
    "local_name": "_catalog",
    "make_default": "_pull",
    "model_kind": "_gguf_meta",
    "model_path": "_files",
    "packaged_available": "_files",
    "pull": "_pull",
    "resolve": "_catalog",
    "runtime_available": "_files",
    "stops": "_prompt",
    "transcript": "_prompt",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
