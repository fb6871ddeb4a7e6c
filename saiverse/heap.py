"""The process heap after start-up, frozen out of the cyclic garbage collector (docs/ARCHITECTURE.md, "Pulse").

A started app holds about a million long-lived objects (Gradio, pandas, LangGraph, the world's caches),
and every collection of the oldest generation walks them all: 70–500 ms on a busy city
(benchmarks/RESULTS-city.md), a pause every few seconds in whichever thread allocates — a user's send
included. What exists once start-up is done lives as long as the process, so `gc.freeze()` moves it to
the permanent generation and later collections walk only what came after. Cycles among frozen objects
are never collected; start-up leaves few, and they would have lived on anyway.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Freeze what start-up made (call once the process serves); returns how many objects are frozen."""
    gc.freeze()
    return gc.get_freeze_count()
