"""Moving a city between the backends, on a real throwaway PostgreSQL (tests/support/pg.py).

A SQLite home goes to PostgreSQL (`move --to URL`) and back (`move --to sqlite`) with every table's
rows, its recall answers and its production checkpoints equal; a PostgreSQL city's backup is one
snapshot even while a writer commits meanwhile; any backup restores into either backend; and bad
input — a non-empty target, an unreachable server, a damaged archive — is one line, exit 2, with
nothing written.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

import main as cli_main
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.pg import Cluster

QUERIES = {"mina": ["星", "猫", "星の話", "本", "空と海", "記録"], "sora": ["絵", "猫"]}
"""Recall queries, one- and two-character Japanese terms among them (SQLite's gram index, PostgreSQL's)."""
UNREACHABLE = "postgresql+psycopg://saiverse@127.0.0.1:9/none"
"""Port 9 (discard): nothing listens there on the test machine."""


def _tables(db: Path) -> dict[str, int]:
    """Rows per world table of a SQLite file (its recall index and schema record aside)."""
    conn = sqlite3.connect(db)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names
                if not n.startswith(("sqlite_", "saimemory_fts", "saimemory_gram")) and n != "schema_version"}
    finally:
        conn.close()


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _recall(m: SAIVerseManager) -> dict[str, list[tuple[int, str]]]:
    return {f"{p}:{q}": [(r["id"], r["content"]) for r in m.memory.search(p, q)]
            for p, qs in QUERIES.items() for q in qs}


def _make_world(m: SAIVerseManager) -> str:
    """Lines, memories, a document and a finished picture book (with its checkpoints); the book's run id."""
    list(m.handle_user_input("library", "星の話をしよう"))
    list(m.handle_user_input("library", "猫の本を探しています"))
    m.memory.add("mina", "user", "空と海の記録")
    m.items.create_document("日記", "今日は晴れ。星がきれい。", owner_kind="building", owner_id="library")
    events = list(m.handle_user_input("atelier", "絵本を作って: 猫の冒険"))
    return next(e["run_id"] for e in events if e.get("run_id"))


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    code = cli_main.main([*argv, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], words: str) -> None:
    capsys.readouterr()
    assert cli_main.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def _pg_tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        return inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_sqlite_to_postgresql_and_back(pg_url: str, saiverse_home: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    m = SAIVerseManager(load_settings())
    try:
        run_id = _make_world(m)
        recall = _recall(m)
    finally:
        m.close()
    db = saiverse_home / "saiverse.db"
    tables = _tables(db)
    memory = _rows(db, "SELECT ID, PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT FROM saimemory ORDER BY ID")
    history = _rows(db, "SELECT * FROM building_history ORDER BY ID")
    items = _rows(db, "SELECT * FROM item ORDER BY ITEM_ID")
    assert all(recall.values()) and tables["production_run"] == 1

    there = _json(["move", "--to", pg_url], capsys)
    assert there["counts"] == {k: v for k, v in tables.items() if k in there["counts"]}
    assert set(there["counts"]) == set(tables)

    original = tmp_path / "original"
    original.mkdir()
    for name in ("saiverse.db", "checkpoints.db"):
        shutil.move(str(saiverse_home / name), str(original / name))
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    back = _json(["move", "--to", "sqlite"], capsys)
    assert back["counts"] == there["counts"]
    _refused(["move", "--to", "sqlite"], capsys, "already exists")  # never over a world file
    monkeypatch.delenv("SAIVERSE_DATABASE_URL")

    assert _tables(db) == tables
    assert _rows(db, "SELECT ID, PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT FROM saimemory "
                     "ORDER BY ID") == memory
    assert _rows(db, "SELECT * FROM building_history ORDER BY ID") == history
    assert _rows(db, "SELECT * FROM item ORDER BY ITEM_ID") == items
    assert not [p.name for p in saiverse_home.iterdir() if p.name.endswith(".tmp")]
    home_again = SAIVerseManager(load_settings())
    try:
        assert _recall(home_again) == recall  # SQLite's gram index was filled as the rows went in
        assert home_again.production.engine.summary(run_id).finished  # its checkpoints came back too
        new = home_again.memory.add("mina", "user", "戻った後の記録")
        assert new["id"] > memory[-1][0]
    finally:
        home_again.close()


def test_backup_of_a_postgresql_city_is_one_snapshot(pg_url: str, saiverse_home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A writer commits a history line and a memory together, again and again, while backups are
    taken (the UI's store and the CLI): each archive holds both halves of every commit or neither."""
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    m = SAIVerseManager(load_settings())
    engine = create_engine(pg_url)
    stop = threading.Event()
    written: list[int] = []

    def write() -> None:
        n = 0
        while not stop.is_set():
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO building_history (BUILDINGID, SPEAKER_KIND, SPEAKER_NAME, CONTENT) "
                                  "VALUES ('library', 'user', 'w', :c)"), {"c": f"w{n}"})
                conn.execute(text("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('mina', 'user', :c)"),
                             {"c": f"w{n}"})
            n += 1
            written.append(n)

    writer = threading.Thread(target=write)
    archives: list[Path] = []
    try:
        list(m.handle_user_input("library", "星の話をしよう"))
        writer.start()
        while len(written) < 20:
            threading.Event().wait(0.02)
        for _ in range(2):
            archives.append(m.backups.create("manual").path)
        out = tmp_path / "by-hand.zip"
        assert _json(["backup", "--out", str(out)], capsys)["counts"]["messages"] > 0
        archives.append(out)
        seen = len(written)
        while len(written) <= seen:  # the writer was never held up
            threading.Event().wait(0.02)
    finally:
        stop.set()
        if writer.is_alive():
            writer.join(60)
        engine.dispose()
        m.close()
    halves = []
    for archive in archives:
        with zipfile.ZipFile(archive) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            assert sorted(zf.namelist()) == sorted([*(f["name"] for f in manifest["files"]), "manifest.json"])
            (tmp_path / "x.db").write_bytes(zf.read("saiverse.db"))
        lines = _rows(tmp_path / "x.db", "SELECT CONTENT FROM building_history WHERE SPEAKER_NAME = 'w' ORDER BY ID")
        memories = _rows(tmp_path / "x.db", "SELECT CONTENT FROM saimemory WHERE CONTENT LIKE 'w%' ORDER BY ID")
        assert lines == memories and lines  # one moment of the city: no commit seen half
        assert manifest["counts"]["messages"] == _tables(tmp_path / "x.db")["saimemory"]
        assert any(f["name"].startswith("image/") for f in manifest["files"])  # the item files, as today
        halves.append(len(lines))
    assert halves == sorted(halves) and halves[-1] > halves[0]  # later backups saw later commits


def _second_db(cluster: Cluster) -> str:
    name = "t_" + uuid.uuid4().hex[:12]
    cluster.admin(f"CREATE DATABASE {name}")
    return cluster.url(name)


def test_restore_across_backends(pg_url: str, pg_cluster: Cluster, saiverse_home: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite → PostgreSQL → SQLite, and PostgreSQL → PostgreSQL, through backup archives."""
    m = SAIVerseManager(load_settings())
    try:
        run_id = _make_world(m)
        recall = _recall(m)
        documents = {i.name for i in m.items.list_owned("building", "library") if i.type == "document"}
    finally:
        m.close()
    sqlite_zip = tmp_path / "from-sqlite.zip"
    _json(["backup", "--out", str(sqlite_zip)], capsys)

    def check(home: Path) -> None:
        city = SAIVerseManager(load_settings(home))
        try:
            assert _recall(city) == recall
            found = [i for i in city.items.list_owned("building", "library") if i.type == "document"]
            assert {i.name for i in found} == documents
            assert all((home / i.file_path).is_file() for i in found if i.file_path)
            assert city.production.engine.summary(run_id).finished
        finally:
            city.close()

    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    pg_home = tmp_path / "pg-home"
    restored = _json(["restore", str(sqlite_zip), "--home", str(pg_home)], capsys)
    assert restored["counts"] == restored["manifest_counts"]
    assert not (pg_home / "saiverse.db").exists() and not [p for p in pg_home.iterdir() if p.name.startswith(".")]
    check(pg_home)
    pg_zip = tmp_path / "from-pg.zip"
    _json(["--home", str(pg_home), "backup", "--out", str(pg_zip)], capsys)

    other = _second_db(pg_cluster)
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", other)
    _json(["restore", str(pg_zip), "--home", str(tmp_path / "pg-home-2")], capsys)
    check(tmp_path / "pg-home-2")

    monkeypatch.delenv("SAIVERSE_DATABASE_URL")
    back = _json(["restore", str(pg_zip), "--home", str(tmp_path / "sqlite-home")], capsys)
    assert back["counts"] == restored["counts"]
    check(tmp_path / "sqlite-home")
    pg_cluster.admin(f"DROP DATABASE IF EXISTS {other.rsplit('/', 1)[1]} WITH (FORCE)")


def test_bad_input_is_one_line_and_writes_nothing(pg_url: str, saiverse_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    SAIVerseManager(load_settings()).close()
    good = tmp_path / "good.zip"
    _json(["backup", "--out", str(good)], capsys)
    corrupt = tmp_path / "corrupt.zip"
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0xFF
    corrupt.write_bytes(bytes(data))
    target = tmp_path / "target"

    lonely = tmp_path / "lonely"
    lonely.mkdir()
    none = tmp_path / "none.zip"

    _refused(["move", "--to", "sqlite"], capsys, "already in SQLite")
    _refused(["move", "--to", UNREACHABLE], capsys, "cannot reach")
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    _refused(["restore", str(corrupt), "--home", str(target)], capsys, "refused")
    assert not target.exists() and _pg_tables(pg_url) == []
    _refused(["--home", str(lonely), "backup", "--out", str(none)], capsys, "no SAIVerse world")
    _refused(["--home", str(target), "backup", "--out", str(none)], capsys, "there is no home")

    monkeypatch.setenv("SAIVERSE_DATABASE_URL", UNREACHABLE)
    _refused(["restore", str(good), "--home", str(target)], capsys, "cannot reach")
    _refused(["--home", str(lonely), "backup", "--out", str(none)], capsys, "cannot reach")
    _refused(["--home", str(lonely), "move", "--to", "sqlite"], capsys, "cannot reach")
    assert {p.name for p in lonely.iterdir()} <= {".locks"}  # no world file, no leftover
    assert not target.exists() and not none.exists() and _pg_tables(pg_url) == []

    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    _json(["restore", str(good), "--home", str(target)], capsys)
    _refused(["restore", str(good), "--home", str(tmp_path / "second")], capsys, "is not empty")
    assert not (tmp_path / "second").exists()
    monkeypatch.delenv("SAIVERSE_DATABASE_URL")
    (tmp_path / "sqlite-home").mkdir()
    _refused(["--home", str(tmp_path / "sqlite-home"), "move", "--to", pg_url], capsys, "no world to move")


def test_the_snapshot_is_one_repeatable_read_read_only_transaction(pg_url: str, saiverse_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What the backup reads through: a commit made after its first query is not seen by the next."""
    from database.engine import make_engine
    from saiverse.care._pgcopy import open_snapshot

    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    SAIVerseManager(load_settings()).close()
    engine = make_engine(pg_url, workers=1)
    other = create_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert open_snapshot(conn) > 0
            assert conn.exec_driver_sql("SHOW transaction_isolation").scalar() == "repeatable read"
            assert conn.exec_driver_sql("SHOW transaction_read_only").scalar() == "on"
            seen = conn.exec_driver_sql("SELECT count(*) FROM saimemory").scalar()
            with other.begin() as w:
                w.execute(text("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES ('mina', 'user', 'later')"))
            assert conn.exec_driver_sql("SELECT count(*) FROM saimemory").scalar() == seen
            conn.rollback()
        with engine.connect() as conn:  # the pool hands the connection back at the default level
            assert conn.exec_driver_sql("SHOW transaction_isolation").scalar() == "read committed"
    finally:
        engine.dispose()
        other.dispose()
