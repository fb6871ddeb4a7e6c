"""kill -9 at chosen points of the write paths, every time at the same point (tests/support/killat.py).

Each case kills a real child process running a real CLI command at one hook point — between a
document's commit and its rename, after a backup's snapshot, in the middle of an archive, after a
restore's extraction, between a migration copy and its rename — then checks what the issue asks:
nothing committed is lost or hidden, the next run of the same command (and the app's start, for
the home) removes its own debris, and only a complete backup is ever named as one.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import main as cli_main
from database.migrate import LATEST_VERSION, migrate
from saiverse.care import BackupStore
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from saiverse.world import Summarizer

KILLAT = Path(__file__).parents[1] / "support" / "killat.py"


def _killed(when: str, hook: str, *argv: str) -> None:
    """Run `main.py ARGV` in a child that SIGKILLs itself at `hook`; it must have died there."""
    proc = subprocess.run([sys.executable, str(KILLAT), when, hook, "--", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ})
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr)


def _guide(m: SAIVerseManager) -> str:
    return next(i.item_id for i in m.items.list_owned("building", "library") if i.type == "document")


def _ok(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli_main.main(argv) == 0
    return capsys.readouterr().out


def test_a_committed_edit_is_never_lost_while_another_process_holds_the_home(
        saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holder = SAIVerseManager(load_settings(saiverse_home))  # the app: start-up repair cannot run meanwhile
    try:
        doc = _guide(holder)
        path = holder.items.file_of(holder.items.get(doc))
        v1 = path.read_text(encoding="utf-8")
        args = json.dumps({"item_id": doc, "action_json": {"action_type": "patch_content", "patch": "追記 v2"}})
        _killed("before", "saiverse.world._items:commit_staged", "tool", "item_use", "--home", str(saiverse_home),
                "--persona", "mina", "--building", "library", "--args", args)
        row = holder.items.get(doc).state
        assert row["version"] == 2 and path.read_text(encoding="utf-8") == v1  # committed, not renamed
        assert path.with_name(f".{path.name}.v2.tmp").is_file()
        # A backup taken now archives the committed text under the document's own name.
        archive = saiverse_home.parent / "meanwhile.zip"
        _ok(["backup", "--home", str(saiverse_home), "--out", str(archive)], capsys)
        with zipfile.ZipFile(archive) as zf:
            archived = zf.read(holder.items.get(doc).file_path).decode("utf-8")
        assert "追記 v2" in archived
        assert hashlib.sha256(archived.encode()).hexdigest() == row["sha256"]
        # A reader in a third process gets the committed text, whose sha256 is the row's.
        out = _ok(["tool", "document_read", "--home", str(saiverse_home), "--persona", "mina",
                   "--building", "library", "--args", json.dumps({"item_id": doc})], capsys)
        assert "追記 v2" in json.dumps(json.loads(out)["result"], ensure_ascii=False)
        text = holder.items.read_document(doc)
        assert "追記 v2" in text
        assert hashlib.sha256(text.encode()).hexdigest() == holder.items.get(doc).state["sha256"]
        holder.items.edit_document(doc, lambda t: (t + "追記 v3\n", None))  # built on v2, not on the stale v1
    finally:
        holder.close()
    m = SAIVerseManager(load_settings(saiverse_home))  # start-up repair, alone now
    try:
        text = m.items.read_document(doc)
        assert "追記 v2" in text and "追記 v3" in text and m.items.get(doc).state["version"] == 3
        assert not list(path.parent.glob(".*.tmp"))
    finally:
        m.close()


def _world_counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("city", "building", "ai", "user", "item", "item_location")}
    finally:
        conn.close()


WHOLE = {"city": 1, "building": 5, "ai": 2, "user": 1, "item": 4, "item_location": 4}


def test_a_failed_first_start_leaves_no_half_seeded_world(saiverse_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def no_ca_bundle(self: Summarizer, path: Path, model_name: str | None = None) -> str:
        raise OSError("Could not find a suitable TLS CA certificate bundle")

    with monkeypatch.context() as patch:
        patch.setattr(Summarizer, "picture", no_ca_bundle)
        with pytest.raises(OSError, match="CA certificate"):
            SAIVerseManager(load_settings(saiverse_home))
    assert _world_counts(saiverse_home / "saiverse.db") == dict.fromkeys(WHOLE, 0)
    assert not [p for sub in ("image", "documents") for p in (saiverse_home / sub).rglob("*") if p.is_file()]
    m = SAIVerseManager(load_settings(saiverse_home))
    m.close()
    assert _world_counts(saiverse_home / "saiverse.db") == WHOLE


def test_a_first_start_killed_before_the_seed_commits_seeds_whole_next_time(saiverse_home: Path) -> None:
    _killed("after", "saiverse.seed:_seed_items", "world", "--home", str(saiverse_home))
    assert _world_counts(saiverse_home / "saiverse.db") == dict.fromkeys(WHOLE, 0)
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert _world_counts(saiverse_home / "saiverse.db") == WHOLE
        assert len(m.repair_report.orphans) == 4  # the killed start's files, set aside and named, not lost
        assert all(p.startswith("orphans/") for p in m.repair_report.orphans)
    finally:
        m.close()


@pytest.mark.parametrize("when,hook", [("after", "saiverse.care._backup:snapshot_sqlite"),
                                       ("before", "saiverse.care._backup:_Writer.add_file#2")])
def test_a_killed_backup_leaves_nothing_named_a_backup_and_the_next_one_tidies(
        saiverse_home: Path, tmp_path: Path, when: str, hook: str, capsys: pytest.CaptureFixture[str]) -> None:
    SAIVerseManager(load_settings(saiverse_home)).close()
    out = tmp_path / "out"
    _killed(when, hook, "backup", "--home", str(saiverse_home), "--out", str(out / "b.zip"))
    debris = sorted(p.name for p in out.iterdir())
    assert debris and all(n.startswith(".") for n in debris), debris  # never b.zip
    _ok(["backup", "--home", str(saiverse_home), "--out", str(out / "c.zip")], capsys)
    assert sorted(p.name for p in out.iterdir()) == ["c.zip"]


def test_a_killed_automatic_backup_is_tidied_at_start(saiverse_home: Path) -> None:
    SAIVerseManager(load_settings(saiverse_home)).close()
    _killed("after", "saiverse.care._backup:snapshot_sqlite", "backup", "--home", str(saiverse_home))
    backups = saiverse_home / "backups"
    assert [p.name for p in backups.iterdir() if p.name.startswith(".backup-")]
    assert BackupStore(saiverse_home, saiverse_home / "saiverse.db").list() == []
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert list(backups.iterdir()) == []
        assert any(".backup-" in n for n in m.notices)
    finally:
        m.close()


def test_a_killed_restore_is_tidied_by_the_next_restore_and_by_start(
        saiverse_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    SAIVerseManager(load_settings(saiverse_home)).close()
    archive = tmp_path / "world.zip"
    _ok(["backup", "--home", str(saiverse_home), "--out", str(archive)], capsys)
    target = tmp_path / "restored"
    _killed("before", "saiverse.care._restore:_prepare_database", "restore", str(archive), "--home", str(target))
    staged = list(tmp_path.glob(".restored.restore-*"))
    assert len(staged) == 1 and (staged[0] / "saiverse.db").is_file() and not target.exists()
    _ok(["restore", str(archive), "--home", str(target)], capsys)
    assert not list(tmp_path.glob(".restored.restore-*")) and (target / "saiverse.db").is_file()

    other = tmp_path / "second"
    _killed("before", "saiverse.care._restore:_prepare_database", "restore", str(archive), "--home", str(other))
    assert list(tmp_path.glob(".second.restore-*"))
    _ok(["world", "--home", str(other)], capsys)  # the app's start on that home
    assert not list(tmp_path.glob(".second.restore-*"))


def _v1_database(path: Path) -> Path:
    migrate(path, target=1)
    return path


def test_a_killed_migration_copy_is_never_named_a_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _v1_database(tmp_path / "saiverse.db")
    _killed("before", "database.migrate:os.replace", "migrate", "--db", str(db))  # copied, not yet renamed
    partial = [p.name for p in tmp_path.iterdir() if ".bak-" in p.name]
    assert partial and all(n.startswith(".") for n in partial), partial
    # An older version's debris: a copy already named as a backup, killed mid-write with a hot journal.
    old = tmp_path / "saiverse.db.bak-20260101_000000-v1"
    writer = subprocess.run([sys.executable, "-c", (
        "import os, signal, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA cache_size=1'); conn.execute('BEGIN IMMEDIATE')\n"
        "conn.execute('CREATE TABLE t (x)')\n"
        "conn.executemany('INSERT INTO t VALUES (?)', [('x' * 500,)] * 2000)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"), str(old)], capture_output=True, timeout=60)
    assert writer.returncode == -signal.SIGKILL and old.with_name(old.name + "-journal").is_file()
    _ok(["migrate", "--db", str(db)], capsys)
    left = sorted(p.name for p in tmp_path.iterdir() if ".bak-" in p.name)
    assert len(left) == 1 and not left[0].startswith(".") and left[0] != old.name, left
    conn = sqlite3.connect(tmp_path / left[0])
    try:
        assert conn.execute("SELECT MAX(VERSION) FROM schema_version").fetchone()[0] == 1  # a whole copy
    finally:
        conn.close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT MAX(VERSION) FROM schema_version").fetchone()[0] == LATEST_VERSION
    finally:
        conn.close()


def test_an_audio_item_killed_between_its_file_and_its_row_is_set_aside_at_start(
        saiverse_home: Path, tmp_path: Path) -> None:
    """kill -9 after an audio item's file and sidecar are written, before its rows (saiverse/world/_item_audio.py):
    no half item, and the next start moves the file to orphans/ (nothing the user kept is deleted)."""
    from tests.support.fakes_listen import sox_wav

    wav = sox_wav(tmp_path / "memo.wav", speech=0.4, silence=0.4)
    SAIVerseManager(load_settings(saiverse_home)).close()
    _killed("before", "saiverse.world._items:ItemStore._insert", "upload", "--home", str(saiverse_home),
            "--building", "library", str(wav))
    left = sorted(p.name for p in (saiverse_home / "recordings").iterdir())
    assert len(left) == 2 and left[1] == left[0] + ".summary.txt"  # the file, whole, and its sidecar; no row
    manager = SAIVerseManager(load_settings(saiverse_home))  # start-up repair
    try:
        assert not any(i.type == "audio" for i in manager.items.list_owned("building", "library"))
        assert not list((saiverse_home / "recordings").iterdir())
        assert (saiverse_home / "orphans" / "recordings" / left[0]).read_bytes() == wav.read_bytes()
        again = manager.upload_path("library", wav)  # and the next one works
        assert again.type == "audio"
    finally:
        manager.close()
