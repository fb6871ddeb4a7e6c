"""Embeddings from a cloud provider: recall's vectors when SAIVERSE_EMBEDDING_MODEL names one (issue 33).

| setting | provider | needs |
|---|---|---|
| `gemini-embedding-001`, `gemini:<model>` | Gemini `batchEmbedContents` (google-genai) | `GEMINI_API_KEY` |
| `text-embedding-3-small`, `text-embedding-…` | OpenAI `/v1/embeddings` (openai SDK) | `OPENAI_API_KEY` |
| `openai:<model>` | an OpenAI-compatible server's `/v1/embeddings` | `SAIVERSE_OPENAI_BASE_URL` |
| `ollama:<model>`, `lmstudio:<model>`, `llamacpp:<model>` | that server here (saiverse/llm/servers.py) | — |

`local` and `local:<GGUF>` run in the supervised local process instead (saiverse/llm/local/_embedder.py).
Choosing a cloud model sends every message of every persona to that provider once (the background
indexer, saiverse/memory/_indexer.py) and each recall's query as it is asked.

Gemini and OpenAI's text-embedding-3 are asked for `DIMENSIONS` values (both shorten their vectors on
request, Matryoshka-style): recall keeps each persona's newest vectors as one float32 matrix in memory
(saiverse/memory/_dense.py), 2 KiB a message at 512. Every vector is returned at unit length (a shortened
Gemini vector is not), so a dot product is the cosine. Requests are retried as chat requests are
(saiverse/llm/retry.py); a failure raises `LLMError`, which the indexer counts as a failed batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chat import LLMError
from saiverse.llm.names import parse_name
from words import say

if TYPE_CHECKING:
    from saiverse.settings import Settings

DIMENSIONS = 512
"""What Gemini and OpenAI itself are asked for (a compatible server answers at its model's own width)."""
BATCH = 32
"""Texts per request: one request per indexer batch (the providers take 100 and 2,048)."""


def cloud_kind(name: str) -> str | None:
    """`gemini`, `openai` (OpenAI itself), `compatible` or `server` for a cloud or server embedding model's
    name; None for `local…` and for anything else."""
    low = name.strip().lower()
    if low.startswith("text-embedding-"):
        return "openai"
    kind = parse_name(name).kind
    return kind if kind in ("gemini", "compatible", "server") else None


class CloudEmbedder:
    """One embedding model behind a provider's API."""

    def __init__(self, name: str, model: Any, dimensions: int | None) -> None:
        self.name = name
        self.model = model
        """A GeminiModel or OpenAIModel: its `embed` (saiverse/llm/gemini.py, openai_sdk.py)."""
        self.dimensions = dimensions
        self.key = f"{name}@{dimensions}" if dimensions else name
        """What the vectors are stored under: another width is another set of vectors."""

    def embed(self, texts: list[str]) -> list[Any]:
        """Unit vectors of stored texts."""
        return _unit(self.model.embed(texts, query=False, dimensions=self.dimensions), self.name)

    def embed_query(self, texts: list[str]) -> list[Any]:
        """Unit vectors of questions (Gemini embeds them for retrieval: RETRIEVAL_QUERY)."""
        return _unit(self.model.embed(texts, query=True, dimensions=self.dimensions), self.name)

    def close(self) -> None:
        close = getattr(self.model, "close", None)
        if close is not None:
            close()


def _unit(vectors: list[list[float]], name: str) -> list[Any]:
    import numpy as np

    out = []
    for v in vectors:
        vec = np.asarray(v, dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        if not np.isfinite(norm) or norm == 0.0:
            raise LLMError(f"{name}: 長さ 0 か数でない埋め込みが返されました", kind="bad_response")
        out.append(vec / norm)
    return out


def cloud_embedder(settings: Settings, name: str) -> CloudEmbedder:
    """The embedder SAIVERSE_EMBEDDING_MODEL=`name` names; ValueError saying what is missing (a key, a URL)."""
    kind = cloud_kind(name)
    timeout = settings.request_timeout
    if kind == "gemini":
        if not settings.gemini_api_key:
            raise ValueError(say("embed_needs", lang=settings.lang, name=name, what="GEMINI_API_KEY"))
        from saiverse.llm.gemini import GeminiModel

        return CloudEmbedder(name, GeminiModel(name, api_key=settings.gemini_api_key,
                                               base_url=settings.gemini_base_url, timeout=timeout), DIMENSIONS)
    if kind in ("openai", "compatible", "server"):
        from saiverse.llm.openai_sdk import OpenAIModel
        from saiverse.llm.servers import server_url

        if kind == "openai":
            key, base = settings.openai_official_api_key, settings.openai_official_base_url
            if not key:
                raise ValueError(say("embed_needs", lang=settings.lang, name=name, what="OPENAI_API_KEY"))
        elif kind == "compatible":
            key, base = settings.openai_api_key, settings.openai_base_url
            if not base:
                raise ValueError(say("embed_needs", lang=settings.lang, name=name, what="SAIVERSE_OPENAI_BASE_URL"))
        else:
            url = server_url(settings, name.split(":", 1)[0].lower())
            if not url:
                raise ValueError(say("embed_no_server", lang=settings.lang, name=name))
            key, base = None, f"{url}/v1"
        model = OpenAIModel(name, model_id=parse_name(name).model_id if kind != "openai" else name.strip(),
                            api_key=key, base_url=base, compatible=kind != "openai", timeout=timeout)
        return CloudEmbedder(name, model, DIMENSIONS if kind == "openai" else None)
    raise ValueError(say("embed_unknown", lang=settings.lang, name=name))
