"""Document writes: serialised per item across threads and processes, versioned, crash-repairable."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from saiverse.locks import HomeLock
from saiverse.manager import SAIVerseManager
from saiverse.pulse._production import bundle_entry_name
from saiverse.settings import load_settings
from saiverse.world._items import MAX_DOCUMENT_CHARS, StaleDocumentError, document_version
from saiverse.world._media import stage_versioned, summary_path

ROOT = Path(__file__).resolve().parents[1]


def _doc(manager: SAIVerseManager, text: str = "一行目\n") -> str:
    lib = next(b.building_id for b in manager.buildings() if b.name == "図書館")
    return manager.items.create_document("テスト文書", text, owner_kind="building", owner_id=lib).item_id


def _append(manager: SAIVerseManager, item_id: str, line: str) -> None:
    manager.items.edit_document(item_id, lambda text: (text + line + "\n", None))


def test_two_threads_patching_keep_every_line(manager: SAIVerseManager) -> None:
    item_id = _doc(manager, "")
    def worker(tag: str) -> None:
        for i in range(40):
            _append(manager, item_id, f"{tag}-{i}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = manager.items.read_document(item_id).splitlines()
    assert sorted(lines) == sorted([f"A-{i}" for i in range(40)] + [f"B-{i}" for i in range(40)])
    assert [x for x in lines if x.startswith("A")] == [f"A-{i}" for i in range(40)]  # each writer's order kept
    assert document_version(manager.items.get(item_id)) == 81


PATCHER = """
import sys
sys.path.insert(0, {root!r})
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
m = SAIVerseManager(load_settings({home!r}), seed=False)
for i in range(40):
    m.items.edit_document({item!r}, lambda t, i=i: (t + f"{tag}-{{i}}\\n", None))
