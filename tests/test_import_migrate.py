"""`migrate` and the app's start, pointed at upstream SAIVerse data: refused untouched, with the import command."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from database.migrate import MigrationError, UpstreamDatabaseError, migrate
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.upstream_home import tree_digest
from tests.support.upstream_small import small_home

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=home.parent,
                          timeout=120, check=False)


def test_migrate_refuses_an_upstream_database_untouched_every_time(tmp_path: Path, saiverse_home: Path) -> None:
    root = tmp_path / "upstream"
    small_home(root)
    db = root / "user_data" / "database" / "saiverse.db"
    before = tree_digest(root)
    expected = f"python main.py import-saiverse {root} --home {root.with_name('upstream-imported')}"
    for argv in ([str(ROOT / "main.py"), "migrate", "--db", str(db)], [str(ROOT / "database" / "migrate.py"),
                                                                       "--db", str(db)],
                 [str(ROOT / "main.py"), "migrate", "--db", str(db)]):
        done = run(*argv, home=saiverse_home)
        assert done.returncode == 2, done.stdout
        assert "upstream SAIVerse database" in done.stderr and "left untouched" in done.stderr
        assert expected in done.stderr and "Traceback" not in done.stderr
    assert tree_digest(root) == before  # no backup files, no -wal/-shm, not a byte changed


def test_the_app_start_refuses_an_upstream_database(tmp_path: Path, saiverse_home: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "upstream"
    small_home(root)
    db = root / "user_data" / "database" / "saiverse.db"
    before = tree_digest(root)
    monkeypatch.setenv("SAIVERSE_DATABASE_URL", f"sqlite:///{db}")
    with pytest.raises(UpstreamDatabaseError, match="import-saiverse") as err:
        SAIVerseManager(load_settings(saiverse_home))
    assert "upstream SAIVerse database" in str(err.value)
    assert tree_digest(root) == before


def test_the_app_will_not_start_a_new_database_inside_an_upstream_home(tmp_path: Path) -> None:
    root = tmp_path / "upstream"
    small_home(root)
    before = tree_digest(root)
    done = run(str(ROOT / "main.py"), "world", "--json", home=root)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"python main.py import-saiverse {root} --home {root}-imported" in done.stderr
    assert tree_digest(root) == before  # no saiverse.db of ours, no seed pictures in upstream's image/


def test_a_failed_migration_leaves_no_backup(tmp_path: Path) -> None:
    db = tmp_path / "odd.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE item (ITEM_ID TEXT PRIMARY KEY)")  # looks like an old SAIVerse file, has no `ai`
    conn.commit()
    conn.close()
    for _ in range(2):
        with pytest.raises(MigrationError, match="step 2"):
            migrate(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.db"]
