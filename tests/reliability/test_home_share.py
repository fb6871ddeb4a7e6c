"""Processes sharing one home: start-up repair never touches a save another live process has in flight.

Issue 34: three processes patching one document while four others opened and closed the home died with
`FileNotFoundError` on their staged `….summary.txt.v41.tmp` — a process whose "am I alone?" try failed
had lost its share of the home lock (database/locking.py `tried_lock`), so the next opener repaired
the home under it. Real processes throughout (tests/support/home_user.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from saiverse.locks import item_lock
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
USER = Path(__file__).parents[1] / "support" / "home_user.py"
PATCHERS, OPENERS, PATCHES = 3, 4, 15


def _start(*args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(USER), *args], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def _open_once() -> None:
    """Another program opening the home (it runs start-up repair when it is alone)."""
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "world", "--json"], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_process_that_was_not_alone_keeps_its_share(saiverse_home: Path) -> None:
    first = SAIVerseManager(load_settings(saiverse_home))
    holder = _start("hold", str(saiverse_home), stdin=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open", holder.stderr
        first.close()  # the holder's "alone?" failed while `first` was open; it must still count
        stray = saiverse_home / "documents" / ".stray.txt.v7.tmp"
        stray.parent.mkdir(exist_ok=True)
        stray.write_text("a save in flight", encoding="utf-8")
        _open_once()
        assert stray.exists(), "start-up repair ran while another process had the home open"
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        assert holder.wait(60) == 0, holder.stderr.read() if holder.stderr else ""
    _open_once()
    assert not stray.exists()  # alone now: the leftover is debris and goes


def test_repair_leaves_a_document_whose_lock_is_held(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        doc = m.items.create_document("共有の記録", "始まり\n", owner_kind="building", owner_id="library")
        path = m.items.file_of(doc)
    finally:
        m.close()
    staged = path.with_name(f".{path.name}.v2.tmp")
    with item_lock(saiverse_home, doc.item_id):  # a writer between staging and renaming
        staged.write_text("始まり\n次\n", encoding="utf-8")
        _open_once()
        assert staged.exists()
    _open_once()
    assert not staged.exists()  # version 2 never committed: removed once nobody holds the document


def test_patchers_and_openers_at_once(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        doc_id = m.items.create_document("並行の記録", "始まり\n", owner_kind="building", owner_id="library").item_id
    finally:
        m.close()
    stop = saiverse_home.parent / "stop-opening"
    openers = [_start("cycle", str(saiverse_home), str(stop)) for _ in range(OPENERS)]
    patchers = [_start("patch", str(saiverse_home), doc_id, f"p{n}", str(PATCHES)) for n in range(PATCHERS)]
    lines: list[str] = []
    try:
        for proc in patchers:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err[-3000:]
            lines += json.loads(out.strip().splitlines()[-1])["lines"]
    finally:
        stop.touch()
        opened = 0
        for proc in openers:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err[-3000:]
            opened += json.loads(out.strip().splitlines()[-1])["opened"]
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        text = m.items.read_document(doc_id)
        assert [line for line in lines if text.count(line + "\n") != 1] == []
        assert len(lines) == PATCHERS * PATCHES and m.items.get(doc_id).state["version"] == 1 + len(lines)
    finally:
        m.close()
    print(f"\nhome share: {len(lines)} patches from {PATCHERS} processes while {OPENERS} others opened the home "
          f"{opened} times; every patch kept once")
