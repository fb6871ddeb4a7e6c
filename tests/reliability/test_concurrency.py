"""Concurrency: 4 personas × 25 pulses in threads, 2 other processes pulsing and patching the same home,
and concurrent document patches — nothing lost, nothing reordered, the database intact.

In this process each of 4 personas gets 25 pulses, submitted to the pulse controller 5 at a time (so
they queue), while 2 threads append lines to one document. At the same moment 2 child processes
(tests/support/pulser.py) each pulse a persona of their own 15 times and append to the same
document after every pulse. Afterwards: every pulse ended `ok`; each persona's SAIMemory holds its
messages in the order they were sent, each pulse's messages together (user line, then the reply);
each persona's building lines are in that order too; the document holds every appended line exactly
once at version 1 + the number of appends; the database's own check says ok. It runs on both stores
(tests/support/backends.py): the home's SQLite file and a PostgreSQL database, which the child
processes reach through the SAIVERSE_DATABASE_URL they inherit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.backends import Store

PULSER = Path(__file__).parents[1] / "support" / "pulser.py"
PERSONAS = {"mina": "library", "sora": "atelier", "kai": "museum", "rin": "entrance"}
"""Pulsed in this process (threads), each in its own building."""
CHILDREN = {"yuki": "user_room", "haru": "library"}
"""Pulsed by one child process each."""
PULSES, BATCH, CHILD_PULSES, PATCHES = 25, 5, 15, 20


def _prepare(home: Path) -> str:
    m = SAIVerseManager(load_settings(home))
    try:
        m.world.move_persona("sora", "atelier")
        for pid in ("kai", "rin", "yuki", "haru"):
            where = {**PERSONAS, **CHILDREN}[pid]
            m.admin.create_persona({"persona_id": pid, "name": pid.capitalize(), "building_id": where})
        return m.items.create_document("並行の記録", "始まり\n", owner_kind="building", owner_id="library").item_id
    finally:
        m.close()


def _pulse_persona(m: SAIVerseManager, pid: str, failures: list[str]) -> None:
    persona = m.world.persona(pid)
    playbook = m.meta_playbook(None)
    for start in range(0, PULSES, BATCH):
        handles = [m.pulses.submit_user(persona, PERSONAS[pid], f"こんにちは {pid} {i}", playbook,
                                        args={"input": f"こんにちは {pid} {i}"})
                   for i in range(start, start + BATCH)]
        for handle in handles:
            events = list(handle.events())
            if events[-1].get("status") != "ok":  # say why: the error events, not only the end
                errors = [e for e in events if e.get("type") == "error"]
                failures.append(f"{pid}: {errors or events[-1]}")


def _patch(m: SAIVerseManager, doc_id: str, tag: str) -> None:
    for i in range(PATCHES):
        line = f"{tag} 追記 {i}"
        m.items.edit_document(doc_id, lambda t, line=line: (t + line + "\n", None))


def test_concurrent_pulses_processes_and_patches(store: Store) -> None:
    saiverse_home = store.home
    doc_id = _prepare(saiverse_home)
    started = time.monotonic()
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home)}
    children = [subprocess.Popen([sys.executable, str(PULSER), str(saiverse_home), pid, where, str(CHILD_PULSES),
                                  doc_id, f"process-{pid}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env) for pid, where in CHILDREN.items()]
    m = SAIVerseManager(load_settings(saiverse_home))
    failures: list[str] = []
    try:
        threads = [threading.Thread(target=_pulse_persona, args=(m, pid, failures)) for pid in PERSONAS]
        threads += [threading.Thread(target=_patch, args=(m, doc_id, f"thread-{n}")) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        reports = {}
        for pid, proc in zip(CHILDREN, children, strict=True):
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err[-3000:]
            reports[pid] = json.loads(out.strip().splitlines()[-1])
        took = time.monotonic() - started
        assert not failures, "\n".join(failures[:5])
        assert all(s == "ok" for r in reports.values() for s in r["statuses"]), reports

        sent = {pid: [f"こんにちは {pid} {i}" for i in range(PULSES)] for pid in PERSONAS}
        sent |= {pid: r["sent"] for pid, r in reports.items()}
        for pid, texts in sent.items():
            pulses = _check_memory_order(m, pid, texts)
            _check_history_order(m, pid, {**PERSONAS, **CHILDREN}[pid], pulses)

        appended = [f"thread-{n} 追記 {i}" for n in range(2) for i in range(PATCHES)]
        appended += [line for r in reports.values() for line in r["lines"]]
        text = m.items.read_document(doc_id)
        missing = [line for line in appended if text.count(line + "\n") != 1]
        assert not missing, missing[:5]
        assert m.items.get(doc_id).state["version"] == 1 + len(appended)
    finally:
        m.close()
    checked = store.check_consistent()
    total = len(PERSONAS) * PULSES + len(CHILDREN) * CHILD_PULSES
    print(f"\nconcurrency ({store.kind}): {total} pulses ({len(PERSONAS)} personas × {PULSES} in threads + {len(CHILDREN)} "
          f"processes × {CHILD_PULSES}), {len(appended)} concurrent document appends, {took:.1f} s, lost 0, "
          f"out of order 0, {checked}")


def _check_memory_order(m: SAIVerseManager, pid: str, texts: list[str]) -> list[str]:
    """The persona's messages: pulse after pulse in the order sent, each pulse's messages together.
    Returns the pulse ids in that order."""
    rows = list(reversed(m.memory.list_messages(pid, limit=10 * len(texts))))
    pulses: list[str] = []
    by_pulse: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        pulse = str(row["pulse_id"])
        if not pulses or pulses[-1] != pulse:
            assert pulse not in by_pulse, f"{pid}: pulse {pulse} is split by another pulse's messages"
            pulses.append(pulse)
        by_pulse[pulse].append(row)
    users = [next(r for r in by_pulse[p] if r["role"] == "user")["content"] for p in pulses]
    assert users == texts, f"{pid}: sent {texts[:3]}…, memory holds {users[:3]}…"
    for p in pulses:
        roles = [r["role"] for r in by_pulse[p]]
        assert roles[0] == "user" and "assistant" in roles, (pid, roles)
    return pulses


def _check_history_order(m: SAIVerseManager, pid: str, building: str, pulses: list[str]) -> None:
    """The persona's lines in its building: one reply per pulse, in the same order as its memory."""
    replies = [h for h in m.history(building, limit=10_000) if h.speaker_id == pid]
    assert [h.pulse_id for h in replies] == pulses, pid
