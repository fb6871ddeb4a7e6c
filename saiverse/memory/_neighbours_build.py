"""Build recall's word-neighbour table from the packaged model's token embeddings, in a process of its own.

    python saiverse/memory/_neighbours_build.py MODEL.gguf OUT.sqlite

Run by saiverse/memory/_neighbours.py as `python <this file>`, so it imports nothing of the app: numpy and
`gguf` (llama.cpp's own reader of the file format) only. A language model's input embeddings place words
that stand for one another near each other (car: vehicle, automobile; surgery: surgical, hospital;
tomatoes: vegetables) — a thesaurus learnt from its training text, in the file the app already ships.
This reads the table (dequantising only the rows of whole English words), centres and normalises it, and
keeps each word's nearest words by cosine. Some 54,000 words, a minute or two of one matrix product on
two cores and under 400 MB while it runs, once per home: the app goes on meanwhile, and this process's
memory goes back when it ends. Written beside OUT and renamed, so a kill leaves no half table.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

if sys.path and os.path.dirname(os.path.abspath(__file__)) == os.path.abspath(sys.path[0] or "."):
    del sys.path[0]  # this folder holds the app's private modules: never import them by accident

NEIGHBOURS = 8
"""Neighbours kept per word (recall uses fewer; saiverse/memory/_lexical.py says how many)."""
FLOOR = 0.40
"""Cosine below which a word is no neighbour at all."""
_WORD = re.compile(r"▁[a-z]{3,}$")
"""A whole lower-case English word of three letters or more, as the SentencePiece vocabulary writes it."""
BLOCK = 128


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def _header(path: Path) -> tuple[list[str], dict[str, tuple[list[int], int, int]], int]:
    """(the vocabulary, tensor name → (shape, type, offset), where tensor data starts) of a GGUF file.

    `gguf.GGUFReader` makes a numpy object of every part of every field — some 460 MB for a 262,144-token
    vocabulary — so the header is read here, with the format's own few rules, and only the quantised
    rows the table needs are read and dequantised by `gguf.quants`."""
    import struct

    with open(path, "rb") as f:
        def unpack(fmt: str) -> Any:
            return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]

        def text() -> str:
            return f.read(unpack("<Q")).decode("utf-8", "replace")

        def value(kind: int) -> Any:
            if kind == 8:
                return text()
            if kind == 9:
                inner, count = unpack("<I"), unpack("<Q")
                return [value(inner) for _ in range(count)]
            return unpack(_SCALARS[kind])

        if f.read(4) != b"GGUF" or unpack("<I") < 2:
            raise ValueError(f"{path.name} is not a GGUF file of version 2 or later")
        n_tensors, n_fields = unpack("<Q"), unpack("<Q")
        fields: dict[str, Any] = {}
        for _ in range(n_fields):
            key = text()
            fields[key] = value(unpack("<I"))
        tensors: dict[str, tuple[list[int], int, int]] = {}
        for _ in range(n_tensors):
            name = text()
            shape = [unpack("<Q") for _ in range(unpack("<I"))]
            tensors[name] = (shape, unpack("<I"), unpack("<Q"))
        align = int(fields.get("general.alignment", 32))
        start = -(-f.tell() // align) * align
    return list(fields["tokenizer.ggml.tokens"]), tensors, start


def build(model: Path, out: Path) -> int:
    """Write the table to `out` (atomically); returns how many words it holds."""
    import gguf
    import numpy as np

    tokens, tensors, start = _header(model)
    rows: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if _WORD.match(tok):
            rows.setdefault(tok[1:], i)
    words = list(rows)
    shape, kind, offset = tensors["token_embd.weight"]
    dim, qtype = int(shape[0]), gguf.GGMLQuantizationType(kind)
    block, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    table = np.memmap(model, dtype=np.uint8, mode="r", offset=start + offset,
                      shape=(int(shape[1]), dim // block * block_bytes))
    picked = np.asarray([rows[w] for w in words])
    vectors = np.empty((len(words), dim), dtype=np.float32)
    for a in range(0, len(words), 4096):  # dequantised a slice at a time: the whole table is 670 MB as floats
        vectors[a:a + 4096] = gguf.quants.dequantize(np.asarray(table[picked[a:a + 4096]]), qtype)
    del table
    vectors -= vectors.mean(axis=0)  # the direction all words share says nothing about any of them
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.execute("CREATE TABLE neighbours (word TEXT PRIMARY KEY, near TEXT NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE source (name TEXT, size INTEGER, words INTEGER)")
        for a in range(0, len(words), BLOCK):
            sims = vectors[a:a + BLOCK] @ vectors.T
            np.fill_diagonal(sims[:, a:a + BLOCK], -1.0)  # a word is not its own neighbour
            top = np.argpartition(-sims, NEIGHBOURS, axis=1)[:, :NEIGHBOURS]
            scores = np.take_along_axis(sims, top, axis=1)
            order = np.argsort(-scores, axis=1)
            top, scores = np.take_along_axis(top, order, 1), np.take_along_axis(scores, order, 1)
            db.executemany("INSERT INTO neighbours VALUES (?, ?)", [
                (words[a + n], " ".join(f"{words[j]}:{s:.3f}" for j, s in zip(top[n], scores[n], strict=True)
                                        if s >= FLOOR))
                for n in range(len(top))])
        db.execute("INSERT INTO source VALUES (?, ?, ?)", (model.name, model.stat().st_size, len(words)))
        db.commit()
    finally:
        db.close()
    os.chmod(tmp, 0o600)  # private like every file of the home
    os.replace(tmp, out)
    return len(words)


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: _neighbours_build.py MODEL.gguf OUT.sqlite", file=sys.stderr)
        return 2
    # Below the app's own work: this can wait, a reply cannot (where nice is refused, it runs as it is).
    with contextlib.suppress(OSError):
        os.nice(10)
    count = build(Path(sys.argv[1]), Path(sys.argv[2]))
    print(count)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
