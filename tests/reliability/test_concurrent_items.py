"""Concurrent writers: threads of this process and a second process make, move and bag items in one room,
walk personas into one small room, and note on one Memopedia page while the user edits it — all at once,
and every write lands.

Each of these reads, then writes: the smallest free item slot (saiverse/world/_item_slots.py), a room's
head count, a page's content before a line is added. Before `Database.session(write=True)`
(database/engine.py) two writers read the same state: half of 160 concurrent item creations were refused
by the unique slot index, a room for two could take three, and 50 of 100 concurrent Memopedia notes were
lost. On both stores.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.backends import Store

THREADS, EACH, CHILD = 3, 25, 40
OPEN = """
import sys
from pathlib import Path
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
m = SAIVerseManager(load_settings(Path(sys.argv[1])), seed=False, index=False)
"""
"""What every second process starts with: the home of argv[1] opened, `m` its manager (closed at exit)."""
MAKER = """
for i in range(int(sys.argv[2])):
    m.items.create_object(f"child {i}", "made by the second process", owner_kind="building", owner_id="library")
"""
WALKER = """
for n in range(4, 8):
    try:
        m.world.move_persona(f"walker{n}", sys.argv[2])
        print("in")
    except ValueError:
        print("full")
"""
NOTER = """
for i in range(int(sys.argv[2])):
    m.memopedia.note("mina", f"child line {i}", title="毎日のこと", category="terms")
"""


def _beside_a_process(threads: list[threading.Thread], script: str, *args: str) -> str:
    """Run `threads` while a second process runs `script` on the same home; its output once all are done."""
    body = "try:\n" + "".join(f"    {line}\n" for line in script.strip().splitlines()) + "finally:\n    m.close()\n"
    child = subprocess.Popen([sys.executable, "-c", OPEN + body, *args], cwd=Path(__file__).parents[2],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err[-2000:]
    return out


def test_concurrent_item_writers_all_succeed_in_slots_of_their_own(store: Store) -> None:
    m = SAIVerseManager(load_settings(store.home))
    try:
        bag = m.items.create_object("道具袋", "holds things", owner_kind="building", owner_id="library", kind="bag")
        failures: list[str] = []

        def make(k: int) -> None:
            for i in range(EACH):
                try:
                    info = m.items.create_object(f"thread {k}-{i}", "x", owner_kind="building", owner_id="library")
                    if i % 5 == 4:  # some go into the bag and out again, taking and freeing slots meanwhile
                        m.items.move(info.item_id, owner_kind="bag", owner_id=bag.item_id)
                        m.items.move(info.item_id, owner_kind="building", owner_id="library")
                except Exception as exc:  # noqa: BLE001 - every failure is the finding
                    failures.append(f"thread {k}-{i}: {exc!r}")

        _beside_a_process([threading.Thread(target=make, args=(k,)) for k in range(THREADS)],
                          MAKER, str(store.home), str(CHILD))
        assert failures == []
        room = m.items.list_owned("building", "library")
        made = [i for i in room if i.name.startswith(("thread ", "child "))]
        assert len(made) == THREADS * EACH + CHILD
        slots = [i.slot_number for i in room]
        assert None not in slots and len(set(slots)) == len(slots)  # each its own `item:N`
        assert sorted(slots) == list(range(1, len(slots) + 1))  # the smallest free ones: no gaps left
    finally:
        m.close()
    store.check_consistent()


def test_concurrent_moves_never_overfill_a_room(store: Store) -> None:
    """Eight personas walk into a room for two at once, from threads and a second process: two get in."""
    m = SAIVerseManager(load_settings(store.home))
    try:
        room = m.admin.create_building({"name": "小部屋", "capacity": 2})
        for n in range(8):
            m.admin.create_persona({"persona_id": f"walker{n}", "name": f"Walker {n}", "building_id": "entrance"})
        outcomes: list[str] = []

        def walk(pid: str) -> None:
            try:
                m.world.move_persona(pid, room.building_id)
                outcomes.append("in")
            except ValueError:  # 満員: the refusal the tools and the UI show
                outcomes.append("full")

        outcomes += _beside_a_process([threading.Thread(target=walk, args=(f"walker{n}",)) for n in range(4)],
                                      WALKER, str(store.home), room.building_id).split()
        inside = [p for p in m.world.personas() if p.building_id == room.building_id]
        assert len(outcomes) == 8 and outcomes.count("in") == 2 == len(inside)
    finally:
        m.close()
    store.check_consistent()



def test_concurrent_memopedia_notes_and_edits_all_land(store: Store) -> None:
    """A persona's notes from threads and a second process, and the user's edits of the same page's summary,
    at once: every noted line is on the page once, and the last summary written stands."""
    m = SAIVerseManager(load_settings(store.home))
    try:
        failures: list[str] = []

        def note(k: int) -> None:
            for i in range(EACH):
                try:
                    m.memopedia.note("mina", f"thread {k} line {i}", title="毎日のこと", category="terms")
                except Exception as exc:  # noqa: BLE001 - every failure is the finding
                    failures.append(f"thread {k}-{i}: {exc!r}")

        def edit() -> None:
            for i in range(EACH):
                page = m.memopedia.by_title("mina", "毎日のこと", "terms")
                if page is not None:
                    m.memopedia.update("mina", page.page_id, summary=f"要約 {i}", source="user")

        _beside_a_process([threading.Thread(target=note, args=(k,)) for k in range(THREADS)]
                          + [threading.Thread(target=edit)], NOTER, str(store.home), str(EACH))
        assert failures == []
        pages = [p for p in m.memopedia.pages("mina") if p.title == "毎日のこと"]
        assert len(pages) == 1  # two first notes at once made one page
        lines = pages[0].content.splitlines()
        want = [f"- thread {k} line {i}" for k in range(THREADS) for i in range(EACH)]
        want += [f"- child line {i}" for i in range(EACH)]
        assert sorted(lines) == sorted(want)  # none lost, none twice
        assert pages[0].summary.startswith("要約 ")
    finally:
        m.close()
    store.check_consistent()
