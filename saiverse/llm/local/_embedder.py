"""Dense vectors of texts from a local GGUF, computed in the supervised inference process.

SAIMemory's recall can fuse lexical ranking with embeddings; with no key and no network they come from
a GGUF run by llama.cpp — in a child process, as local generation is (saiverse/llm/local/_child.py), so
an embedding model that crashes fails the indexing step that asked, never the app. A model whose
process dies twice running while loading is recorded as broken in the same place as a chat model's
(saiverse/llm/local/_health.py) and is not loaded again until the file, the build or 「もう一度試す」
changes that.
"""

from __future__ import annotations

import array
import base64
import sys
import threading
from pathlib import Path

from chat import LLMError
from saiverse.llm.local._child import ChildDied, LlamaChild, ModelBroken, RunnerError
from saiverse.llm.local._health import HealthBook

BATCH = 32
"""Texts per request to the process (one answer each way per batch)."""


class LocalEmbedder:
    """One embedding model in its own process, started on first use."""

    def __init__(self, name: str, path: Path, *, n_ctx: int = 512, stall_seconds: float = 180.0,
                 health: HealthBook | None = None) -> None:
        self.name = name
        self.path = path
        self._health = health
        self._child = LlamaChild(name, {"path": str(path), "n_ctx": n_ctx, "embedding": True},
                                 stall_seconds=stall_seconds)
        self._lock = threading.Lock()
        self.dim: int | None = None
        """The vectors' length, known after the first answer."""

    @property
    def pid(self) -> int | None:
        """The inference process's id while it runs."""
        return self._child.pid

    def embed(self, texts: list[str]) -> list[array.array[float]]:
        """A unit vector (float32) per text, in order. Raises LLMError (in Japanese) when the process
        died or hung, or the model is broken here."""
        if self._health is not None:
            known = self._health.get(self.path)
            if known is not None and known.state == "broken":
                raise LLMError(f"埋め込みモデル「{self.name}」は使えません ({known.reason})", kind="local_broken")
        out: list[array.array[float]] = []
        with self._lock:
            for start in range(0, len(texts), BATCH):
                out += self._batch(texts[start:start + BATCH])
        return out

    def _batch(self, texts: list[str]) -> list[array.array[float]]:
        try:
            data = self._child.call("embed", texts=texts)
        except ModelBroken as exc:
            if self._health is not None:
                self._health.set(self.path, "broken", exc.reason)
            raise LLMError(f"埋め込みモデル「{self.name}」は読み込み中に 2 回続けて異常終了しました ({exc.reason})",
                           kind="local_broken") from exc
        except ChildDied as exc:
            raise LLMError(f"埋め込みモデル「{self.name}」の処理が止まりました ({exc})。"
                           "次の索引付けでもう一度試します。", kind=exc.kind) from exc
        except RunnerError as exc:
            raise LLMError(f"埋め込みモデル「{self.name}」が答えられませんでした: {exc}", kind="local_error") from exc
        vectors = []
        for encoded in data.get("vectors") or []:
            vec = array.array("f")
            vec.frombytes(base64.b64decode(encoded))
            if sys.byteorder != "little":
                vec.byteswap()
            vectors.append(vec)
        if len(vectors) != len(texts):
            raise LLMError(f"埋め込みモデル「{self.name}」の答えの数が合いません", kind="local_error")
        if vectors:
            self.dim = len(vectors[0])
        if self._health is not None and self._health.get(self.path) is None:
            self._health.set(self.path, "ok")
        return vectors

    def close(self) -> None:
        """End the process."""
        self._child.close()
