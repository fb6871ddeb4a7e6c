"""The key/value header of a GGUF file, read without loading the model (`model list`, the 設定 tab).

GGUF (llama.cpp's file format): magic `GGUF`, version, tensor count, key/value count, then each key
(length-prefixed UTF-8), a value type and the value. Scalars and strings are kept; arrays (the
tokenizer's vocabulary) are skipped. Only the header is read, so listing a 2 GB model costs milliseconds.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
MAX_KEYS = 100_000
"""More keys than any real GGUF has: a damaged header stops here instead of reading forever."""


class NotGguf(ValueError):
    """The file is not a readable GGUF."""


def _read(fh: BinaryIO, fmt: str) -> object:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise NotGguf("the header ends early")
    return struct.unpack(fmt, data)[0]


def _string(fh: BinaryIO) -> str:
    length = int(_read(fh, "<Q"))  # type: ignore[arg-type]
    if length > 1 << 26:
        raise NotGguf("a string in the header is implausibly long")
    return fh.read(length).decode("utf-8", "replace")


def _skip(fh: BinaryIO, kind: int) -> None:
    if kind in _SCALARS:
        fh.seek(struct.calcsize(_SCALARS[kind]), 1)
    elif kind == _STRING:
        fh.seek(int(_read(fh, "<Q")), 1)  # type: ignore[arg-type]
    elif kind == _ARRAY:
        inner = int(_read(fh, "<I"))  # type: ignore[arg-type]
        count = int(_read(fh, "<Q"))  # type: ignore[arg-type]
        if inner in _SCALARS:
            fh.seek(struct.calcsize(_SCALARS[inner]) * count, 1)
        else:
            for _ in range(count):
                _skip(fh, inner)
    else:
        raise NotGguf(f"unknown value type {kind}")


def read_metadata(path: Path) -> dict[str, str]:
    """The header's scalar and string values as text (arrays left out). Raises NotGguf or OSError."""
    out: dict[str, str] = {}
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise NotGguf(f"{path.name} is not a GGUF file")
        version = int(_read(fh, "<I"))  # type: ignore[arg-type]
        if version < 2:
            raise NotGguf(f"GGUF version {version} is too old")
        _read(fh, "<Q")  # tensor count
        count = int(_read(fh, "<Q"))  # type: ignore[arg-type]
        if count > MAX_KEYS:
            raise NotGguf("the header claims too many keys")
        for _ in range(count):
            key = _string(fh)
            kind = int(_read(fh, "<I"))  # type: ignore[arg-type]
            if kind == _STRING:
                out[key] = _string(fh)
            elif kind in _SCALARS:
                out[key] = str(_read(fh, _SCALARS[kind]))
            else:
                _skip(fh, kind)
    return out


def context_length(metadata: dict[str, str]) -> int | None:
    """The context the model was trained for (`<architecture>.context_length`)."""
    arch = metadata.get("general.architecture", "")
    value = metadata.get(f"{arch}.context_length")
    return int(value) if value and value.isdigit() else None


EMBEDDING_ARCHITECTURES = frozenset({"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "xlm-roberta",
                                     "modern-bert", "neo-bert", "t5encoder"})
"""GGUF architectures that make vectors, not text."""


def is_embedding(meta: dict[str, str]) -> bool:
    """Whether a GGUF's header says it is an embedding model (an encoder, or a pooling type of its own)."""
    arch = meta.get("general.architecture", "")
    return arch in EMBEDDING_ARCHITECTURES or f"{arch}.pooling_type" in meta


def model_kind(path: Path) -> str:
    """`embedding` or `chat`, from the file's header (`chat` when it cannot be read)."""
    try:
        return "embedding" if is_embedding(read_metadata(path)) else "chat"
    except (OSError, NotGguf):
        return "chat"
