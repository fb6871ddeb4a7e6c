"""The clean-close stamp (database/clean_close.py): a home SAIVerse closed cleanly opens without the full
integrity check; anything else — a changed byte with its mtime put back, a kill -9 after writes, a
stale stamp beside a non-empty -wal, another process still holding the file — gets the check.

The observable is `integrity_checks_run()` (how many full checks this process ran at opens) and the
log line that says why a check ran or was skipped; never a time.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from database.clean_close import differences, facts, stamp_path
from database.migrate import MigrationError, integrity_checks_run, migrate
from saiverse.manager import SAIVerseManager

ROOT = Path(__file__).resolve().parents[1]
Make = Callable[..., SAIVerseManager]


def _closed_cleanly(make_manager: Make) -> SAIVerseManager:
    """A world opened, written to and closed: its database is stamped."""
    m = make_manager()
    m.memory.add("mina", "user", "閉じる前の言葉 " * 50, tags=["conversation"])
    m.close()
    return m


def _add_rows(db: Path, n: int = 400) -> None:
    """Enough memory rows that the last pages of the file are table and index pages."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('p', 'user', ?)",
                             [(f"言葉 {i} " * 40,) for i in range(n)])
    finally:
        conn.close()


def test_a_clean_close_then_reopen_skips_the_check(make_manager: Make, saiverse_home: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    stamp = stamp_path(db)
    assert stamp.parent == saiverse_home and stamp.is_file()
    assert stat.S_IMODE(stamp.stat().st_mode) == 0o600
    assert not db.with_name(db.name + "-wal").exists()  # checkpointed into the file, then gone
    assert json.loads(stamp.read_text())["size"] == db.stat().st_size
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        again = make_manager()
    assert integrity_checks_run() == before
    assert "closed cleanly by SAIVerse and unchanged since; integrity check skipped" in caplog.text
    assert not stamp.exists()  # used up at open, before anything writes
    again.memory.add("mina", "user", "また会えた")
    again.close()
    assert stamp.is_file()  # and written again at this clean close
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        make_manager().close()
    assert integrity_checks_run() == before and "integrity check skipped" in caplog.text


def test_a_home_without_a_stamp_is_checked(make_manager: Make, caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    stamp_path(m.settings.db_path).unlink()  # e.g. a home from before this version
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        make_manager()
    assert integrity_checks_run() == before + 1
    assert "integrity check (PRAGMA quick_check) runs: no clean-close stamp" in caplog.text


def test_a_smashed_last_page_with_its_mtime_put_back_is_caught(make_manager: Make, saiverse_home: Path) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    _add_rows(db)  # outside SAIVerse: the stamp now differs already; close once more to stamp this file
    make_manager().close()
    recorded = json.loads(stamp_path(db).read_text())
    st = db.stat()
    raw = bytearray(db.read_bytes())
    raw[-4096:] = b"\xff" * 4096  # the last page: a page of the memory table or its index
    with db.open("r+b") as fh:  # in place: the same inode, the same size
        fh.write(raw)
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime put back as it was
    assert db.stat().st_mtime_ns == recorded["mtime_ns"] and db.stat().st_size == recorded["size"]
    # Two facts catch it on their own: the ctime (no program can set it back) and the last page's hash.
    assert differences(recorded, facts(db)) == ["ctime_ns", "last_page_sha256"]
    before = integrity_checks_run()
    with pytest.raises(MigrationError, match="malformed|is damaged"):
        make_manager()
    assert integrity_checks_run() == before + 1
    assert bytes(raw) == db.read_bytes()  # refused, nothing written


def test_a_changed_header_with_its_mtime_put_back_is_caught(make_manager: Make) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    recorded = json.loads(stamp_path(db).read_text())
    st = db.stat()
    with db.open("r+b") as fh:
        fh.seek(60)  # a bit of the header's user version (which SAIVerse does not use) flipped in page 1
        byte = fh.read(1)
        fh.seek(60)
        fh.write(bytes([byte[0] ^ 0x01]))
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert differences(recorded, facts(db)) == ["ctime_ns", "first_page_sha256"]
    before = integrity_checks_run()
    make_manager().close()  # this bit harms nothing SQLite checks: the file is checked, and opens
    assert integrity_checks_run() == before + 1


def test_a_file_replaced_by_a_copy_is_checked(make_manager: Make, tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    os.replace(copy, db)  # a restore by hand: the same bytes, another inode
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        make_manager()
    assert integrity_checks_run() == before + 1
    assert "the file changed since SAIVerse closed it (" in caplog.text and "ino" in caplog.text


_WRITER = textwrap.dedent("""
    import sys, time
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings
    m = SAIVerseManager(load_settings())
    for i in range(200):
        m.memory.add("mina", "user", f"書いてから殺される {i} " * 20)
    print("written", flush=True)
    time.sleep(600)
""")


def _killed_after_writes(home: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _WRITER], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "SAIVERSE_HOME": str(home)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "written"
        assert not stamp_path(home / "saiverse.db").exists()  # used up by the process that writes
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def test_kill_9_after_writes_then_reopen_runs_the_check(make_manager: Make, saiverse_home: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    _killed_after_writes(saiverse_home)
    assert db.with_name(db.name + "-wal").stat().st_size > 0  # what the killed process wrote
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        again = make_manager()
    assert integrity_checks_run() == before + 1 and "no clean-close stamp" in caplog.text
    assert len(again.memory.list_messages("mina", limit=500)) >= 200  # nothing the killed process committed is lost


def test_a_stale_stamp_beside_a_non_empty_wal_is_not_trusted(make_manager: Make, saiverse_home: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    kept = stamp_path(db).read_bytes()
    _killed_after_writes(saiverse_home)
    stamp_path(db).write_bytes(kept)  # a stamp put back by hand (or by a backup tool) after the kill
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        make_manager()
    assert integrity_checks_run() == before + 1
    assert "its -wal holds" in caplog.text


def test_no_stamp_while_another_process_has_the_file_open(make_manager: Make, saiverse_home: Path) -> None:
    _closed_cleanly(make_manager)
    app = make_manager()  # the app, running
    db = app.settings.db_path
    before = integrity_checks_run()
    cmd = subprocess.run([sys.executable, str(ROOT / "main.py"), "world", "--json"], cwd=saiverse_home.parent,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "SAIVERSE_HOME": str(saiverse_home)})
    assert cmd.returncode == 0, cmd.stderr
    assert not stamp_path(db).exists()  # the command closed while the app still had the file open
    second = make_manager()  # a second world in this process: no stamp, so it is checked
    assert integrity_checks_run() == before + 1
    second.close()
    assert not stamp_path(db).exists()  # the app still has it
    app.close()
    assert stamp_path(db).is_file()  # the last one out stamps it
    make_manager()
    assert integrity_checks_run() == before + 1


def test_migrate_uses_the_stamp_up_before_it_writes(make_manager: Make) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    migrate(db)  # `python main.py migrate`, an import, a restore: whatever writes next, the stamp is gone
    assert not stamp_path(db).exists()


def test_damage_the_daily_backup_finds_is_never_stamped_over(make_manager: Make, tmp_path: Path) -> None:
    from saiverse.care._backup import BackupError

    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    _add_rows(db)
    app = make_manager()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, none only in the -wal
    conn.close()
    with db.open("r+b") as fh:  # rot in a page of the memory table, under the running app
        fh.seek(db.stat().st_size - 8192)
        fh.write(b"\xff" * 4096)
    with pytest.raises(BackupError, match="damaged"):
        app.backups.create("daily")
    app.close()
    assert not stamp_path(db).exists()  # closed cleanly, but with damage seen: the next start checks
    with pytest.raises(MigrationError, match="malformed|is damaged"):
        make_manager()


def test_a_connection_opened_after_close_removes_the_stamp(make_manager: Make) -> None:
    from sqlalchemy import text

    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    assert stamp_path(db).is_file()
    with m.db.session() as s:  # a thread that outlived close() writes once more through the engine
        s.execute(text("INSERT INTO world_setting (KEY, VALUE) VALUES ('late', 'yes')"))
    assert not stamp_path(db).exists()
    m.db.engine.dispose()
    before = integrity_checks_run()
    make_manager()
    assert integrity_checks_run() == before + 1


def test_the_sentinel_never_holds_back_a_checkpoint(manager: SAIVerseManager) -> None:
    db = manager.settings.db_path
    manager.memory.add("mina", "user", "チェックポイントの前に " * 200)
    conn = sqlite3.connect(db)
    try:
        busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.close()
    assert busy == 0  # the app's held connection has no read transaction open: the whole WAL went in


@pytest.mark.parametrize("kind", ["garbage", "list", "other_format", "huge", "fifo", "link", "wrong_types"])
def test_a_bad_stamp_means_the_full_check_and_nothing_else(make_manager: Make, tmp_path: Path, kind: str) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    stamp = stamp_path(db)
    good = json.loads(stamp.read_text())
    stamp.unlink()
    if kind == "garbage":
        stamp.write_bytes(b"\x00\xffnot json")
    elif kind == "list":
        stamp.write_text("[1, 2, 3]")
    elif kind == "other_format":
        stamp.write_text(json.dumps({**good, "format": 99}))
    elif kind == "huge":
        stamp.write_text(json.dumps({**good, "pad": "x" * 100_000}))
    elif kind == "fifo":
        os.mkfifo(stamp)  # reading it would wait for a writer forever
    elif kind == "link":
        decoy = tmp_path / "decoy.json"  # outside the home: never read through the link
        decoy.write_text(json.dumps(good))
        stamp.symlink_to(decoy)
    else:
        stamp.write_text(json.dumps({**good, "size": "big", "ino": None}))
    before = integrity_checks_run()
    make_manager()
    assert integrity_checks_run() == before + 1
    assert not os.path.lexists(stamp)
    if kind == "link":
        assert (tmp_path / "decoy.json").is_file()


def test_a_shm_left_beside_the_file_means_the_check(make_manager: Make, caplog: pytest.LogCaptureFixture) -> None:
    m = _closed_cleanly(make_manager)
    db = m.settings.db_path
    reader = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)  # another program, read-only: it cannot tidy up
    reader.execute("SELECT count(*) FROM saimemory").fetchall()
    reader.close()
    assert db.with_name(db.name + "-shm").exists()
    before = integrity_checks_run()
    with caplog.at_level(logging.INFO, logger="database.clean_close"):
        make_manager()
    assert integrity_checks_run() == before + 1 and "its -shm exists" in caplog.text


def _serve(home: Path) -> subprocess.Popen[str]:
    from tests.support.browser import free_port
    from tests.support.processes import wait_serving

    port = free_port()
    log = home.parent / f"app-{port}.log"
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--port", str(port)], cwd=home.parent,
                            stdout=log.open("w"), stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "SAIVERSE_HOME": str(home)})
    wait_serving(proc, f"http://127.0.0.1:{port}/", timeout=180, output=log.read_text)
    return proc


def test_the_app_stamps_at_sigterm_and_not_at_kill_9(make_manager: Make, saiverse_home: Path) -> None:
    m = make_manager()
    m.backups.create("daily")  # not due at the app's start: no backup reading the file when it stops
    m.close()
    db = m.settings.db_path
    app = _serve(saiverse_home)
    assert not stamp_path(db).exists()  # the running app used it up
    app.send_signal(signal.SIGTERM)  # a service manager's stop: as Ctrl+C, the world closes cleanly
    assert app.wait(60) == 0
    assert stamp_path(db).is_file()
    before = integrity_checks_run()
    make_manager().close()
    assert integrity_checks_run() == before
    app = _serve(saiverse_home)
    os.kill(app.pid, signal.SIGKILL)
    app.wait()
    assert not stamp_path(db).exists()
    make_manager()
    assert integrity_checks_run() == before + 1
