"""kill -9 campaign: ≥ 50 kills at random moments of pulses, document patches, uploads and productions.

After each kill the next child's start repairs the home; at the end the parent checks SQLite's
integrity, that every write the children reported as committed is still there, that no file is torn
(each document's text matches the sha256 its row records), that no temp file is left, and that no
production item was made twice. Figures go to benchmarks/RESULTS-reliability.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = Path(__file__).with_name("workload.py")
KILLS = int(os.environ.get("SAIVERSE_KILLS", "52"))


def _run_until_killed(home: Path, seed: int, rng: random.Random) -> list[dict[str, object]]:
    """Start a workload child, let it work for a random while after READY, SIGKILL it."""
    proc = subprocess.Popen([sys.executable, str(WORKLOAD), str(home), str(seed)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "SAIVERSE_HOME": str(home)})
    assert proc.stdout is not None
    reports: list[dict[str, object]] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            rec = json.loads(line)
            if rec["op"] == "ready":
                ready.set()
            else:
                reports.append(rec)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert ready.wait(60), proc.stderr.read() if proc.poll() is not None and proc.stderr else "no READY"
    time.sleep(rng.uniform(0.05, 1.2))
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    reader.join(10)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
    return reports


def test_kill_campaign(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings(saiverse_home))
    m.world.move_persona("sora", "atelier")
    m.close()
    rng = random.Random(20261123)
    committed: list[dict[str, object]] = []
    for seed in range(KILLS):
        committed += _run_until_killed(saiverse_home, seed, rng)
    ops = Counter(str(r["op"]) for r in committed)
    assert all(ops[k] > 0 for k in ("pulse", "patch", "upload")), ops

    m = SAIVerseManager(load_settings(saiverse_home))  # the last repair
    try:
        m.production.resume_interrupted(lambda _e: None)
        _check(m, saiverse_home, committed)
    finally:
        m.close()
    print(f"\nkill campaign: {KILLS} kills, committed writes checked: {dict(ops)}, lost 0")


def _check(m: SAIVerseManager, home: Path, committed: list[dict[str, object]]) -> None:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        history = {row[0] for row in conn.execute("SELECT CONTENT FROM building_history")}
        memory = {row[0] for row in conn.execute("SELECT CONTENT FROM saimemory WHERE PERSONA_ID='mina'")}
        states = [json.loads(s or "{}") for (s,) in conn.execute("SELECT STATE_JSON FROM item")]
    finally:
        conn.close()
    lost = []
    for rec in committed:
        if rec["op"] in ("pulse", "production"):
            if rec["text"] not in history:
                lost.append(rec)
            if rec["op"] == "pulse" and not any(str(rec["text"]) in c for c in memory):
                lost.append(rec)
        elif rec["op"] == "patch":
            if f"{rec['line']}\n" not in m.items.read_document(str(rec["item_id"])):
                lost.append(rec)
        elif rec["op"] == "upload":
            info = m.items.get(str(rec["item_id"]))
            if hashlib.sha256(m.items.file_of(info).read_bytes()).hexdigest() != rec["sha256"]:
                lost.append(rec)
    assert not lost, f"{len(lost)} committed writes lost: {lost[:5]}"
    for item in m.items.list_owned("building", "library") + m.items.list_owned("building", "atelier"):
        if item.type == "document" and "sha256" in item.state:
            text = m.items.file_of(item).read_text(encoding="utf-8")
            assert hashlib.sha256(text.encode()).hexdigest() == item.state["sha256"], f"torn file {item.name}"
    debris = [p for sub in ("image", "documents") for p in (home / sub).rglob(".*.tmp")]
    assert not debris, debris
    made = Counter((s.get("production_run"), s.get("step"), s.get("key")) for s in states if s.get("production_run"))
    twice = [k for k, n in made.items() if n > 1]
    assert not twice, f"production items made twice: {twice}"

