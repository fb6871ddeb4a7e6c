"""The curated list of models `model pull` offers (CLI and the 設定 tab's 「モデルを入手」), in one place.

Small instruct GGUFs that write good Japanese on a laptop CPU, and small multilingual embedding GGUFs
(`kind="embedding"`) whose vectors recall fuses with its lexical ranking (saiverse/memory/_indexer.py).
Repository and file names are exactly as their publishers list them on the Hugging Face hub; sizes are
what the hub lists (the download itself uses the size and sha256 the hub serves for the file, never a
figure written here).
Any other model is pulled by name as `owner/repo/file.gguf`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from saiverse.errors import UsageError


@dataclass(frozen=True)
class CatalogEntry:
    """One model of the list."""

    name: str
    """Short name: `model pull NAME` and the `local:NAME` a persona may use."""
    repo: str
    """Hugging Face repository, as its publisher lists it."""
    filename: str
    """The GGUF file in it, as listed."""
    approx_bytes: int
    """Size as the hub lists it (shown before the download; the download trusts the hub's header)."""
    params: str
    """Parameter count, as a label (`1.5B`)."""
    good_at_ja: str
    """What it is good at (shown in the 設定 tab)."""
    good_at_en: str
    """The same, in English (SAIVERSE_LANG=en)."""
    kind: str = "chat"
    """`chat` (talks) or `embedding` (vectors for recall: SAIVERSE_EMBEDDING_MODEL=local:NAME)."""
    query_prefix: str = ""
    """What an embedding model wants before a query (E5: `query: `)."""
    passage_prefix: str = ""
    """What it wants before a stored text (E5: `passage: `)."""

    @property
    def spec(self) -> str:
        """`owner/repo/file.gguf`."""
        return f"{self.repo}/{self.filename}"


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("qwen2.5-1.5b-instruct", "Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
                 1_117_320_736, "1.5B",
                 "軽くて速い会話向け。日本語も自然で、ノート PC の CPU でも待たずに返事をします (Q4_K_M)",
                 "Light and quick conversation; natural Japanese, answers without a wait on a laptop CPU"),
    CatalogEntry("tinyswallow-1.5b-instruct", "SakanaAI/TinySwallow-1.5B-Instruct-GGUF",
                 "tinyswallow-1.5b-instruct-q5_k_m.gguf", 1_130_000_000, "1.5B",
                 "日本語に特化した小型モデル。丁寧で自然な日本語の会話が得意 (公開されている最小の Q5_K_M)",
                 "Small model trained for Japanese: polite, natural Japanese conversation (Q5_K_M, its smallest)"),
    CatalogEntry("gemma-3-1b-it", "unsloth/gemma-3-1b-it-GGUF", "gemma-3-1b-it-Q4_K_M.gguf", 806_000_000, "1B",
                 "いちばん小さく軽い。短いあいさつや雑談向け (Q4_K_M)",
                 "The smallest and lightest: greetings and small talk"),
    CatalogEntry("qwen2.5-3b-instruct", "Qwen/Qwen2.5-3B-Instruct-GGUF", "qwen2.5-3b-instruct-q4_k_m.gguf",
                 2_100_000_000, "3B",
                 "賢く、判断 (行き先・JSON) も任せられる大きさ。返事は少しゆっくり (Q4_K_M)",
                 "Smarter, large enough to be trusted with decisions (routing, JSON); slower replies"),
    CatalogEntry("gemma-3-4b-it", "ggml-org/gemma-3-4b-it-GGUF", "gemma-3-4b-it-Q4_K_M.gguf", 2_490_000_000, "4B",
                 "表現が豊かで物語や説明が上手。メモリ 8 GB 以上の PC 向け (Q4_K_M)",
                 "Rich, expressive writing for stories and explanations; for PCs with 8 GB of memory or more"),
    # Embedding models for recall (issue 33), bert-architecture GGUFs llama.cpp runs; repository and file names as the
    # hub lists them. Untried here: this machine reaches no model hub.
    CatalogEntry("multilingual-e5-small", "cstr/multilingual-e5-small-GGUF", "multilingual-e5-small-q8_0.gguf",
                 130_000_000, "118M",
                 "記憶の検索用 (埋め込み)。小さく速い多言語モデルで、日本語の言い換えも見つけます (Q8_0、384 次元)",
                 "For recall (embeddings): small, fast, multilingual, finds Japanese rewordings (Q8_0, 384 dims)",
                 kind="embedding", query_prefix="query: ", passage_prefix="passage: "),
    CatalogEntry("bge-m3", "rbehzadan/bge-m3-gguf", "bge-m3-Q4_K_M.gguf", 438_000_000, "568M",
                 "記憶の検索用 (埋め込み)。日本語に強い多言語モデル。より正確、少し重い (Q4_K_M、1024 次元)",
                 "For recall (embeddings): strong multilingual model, good at Japanese; more accurate, heavier",
                 kind="embedding"),
)
"""The list, smallest useful first."""

_SPEC = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)/(?P<file>[\w.-]+\.gguf)$")


def entry(name: str) -> CatalogEntry | None:
    """The catalogue entry named `name` (its short name, or its `repo/file`), None when not listed."""
    low = name.strip().lower()
    return next((e for e in CATALOG if low in (e.name, e.spec.lower(), e.filename.lower())), None)


def resolve(name: str) -> tuple[str, str, CatalogEntry | None]:
    """(repository, file name, catalogue entry or None) of what `model pull NAME` names.

    Raises UsageError (exit 2) for a name that is neither listed nor `owner/repo/file.gguf`.
    """
    found = entry(name)
    if found:
        return found.repo, found.filename, found
    match = _SPEC.match(name.strip())
    if not match or ".." in name:
        names = ", ".join(e.name for e in CATALOG)
        raise UsageError(f"unknown model {name!r}: give one of {names}, or owner/repo/file.gguf")
    return match.group("repo"), match.group("file"), None


def local_name(filename: str) -> str:
    """What a pulled file is called in `local:NAME` (its file name without `.gguf`)."""
    return filename[:-5] if filename.lower().endswith(".gguf") else filename
