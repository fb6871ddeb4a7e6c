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
