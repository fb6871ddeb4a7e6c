"""saiverse/heap.py: what start-up made leaves the collector's passes (frozen), what comes later does not."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from saiverse.heap import settle


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process's heap as it was


def test_settle_freezes_what_exists_and_only_that(unfrozen: None) -> None:
    before = [{"made": "at start-up"}]
    frozen = settle()
    assert frozen > 0 and gc.get_freeze_count() == frozen
    assert not any(o is before for o in gc.get_objects())  # walked by no collection from now on
    after = [{"made": "later"}]
    assert any(o is after for o in gc.get_objects())  # later objects are collected as ever


def _generations_collected_while_growing() -> list[int]:
    """Which generations the collector passes over while the heap grows by ~300k live containers,
    as it does while Gradio and the world load."""
    seen: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(watch)
    try:
        kept = [[i] for i in range(300_000)]
        del kept
    finally:
        gc.callbacks.remove(watch)
    return seen


def test_full_collections_wait_for_settle_and_thresholds_come_back(unfrozen: None) -> None:
    from saiverse.heap import NO_FULL_PASS, hold_full_collections

    thresholds = gc.get_threshold()
    try:
        assert 2 in _generations_collected_while_growing()  # as a start did before
        hold_full_collections()
        hold_full_collections()  # a second hold keeps the first thresholds to restore
        assert gc.get_threshold() == (thresholds[0], thresholds[1], NO_FULL_PASS)
        seen = _generations_collected_while_growing()
        assert 0 in seen and 2 not in seen  # the young generations are still collected
        settle()
        assert gc.get_threshold() == thresholds
    finally:
        gc.set_threshold(*thresholds)
