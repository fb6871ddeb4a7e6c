"""Backup and restore: a consistent archive while pulses write, checksums, keys, modes, old schemas."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading
import zipfile
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from database.migrate import LATEST_VERSION, MigrationError, migrate
from saiverse.care import BackupStore, restore_backup
from saiverse.care._backup import MANIFEST, BackupError, count_rows, create_backup
from saiverse.care._restore import RestoreError, check_entry_name, verify_archive
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings

KEY = "AIzaTEST-never-in-an-archive-0123456789"


def _backup(m: SAIVerseManager, out: Path) -> Path:
    s = m.settings
    return create_backup(s.home, s.db_path, out, checkpoints_path=s.checkpoints_path).path


def _entries(archive: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(archive) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _rewrite(archive: Path, out: Path, change: Callable[[dict[str, bytes]], dict[str, bytes]]) -> Path:
    entries = change(_entries(archive))
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return out


def test_backup_while_pulses_write_restores_whole(manager: SAIVerseManager, tmp_path: Path) -> None:
    stop = threading.Event()
    said: list[int] = []

    def talk() -> None:  # the app keeps working: pulses write memory and history meanwhile
        n = 0
        while not stop.is_set():
            list(manager.handle_user_input("library", f"こんにちは {n}"))
            n += 1
            said.append(n)

    worker = threading.Thread(target=talk)
    worker.start()
    try:
        while len(said) < 3:
            threading.Event().wait(0.05)
        archive = _backup(manager, tmp_path / "during.zip")
        later = len(said)
        while len(said) <= later:  # and pulses go on after it: the backup never stopped the app
            threading.Event().wait(0.05)
    finally:
        stop.set()
        worker.join()
    result = restore_backup(archive, tmp_path / "restored")
    db = tmp_path / "restored" / "saiverse.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # Each pulse commits its memory and history together: a snapshot never holds half a pulse.
        users = conn.execute("SELECT count(*) FROM saimemory WHERE ROLE = 'user'").fetchone()[0]
        replies = conn.execute("SELECT count(*) FROM building_history WHERE SPEAKER_KIND = 'persona'").fetchone()[0]
    manifest = json.loads(_entries(archive)[MANIFEST])
    assert result.counts == manifest["counts"]
    assert manifest["counts"]["messages"] > 0 and users >= replies >= 1
    restored = SAIVerseManager(load_settings(tmp_path / "restored"))
    try:
        assert {p.persona_id for p in restored.personas()} == {"mina", "sora"}
        picture = next(i for i in restored.items.list_owned("building", "museum") if i.type == "picture")
        assert restored.items.file_of(picture).read_bytes() == manager.items.file_of(picture).read_bytes()
        assert restored.recall("mina", "こんにちは")  # the recall index came along
    finally:
        restored.close()


def test_archive_is_private_and_never_holds_a_key(manager: SAIVerseManager, tmp_path: Path) -> None:
    manager.admin.save_settings({"gemini_api_key": KEY, "default_model": "gemini-2.5-flash"})
    (manager.settings.home / ".env").write_text(f"SAIVERSE_OPENAI_API_KEY={KEY}\n", encoding="utf-8")
    archive = _backup(manager, tmp_path / "private.zip")
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    assert KEY.encode() not in archive.read_bytes()
    entries = _entries(archive)
    assert all(KEY.encode() not in data for data in entries.values())
    assert json.loads(entries["settings.json"]) == {"default_model": "gemini-2.5-flash"}
    assert not [n for n in entries if n.endswith(".env")]
    restore_backup(archive, tmp_path / "r")
    restored = tmp_path / "r" / "settings.json"
    assert stat.S_IMODE(restored.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "r").stat().st_mode) == 0o700


def test_manifest_lists_every_file_with_its_checksum(manager: SAIVerseManager, tmp_path: Path) -> None:
    archive = _backup(manager, tmp_path / "a.zip")
    entries = _entries(archive)
    manifest = json.loads(entries[MANIFEST])
    assert manifest["format"] == "saiverse-backup" and manifest["schema_version"] == LATEST_VERSION
    assert manifest["app_version"]
    names = {f["name"] for f in manifest["files"]}
    assert names == set(entries) - {MANIFEST}
    assert any(n.startswith("image/") and n.endswith(".summary.txt") for n in names)
    assert manifest["counts"]["personas"] == 2 and manifest["counts"]["files"] == 4
    assert verify_archive(archive)["counts"] == manifest["counts"]


@pytest.mark.parametrize("damage", ["flipped_byte", "extra_entry", "missing_entry", "zip_slip", "foreign",
                                    "not_a_zip", "newer_schema", "damaged_file"])
def test_damaged_or_foreign_archive_is_refused_and_nothing_is_written(
        manager: SAIVerseManager, tmp_path: Path, damage: str) -> None:
    good = _backup(manager, tmp_path / "good.zip")
    bad = tmp_path / "bad.zip"
    if damage == "not_a_zip":
        bad.write_bytes(b"this is no archive" * 10)
    elif damage == "flipped_byte":
        def flip(e: dict[str, bytes]) -> dict[str, bytes]:
            name = next(n for n in e if n.startswith("documents/") and not n.endswith(".summary.txt"))
            e[name] = e[name][:-1] + bytes([e[name][-1] ^ 1])
            return e
        _rewrite(good, bad, flip)
    elif damage == "damaged_file":  # a byte of the archive itself changed on disk (the zip's own CRC fails)
        raw = bytearray(good.read_bytes())
        with zipfile.ZipFile(good) as zf:
            info = zf.getinfo("saiverse.db")
        at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 100
        raw[at] ^= 0xFF
        bad.write_bytes(bytes(raw))
    elif damage == "extra_entry":
        _rewrite(good, bad, lambda e: {**e, "image/extra.png": b"x"})
    elif damage == "missing_entry":
        _rewrite(good, bad, lambda e: {n: d for n, d in e.items() if n != "checkpoints.db"})
    elif damage == "zip_slip":
        _rewrite(good, bad, lambda e: {**e, "../../outside.txt": b"escape"})
    elif damage == "foreign":
        _rewrite(good, bad, lambda e: {n: d for n, d in e.items() if n != MANIFEST})
    else:
        def newer(e: dict[str, bytes]) -> dict[str, bytes]:
            manifest = json.loads(e[MANIFEST])
            manifest["schema_version"] = LATEST_VERSION + 1
            return {**e, MANIFEST: json.dumps(manifest).encode()}
        _rewrite(good, bad, newer)
    target = tmp_path / "target"
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(RestoreError):
        restore_backup(bad, target)
    assert not target.exists() and not (tmp_path.parent / "outside.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no staging folder left behind either


@pytest.mark.parametrize("name", ["/etc/passwd", "../x", "image/../../x", "C:/x", "image\\x.png", ".env",
                                  "image/.hidden", "notes/x.txt", "image/"])
def test_entry_names_outside_a_backup_are_refused(name: str) -> None:
    with pytest.raises(RestoreError):
        check_entry_name(name)


def test_restore_only_into_an_empty_home(manager: SAIVerseManager, tmp_path: Path) -> None:
    archive = _backup(manager, tmp_path / "a.zip")
    with pytest.raises(RestoreError, match="not empty"):
        restore_backup(archive, manager.settings.home)
    (tmp_path / "empty").mkdir()
    assert restore_backup(archive, tmp_path / "empty").home == (tmp_path / "empty").resolve()


def test_an_older_schema_is_migrated_after_restore(tmp_path: Path) -> None:
    home = tmp_path / "old"
    home.mkdir()
    db = home / "saiverse.db"
    migrate(db, target=4)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', '旧市')")
        conn.execute("INSERT INTO building (BUILDINGID, CITYID, BUILDINGNAME) VALUES ('b', 'c', '古い塔')")
        conn.execute("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('p', 'user', '昔の話')")
    archive = create_backup(home, db, tmp_path / "old.zip").path
    assert json.loads(_entries(archive)[MANIFEST])["schema_version"] == 4
    result = restore_backup(archive, tmp_path / "new")
    assert (result.schema_before, result.schema_after) == (4, LATEST_VERSION)
    assert result.counts["buildings"] == 1 and result.counts["messages"] == 1
    assert "chronicle_entries" in result.counts  # a table the old schema lacked now exists


def test_opening_an_old_world_backs_it_up_before_migrating(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True)
    migrate(saiverse_home / "saiverse.db", target=5)
    m = SAIVerseManager(load_settings())
    try:
        taken = [e for e in m.backups.list() if e.kind == "migration"]
        assert len(taken) == 1 and taken[0].label == "v5"
        assert json.loads(_entries(taken[0].path)[MANIFEST])["schema_version"] == 5
        assert not list(saiverse_home.glob("saiverse.db.bak-*"))
    finally:
        m.close()


def test_a_failed_backup_stops_the_migration(tmp_path: Path) -> None:
    db = tmp_path / "saiverse.db"
    migrate(db, target=5)

    def broken(_path: Path, _version: int) -> Path:
        raise OSError("disk full")

    with pytest.raises(MigrationError, match="disk full"):
        migrate(db, before_change=broken)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT MAX(VERSION) FROM schema_version").fetchone()[0] == 5


def test_automatic_backups_rotate_per_kind_and_daily_is_due_once_a_day(manager: SAIVerseManager) -> None:
    s = manager.settings
    store = BackupStore(s.home, s.db_path, checkpoints_path=s.checkpoints_path, keep=lambda: 2)
    day = datetime(2030, 1, 1, 3, 0, 0)
    store.create("manual", now=day)
    for n in range(4):
        store.create("daily", now=day + timedelta(days=n))
    store.create("delete", "persona_x", now=day)
    kinds = [(e.kind, e.created.day) for e in store.list()]
    assert kinds.count(("manual", 1)) == 1 and ("delete", 1) in kinds
    assert sorted(d for k, d in kinds if k == "daily") == [3, 4]  # the newest 2 daily ones
    assert not store.daily_due(day + timedelta(days=3, hours=23))
    assert store.daily_due(day + timedelta(days=4, hours=1))
    assert store.daily_if_due(day + timedelta(days=3, hours=2)) is None


def test_ticker_takes_the_daily_backup_in_the_background(manager: SAIVerseManager) -> None:
    ticker = manager.ticker(interval=3600)
    thread = ticker.run_chores()
    assert thread is not None
    thread.join(timeout=60)
    assert [e.kind for e in manager.backups.list()] == ["daily"]
    ticker.run_chores().join(timeout=60)  # type: ignore[union-attr]
    assert len(manager.backups.list()) == 1  # not due again for a day


def test_a_damaged_database_is_never_archived(tmp_path: Path) -> None:
    home = tmp_path / "damaged"
    home.mkdir()
    db = home / "saiverse.db"
    migrate(db)
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('p', 'user', ?)",
                         [(f"言葉 {n} " * 40,) for n in range(400)])
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray(db.read_bytes())
    raw[-8192:-4096] = b"\xff" * 4096  # smash a page of the memory table
    db.write_bytes(bytes(raw))
    out = tmp_path / "out"
    with pytest.raises(BackupError, match="damaged"):
        create_backup(home, db, out / "x.zip")
    assert list(out.iterdir()) == []  # neither an archive nor a half-written temp file


def test_counts_of_an_open_database(manager: SAIVerseManager) -> None:
    with sqlite3.connect(manager.settings.db_path) as conn:
        counts = count_rows(conn)
    assert counts["buildings"] == 5 and counts["personas"] == 2 and counts["items"] == 4


def test_cli_backup_and_restore(manager: SAIVerseManager, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import main as cli_main

    out = tmp_path / "by-hand.zip"
    assert cli_main.main(["backup", "--out", str(out)]) == 0
    assert "バックアップを書きました" in capsys.readouterr().out and stat.S_IMODE(out.stat().st_mode) == 0o600
    assert cli_main.main(["backup", "--out", str(out)]) == 2  # never over an existing file
    assert "already exists" in capsys.readouterr().err
    target = tmp_path / "新しい家"
    (tmp_path / "junk.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    assert cli_main.main(["restore", str(tmp_path / "junk.zip"), "--home", str(target)]) == 2
    assert "not a SAIVerse backup" in capsys.readouterr().err and not target.exists()
    assert cli_main.main(["restore", str(out), "--home", str(target)]) == 0
    printed = capsys.readouterr().out
    assert f"python main.py --home {target}" in printed and (target / "saiverse.db").is_file()
