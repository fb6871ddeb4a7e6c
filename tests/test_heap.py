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
