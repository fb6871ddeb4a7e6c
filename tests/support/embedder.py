"""A small deterministic embedder for the dense-recall tests (tests/test_dense_recall.py, and the cloud
embedding fakes of tests/test_dense_cloud.py): concept words → axes, so what a test asserts is the store,
the cursor and the fusion, not a model's taste. `LINES` are the remembered lines those tests fill in."""

from __future__ import annotations

import math

CONCEPTS = [("volvo", "car", "vehicle", "車"), ("broke", "stop working", "故障", "壊れ"), ("tea", "bowl", "茶碗"),
            ("kyoto", "京都"), ("cat", "猫"), ("library", "図書館"), ("job", "work", "就職", "仕事")]

LINES = ["The Volvo broke down on the motorway", "I bought a tea bowl in Kyoto", "My cat sleeps all day",
         "The library opens at nine", "I started a new job in April", "", "   "]


def embed(texts: list[str]) -> list[list[float]]:
    """A unit vector per text: one axis per concept it names, a little of its length so none is zero."""
    out = []
    for t in texts:
        low = t.lower()
        vec = [float(sum(low.count(w) for w in words)) for words in CONCEPTS] + [0.05 + len(t) % 7 / 100]
        norm = math.sqrt(sum(v * v for v in vec))
        out.append([v / norm for v in vec])
    return out