m.close()
"""


def test_two_processes_patching_keep_every_line(manager: SAIVerseManager, saiverse_home: Path) -> None:
    item_id = _doc(manager, "")
    procs = [
        subprocess.Popen([sys.executable, "-c", PATCHER.format(root=str(ROOT), home=str(saiverse_home),
                                                               item=item_id, tag=tag)])
        for tag in ("P", "Q")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    lines = manager.items.read_document(item_id).splitlines()
    assert len(lines) == 80 and len(set(lines)) == 80
    assert document_version(manager.items.get(item_id)) == 81


def test_a_stale_save_is_refused_and_changes_nothing(manager: SAIVerseManager) -> None:
    item_id = _doc(manager, "最初の文\n")
    opened = document_version(manager.items.get(item_id))
    manager.save_document(item_id, "別の人が書いた文\n", expected_version=opened)
    with pytest.raises(StaleDocumentError, match=r"v1 → v2"):
        manager.save_document(item_id, "古い画面からの保存\n", expected_version=opened)
    assert manager.items.read_document(item_id) == "別の人が書いた文\n"
    assert document_version(manager.items.get(item_id)) == 2


@pytest.mark.parametrize("bad, message", [
    ("x" * (MAX_DOCUMENT_CHARS + 1), "文書が長すぎます"),
    ("NUL\x00文字", "NUL"),
    ("孤立\ud800サロゲート", "UTF-8"),
])
def test_bad_document_text_is_refused_everywhere(manager: SAIVerseManager, bad: str, message: str) -> None:
    item_id = _doc(manager, "元の文\n")
    with pytest.raises(ValueError, match=message):
        manager.save_document(item_id, bad)
    with pytest.raises(ValueError, match=message):
        manager.items.edit_document(item_id, lambda t: (bad, None))
    with pytest.raises(ValueError, match=message):
        _doc(manager, bad)
    assert manager.items.read_document(item_id) == "元の文\n"


def test_item_names_with_control_characters_are_refused(manager: SAIVerseManager) -> None:
    lib = next(b.building_id for b in manager.buildings() if b.name == "図書館")
    with pytest.raises(ValueError, match="制御文字"):
        manager.items.create_object("鍵\x00", "説明", owner_kind="building", owner_id=lib)


def _file(manager: SAIVerseManager, item_id: str) -> Path:
    return manager.items.file_of(manager.items.get(item_id))


def test_repair_rolls_a_committed_save_forward(saiverse_home: Path) -> None:
    """Kill between the row commit and the rename: the next start finishes the save."""
    m = SAIVerseManager(load_settings())
    item_id = _doc(m, "古い本文\n")
    path = _file(m, item_id)
    new = "新しい本文\n"
    # What `_write_document` had done when the kill came: both files staged, the row committed.
    stage_versioned(path, new, 2)
    stage_versioned(summary_path(path), "新しい要約", 2)
    from hashlib import sha256

    from sqlalchemy import text as sql
    with m.db.session() as s:
        state = json.loads(s.execute(sql("SELECT STATE_JSON FROM item WHERE ITEM_ID=:i"), {"i": item_id}).scalar())
        state.update(version=2, sha256=sha256(new.encode()).hexdigest())
        s.execute(sql("UPDATE item SET STATE_JSON=:s, DESCRIPTION='新しい要約' WHERE ITEM_ID=:i"),
                  {"s": json.dumps(state), "i": item_id})
    m.close()
    m = SAIVerseManager(load_settings())
    try:
        assert m.items.read_document(item_id) == new
        assert summary_path(path).read_text(encoding="utf-8") == "新しい要約"
        assert not list(path.parent.glob(".*.tmp"))
        assert len(m.repair_report.rolled_forward) == 2
    finally:
        m.close()


def test_repair_removes_uncommitted_temps_and_sets_orphans_aside(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings())
    item_id = _doc(m, "本文\n")
    path = _file(m, item_id)
    stage_versioned(path, "コミットされなかった本文\n", 2)       # the row still says version 1
    (path.parent / ".20250101_000000_x.txt.abcd.tmp").write_text("書きかけ")  # a creation's temp
    orphan = path.parent / "20250101_000000_orphan.txt"           # file written, row never inserted
    orphan.write_text("行き場のない文書", encoding="utf-8")
    m.close()
    m = SAIVerseManager(load_settings())
    try:
        assert m.items.read_document(item_id) == "本文\n"
        assert not list(path.parent.glob(".*.tmp"))
        assert not orphan.exists()
        moved = saiverse_home / "orphans" / "documents" / orphan.name
        assert moved.read_text(encoding="utf-8") == "行き場のない文書"
        assert m.repair_report.orphans == [f"orphans/documents/{orphan.name}"]
        assert len(m.repair_report.removed) == 2
    finally:
        m.close()


def test_repair_waits_while_another_process_has_the_home(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings())
    debris = _file(m, _doc(m)).parent / ".x.txt.1234.tmp"
    m.close()
    debris.write_text("another process is writing this")
    other = HomeLock(saiverse_home)  # a second open file description: another process, as flock sees it
    try:
        m = SAIVerseManager(load_settings())
        assert debris.exists() and not m.repair_report.removed
        m.close()
    finally:
        other.close()
    m = SAIVerseManager(load_settings())
    assert not debris.exists()
    m.close()


def test_three_first_starts_at_once_migrate_once(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import main; sys.exit(main.main(['world', '--json']))"
    env = {"SAIVERSE_HOME": str(home), "PATH": "/usr/bin:/bin"}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in results]
    assert not list(home.glob("saiverse.db.bak-*"))
    worlds = [json.loads(out) for out, _ in results]
    assert len({len(w["buildings"]) for w in worlds}) == 1


@pytest.mark.parametrize("name, entry", [
    ("../../../../../tmp/x", "_.._.._.._.._tmp_x"),
    ("/etc/passwd", "_etc_passwd"),
    ("..", "item"),
    ("a\\b:c\x00d", "a_b_c_d"),
    ("普通の名前", "普通の名前"),
])
def test_bundle_entry_names_stay_inside_the_zip(name: str, entry: str, tmp_path: Path) -> None:
    assert bundle_entry_name(name) == entry
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as zf:
        zf.writestr(f"document/{bundle_entry_name(name)}.txt", "x")
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        target = (tmp_path / "out" / zf.namelist()[0]).resolve()
        assert target.is_relative_to((tmp_path / "out").resolve())
