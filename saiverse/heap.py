"""The process heap after start-up, frozen out of the cyclic garbage collector (docs/ARCHITECTURE.md, "Pulse").

A started app holds about a million long-lived objects (Gradio, pandas, LangGraph, the world's caches),
and every collection of the oldest generation walks them all: 70–500 ms on a busy city
(benchmarks/RESULTS-city.md), a pause every few seconds in whichever thread allocates — a user's send
included. What exists once start-up is done lives as long as the process, so `gc.freeze()` moves it to
the permanent generation and later collections walk only what came after. Cycles among frozen objects
are never collected; start-up leaves few, and they would have lived on anyway.

Before that, `python main.py` holds the oldest generation's collections for the length of its start
(`hold_full_collections`, cli/_system.py): the heap grows from nothing to those million objects while
Gradio and the world load, and each full pass on the way walked all of it again — ~0.25 s of CPU in
four passes, a tenth of the start, that found next to nothing (~0.7k objects; the young generations,
still collected, take the rest). `settle()` then freezes as before and gives the collector back its
thresholds.
"""

from __future__ import annotations

import gc

_HELD: list[tuple[int, int, int]] = []
"""The collector's thresholds before `hold_full_collections` (at most one entry)."""
NO_FULL_PASS = 1 << 30
"""A third threshold no start reaches: the oldest generation waits for `settle()`."""


def hold_full_collections() -> None:
    """At the beginning of a start: no collection of the oldest generation until `settle()` (the
    young ones go on as ever)."""
    if not _HELD:
        _HELD.append(gc.get_threshold())
        first, second, _third = _HELD[0]
        gc.set_threshold(first, second, NO_FULL_PASS)


def settle() -> int:
    """Freeze what start-up made (call once the process serves) and restore the collector's thresholds
    held at start; returns how many objects are frozen."""
    gc.freeze()
    if _HELD:
        gc.set_threshold(*_HELD.pop())
    return gc.get_freeze_count()
