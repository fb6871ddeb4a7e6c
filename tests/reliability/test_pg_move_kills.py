"""kill -9 at chosen points of a PostgreSQL city's backup, restore and move back (tests/support/killat.py).

On a real throwaway cluster (tests/support/pg.py). A restore into PostgreSQL killed after its files became the
home but before its rows committed leaves an empty database and a marked home: the app refuses to
open it and the next restore clears it and succeeds. Killed just after the commit, the app finds the
world and removes the mark. A move back killed after its copy leaves no world file, and the next
move succeeds and removes the leftovers; a backup killed after its snapshot leaves no archive; a
move into PostgreSQL killed before its commit leaves the database empty, so it can run again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

import main as cli_main
from saiverse.care import UnfinishedRestore
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.pg import Cluster

KILLAT = Path(__file__).parents[1] / "support" / "killat.py"


def _killed(when: str, hook: str, *argv: str) -> None:
    proc = subprocess.run([sys.executable, str(KILLAT), when, hook, "--", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ})
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr)


def _ok(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    code = cli_main.main([*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _world_tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        return sorted(t for t in inspect(engine).get_table_names() if not t.startswith("checkpoint"))
    finally:
        engine.dispose()


@pytest.fixture
def archive(saiverse_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    m = SAIVerseManager(load_settings())
    try:
        list(m.handle_user_input("library", "星の話をしよう"))
    finally:
        m.close()
    out = tmp_path / "city.zip"
    _ok(["backup", "--out", str(out)], capsys)
    return out


def test_restore_into_postgresql_killed_before_and_after_its_commit(
        archive: Path, pg_url: str, pg_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    home = tmp_path / "restored"
    _killed("before", "saiverse.care._pgcopy:copy_sqlite_into_pg", "restore", str(archive), "--home", str(home))
    assert _world_tables(pg_url) == []  # the schema was made in the transaction the kill rolled back
    assert [p.name for p in home.iterdir() if p.name.startswith(".restore-pending-")]
    with pytest.raises(UnfinishedRestore, match="run `python main.py restore"):
        SAIVerseManager(load_settings(home))
    assert _world_tables(pg_url) == []  # the app seeded no city among the restored files
    monkeypatch.delenv("SAIVERSE_DATABASE_URL")
    with pytest.raises(UnfinishedRestore, match="SAIVERSE_DATABASE_URL"):
        SAIVerseManager(load_settings(home))  # nor a SQLite one
    assert not (home / "saiverse.db").exists()
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    restored = _ok(["restore", str(archive), "--home", str(home)], capsys)
    assert restored["counts"] == restored["manifest_counts"]
    assert not [p for p in home.iterdir() if p.name.startswith(".restore-pending-")]
    assert not [p for p in tmp_path.iterdir() if ".restore-" in p.name]  # no staging left beside it

    again = tmp_path / "again"
    second = pg_cluster.url("t_" + uuid.uuid4().hex[:12])
    pg_cluster.admin(f"CREATE DATABASE {second.rsplit('/', 1)[1]}")
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", second)
    try:
        _killed("after", "sqlalchemy.engine.base:Connection.commit", "restore", str(archive), "--home", str(again))
        assert _world_tables(second)  # committed: the world is there
        assert [p.name for p in again.iterdir() if p.name.startswith(".restore-pending-")]
        city = SAIVerseManager(load_settings(again))  # the app settles the mark: the restore had finished
        try:
            assert {p.persona_id for p in city.world.personas()} == {"mina", "sora"}
            assert city.history("library")[-1].content
        finally:
            city.close()
        assert not [p for p in again.iterdir() if p.name.startswith(".restore-pending-")]
    finally:
        pg_cluster.admin(f"DROP DATABASE IF EXISTS {second.rsplit('/', 1)[1]} WITH (FORCE)")


def test_move_back_and_backup_killed_leave_no_world_file_nor_archive(
        saiverse_home: Path, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", pg_url)
    m = SAIVerseManager(load_settings())
    try:
        list(m.handle_user_input("library", "猫の本を探しています"))
        list(m.handle_user_input("atelier", "絵本を作って: 猫の冒険"))  # checkpoints in PostgresSaver's tables
    finally:
        m.close()
    out = tmp_path / "pg.zip"
    _killed("after", "saiverse.care._pgcopy:copy_pg_into_sqlite", "backup", "--out", str(out))
    assert not out.exists()
    _killed("before", "saiverse.care._pgcheckpoints:_copy", "backup", "--out", str(out))  # mid checkpoints
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".backup-")]
    assert _ok(["backup", "--out", str(out)], capsys)["counts"]["production_runs"] == 1
    with zipfile.ZipFile(out) as zf:
        assert "checkpoints.db" in zf.namelist()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # the next run tidied

    _killed("after", "saiverse.care._move_back:snapshot_pg", "move", "--to", "sqlite")
    assert not (saiverse_home / "saiverse.db").exists()
    assert [p.name for p in saiverse_home.iterdir() if p.name.endswith(".tmp")]
    moved = _ok(["move", "--to", "sqlite"], capsys)
    assert moved["counts"]["saimemory"] > 0
    assert not [p.name for p in saiverse_home.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.delenv("SAIVERSE_DATABASE_URL")
    home = SAIVerseManager(load_settings())
    try:
        assert [r["content"] for r in home.memory.search("mina", "猫の本")] == ["猫の本を探しています"]
    finally:
        home.close()


def test_move_into_postgresql_killed_before_its_commit_leaves_it_empty(
        saiverse_home: Path, pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    m = SAIVerseManager(load_settings())
    try:
        list(m.handle_user_input("library", "星の話をしよう"))
    finally:
        m.close()
    _killed("before", "saiverse.care._pgcopy:copy_sqlite_into_pg", "move", "--to", pg_url)
    assert _world_tables(pg_url) == []  # schema and rows were one transaction: none of it stayed
    moved = _ok(["move", "--to", pg_url], capsys)  # so the move simply runs again
    assert moved["counts"]["saimemory"] >= 2 and _world_tables(pg_url)
