"""Model names → providers: the name forms a persona's model column or a setting may hold.

Names are written as upstream SAIVerse writes them, so imported personas keep their models:

| name | provider | needs |
|---|---|---|
| `auto` (default) | a cloud model whose key is set, else `local`, else `offline` | — |
| `offline` (or empty) | the deterministic model (saiverse/llm/offline/_model.py) | — |
| `local`, `local:<path or name>` | llama.cpp in process (saiverse/llm/local/_model.py) | llama-cpp-python |
| `gpt-…`, `o1…`/`o3…`/`o4…`, `chatgpt-…` | OpenAI (official SDK) | `OPENAI_API_KEY` |
| `claude-…` | Anthropic (official SDK) | `ANTHROPIC_API_KEY` |
| `gemini-…` | Gemini (google-genai) | `GEMINI_API_KEY` |
| `openai:<model>` | an OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM) | `SAIVERSE_OPENAI_BASE_URL` |
| `ollama:<model>`, `lmstudio:<model>`, `llamacpp:<model>` | that server here (saiverse/llm/servers.py) | — |
| `anthropic:<model>`, `gemini:<model>`, `local:<…>` | that provider, whatever the model is called | as above |
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ProviderKind = Literal["auto", "offline", "local", "openai", "compatible", "server", "anthropic", "gemini", "unknown"]
"""Which provider serves a name (`compatible`: an OpenAI-compatible server; `server`: a local server found
by saiverse/llm/servers.py, its kind the name's prefix)."""
SERVER_PREFIXES = ("ollama", "lmstudio", "llamacpp")
"""Name prefixes of the local servers (`ollama:qwen2.5:3b`)."""

AUTO_CHOICES: tuple[tuple[str, str], ...] = (
    ("gemini_api_key", "gemini-2.5-flash"),
    ("openai_official_api_key", "gpt-4.1-mini"),
    ("anthropic_api_key", "claude-sonnet-4-6"),
)
"""`auto` with a key set: (Settings key field, the model it answers with), first match wins."""

_OPENAI = re.compile(r"^(gpt-|chatgpt-|o\d(?:$|[-.]))", re.I)


@dataclass(frozen=True)
class ModelName:
    """A parsed model name."""

    raw: str
    """The name as written (stripped)."""
    kind: ProviderKind
    """The provider that serves it."""
    model_id: str
    """What the provider calls the model (the part after a `provider:` prefix)."""


def parse_name(name: str | None) -> ModelName:
    """The provider of a model name (see the table above); `unknown` for anything else."""
    raw = (name or "").strip()
    low = raw.lower()
    if not raw or low == "offline":
        return ModelName(raw or "offline", "offline", "offline")
    if low == "auto":
        return ModelName(raw, "auto", "auto")
    if low == "local" or low.startswith("local:"):
        return ModelName(raw, "local", raw.split(":", 1)[1].strip() if ":" in raw else "")
    prefix, _, rest = raw.partition(":")
    if rest.strip() and prefix.lower() in SERVER_PREFIXES:
        return ModelName(raw, "server", rest.strip())
    if rest and prefix.lower() in ("openai", "anthropic", "gemini"):
        kind: ProviderKind = "compatible" if prefix.lower() == "openai" else prefix.lower()  # type: ignore[assignment]
        return ModelName(raw, kind, rest.strip())
    if low.startswith("claude-"):
        return ModelName(raw, "anthropic", raw)
    if low.startswith("gemini"):
        return ModelName(raw, "gemini", raw)
    if _OPENAI.match(raw):
        return ModelName(raw, "openai", raw)
    return ModelName(raw, "unknown", raw)


def made_by_note(model_name: str) -> str:
    """The closing line of a production's rule-based draft (sea/production/drafts.py): which model the run
    used, and that rules wrote it (`RunPorts.draft_note`, saiverse/pulse/_production.py)."""
    if model_name in ("offline", ""):
        return "（オフラインモデルで作成しました）"
    shown = "組み込みのローカルモデル (llama.cpp)" if model_name == "local" else model_name
    return f"（{shown} で作成しました。このモデルは指示に従った長い文章を書けないため、決まった手順で組み立てています）"
