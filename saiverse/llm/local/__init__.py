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

from saiverse.llm.local._catalog import CATALOG, entry, local_name, resolve
from saiverse.llm.local._child import ChildDied, ModelBroken, RunnerError, SupervisedChild, death_words
from saiverse.llm.local._embedder import LocalEmbedder
from saiverse.llm.local._files import LocalModelMissing, ensure_file, model_path, packaged_available, runtime_available
from saiverse.llm.local._gguf_meta import model_kind
from saiverse.llm.local._health import Health, HealthBook, broken_words
from saiverse.llm.local._installed import InstalledModel, models_on_disk
from saiverse.llm.local._model import LocalModel
from saiverse.llm.local._prompt import chat_messages, stops, transcript
from saiverse.llm.local._pull import PullInterrupted, PullProgress, make_default, pull
from saiverse.llm.local._pull_jobs import PullJobs, describe

__all__ = [
    "CATALOG",
    "ChildDied",
    "Health",
    "HealthBook",
    "InstalledModel",
    "LocalEmbedder",
    "LocalModel",
    "LocalModelMissing",
    "ModelBroken",
    "PullInterrupted",
    "PullJobs",
    "PullProgress",
    "RunnerError",
    "SupervisedChild",
    "broken_words",
    "chat_messages",
    "death_words",
    "describe",
    "ensure_file",
    "entry",
    "local_name",
    "make_default",
    "model_kind",
    "model_path",
    "models_on_disk",
    "packaged_available",
    "pull",
    "resolve",
    "runtime_available",
    "stops",
    "transcript",
]
