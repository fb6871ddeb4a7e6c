"""Run one function on many threads at once, for the tests' concurrency races."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def together(fn: Callable[[T], Any], items: Iterable[T], *, timeout: float = 120.0) -> tuple[list[Any], list[BaseException]]:
    """`fn(item)` for every item, each on a thread of its own, all started before any is joined (`timeout`
    s each): the results in item order (None where it raised) and whatever was raised."""
    items = list(items)
    results: list[Any] = [None] * len(items)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = fn(items[i])
        except BaseException as exc:  # noqa: BLE001 - collected for the caller's assertion
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(items))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return results, errors
