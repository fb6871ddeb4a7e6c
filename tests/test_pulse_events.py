"""The batched event hand-over of a pulse (saiverse/pulse/_journal.py, EventChannel): every event arrives, in
order, whether the reader is asleep or busy when it is put; nothing is lost between the check and the wait."""

from __future__ import annotations

import random
import threading
import time

from saiverse.pulse._journal import EventChannel


def _read_all(channel: EventChannel) -> list[object]:
    got: list[object] = []
    while True:
        for item in channel.take():
            if item is None:
                return got
            got.append(item)


def test_every_event_arrives_in_order_across_threads() -> None:
    channel = EventChannel()
    rng = random.Random(3)
    pauses = [rng.random() < 0.01 for _ in range(20_000)]

    def produce() -> None:
        for n, pause in enumerate(pauses):
            if pause:
                time.sleep(0.001)  # the reader falls asleep here, the next put must wake it
            channel.put({"n": n})
        channel.put(None)

    producer = threading.Thread(target=produce)
    producer.start()
    got = _read_all(channel)
    producer.join()
    assert [e["n"] for e in got] == list(range(len(pauses)))  # type: ignore[index]


def test_a_batch_is_everything_put_before_the_take() -> None:
    channel = EventChannel()
    for n in range(5):
        channel.put(n)
    assert channel.take() == [0, 1, 2, 3, 4]
    channel.put("late")
    channel.put(None)
    assert channel.take() == ["late", None]


def test_an_event_without_the_end_still_reaches_a_sleeping_reader() -> None:
    # Put within the reader's window (no wake), then put past it (a wake): neither waits for the end.
    channel = EventChannel()
    got: list[list[object]] = []
    arrived = threading.Event()

    def read() -> None:
        while True:
            batch = channel.take()
            got.append(batch)
            arrived.set()
            if batch and batch[-1] is None:
                return

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.002)  # the reader is asleep, within its window
    channel.put("soon")
    assert arrived.wait(5), "an event put within the reader's window was never handed over"
    arrived.clear()
    time.sleep(0.05)  # the reader slept its window through: the next put wakes it
    channel.put("later")
    assert arrived.wait(5), "an event put after the reader's window was never handed over"
    channel.put(None)
    reader.join(5)
    assert [item for batch in got for item in batch] == ["soon", "later", None]
