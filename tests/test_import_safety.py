"""import-saiverse never harms either home: the source stays byte-identical, a failure or a kill leaves
nothing half-imported, a home with a world is refused, a merge never overwrites, a damaged source
imports the rest and says what was wrong."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from database.migrate import migrate
from saiverse.importer import ImportRefused, import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.upstream_home import (
    T0,
    UpstreamHome,
    add_pending_wal,
    persona_line,
    tree_digest,
    user_line,
)
from tests.support.upstream_small import small_home

ROOT = Path(__file__).resolve().parents[1]
WORLD_TABLES = ("city", "building", "ai", "user", "item", "item_location", "saimemory", "saimemory_tag",
                "saimemory_thread", "building_history", "schedule", "persona_event_log", "memopedia_page",
                "memopedia_edit", "chronicle_entry", "playbooks")


def counts(home: Path) -> dict[str, int]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in WORLD_TABLES}
    finally:
        conn.close()


def media_files(home: Path) -> list[str]:
    """The files items and avatars use (staged temps, which start with a dot, are not among them)."""
    return sorted(str(p.relative_to(home)) for top in ("image", "documents", "icons") for p in (home / top).rglob("*")
                  if p.is_file() and not p.name.startswith("."))


def stray_files(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if ".import-" in p.name or p.name.startswith(".import"))


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    root = tmp_path / "upstream"
    return root, small_home(root)


def test_source_stays_byte_identical_even_with_pending_wal(upstream: tuple[Path, dict[str, Any]],
                                                            saiverse_home: Path) -> None:
    root, facts = upstream
    add_pending_wal(root / "personas" / "eris_city_a" / "memory.db",
                    [("eris_city_a:__persona__", "user", "まだWALにある猫の話", T0 + 99_999)])
    before = tree_digest(root)
    assert "personas/eris_city_a/memory.db-wal" in before and "personas/eris_city_a/memory.db-shm" in before
    report = import_saiverse(root, load_settings(saiverse_home))
    assert tree_digest(root) == before  # same files, same bytes: nothing written, nothing created
    assert report.per_owner["memory_messages"]["eris_city_a"] == facts["messages"]["eris_city_a"] + 1
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert [m["content"] for m in manager.memory.search("eris_city_a", "猫")] == ["まだWALにある猫の話"]
    finally:
        manager.close()
    assert stray_files(saiverse_home) == []  # the scratch copy is gone


def test_a_failure_mid_write_leaves_nothing(upstream: tuple[Path, dict[str, Any]], saiverse_home: Path) -> None:
    root, _ = upstream
    db = saiverse_home / "saiverse.db"
    saiverse_home.mkdir(parents=True)
    migrate(db)
    conn = sqlite3.connect(db)
    # Fails on a log line, after every persona's memory, the items and their files were written.
    conn.execute("CREATE TRIGGER boom BEFORE INSERT ON building_history WHEN NEW.CONTENT = '抹茶ラテよ。' "
                 "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
    conn.commit()
    conn.close()
    with pytest.raises(sqlite3.DatabaseError, match="injected failure"):
        import_saiverse(root, load_settings(saiverse_home))
    assert set(counts(saiverse_home).values()) == {0}
    assert media_files(saiverse_home) == [] and stray_files(saiverse_home) == []
    conn = sqlite3.connect(db)
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert "saimemory_gram_ai" in triggers  # the recall trigger the import suspends is back
    conn.execute("DROP TRIGGER boom")
    conn.commit()
    conn.close()
    report = import_saiverse(root, load_settings(saiverse_home))  # and the same import then goes through
    assert report.imported["building_log_lines"] == 11 and len(media_files(saiverse_home)) == 7


def test_a_killed_import_leaves_nothing_and_the_next_one_works(tmp_path: Path, saiverse_home: Path) -> None:
    root = tmp_path / "big"
    home = UpstreamHome(root)
    home.building("hall", "ホール")
    home.persona("p1", "ピー", "hall")
    home.item("絵", "picture", "building", "hall", data=os.urandom(200_000), ext="png")
    home.messages("p1", (("__persona__", "user", f"長い会話の{i}番目、猫と図書館の話。" * 3, T0 + i, None)
                         for i in range(60_000)))
    home.close()
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home)}
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "import-saiverse", str(root)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wal = saiverse_home / "saiverse.db-wal"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if wal.exists() and wal.stat().st_size > 4_000_000:  # well inside the import transaction
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the import finished before it could be killed; make the source bigger"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert set(counts(saiverse_home).values()) == {0}
    assert media_files(saiverse_home) == []  # the picture was only staged under a temp name
    report = import_saiverse(root, load_settings(saiverse_home))  # removes the dead import's temp files first
    assert report.imported["memory_messages"] == 60_000
    assert stray_files(saiverse_home) == [] and len(media_files(saiverse_home)) == 1


def test_a_home_with_a_world_is_refused_and_merge_twice_adds_nothing(upstream: tuple[Path, dict[str, Any]],
                                                                      saiverse_home: Path) -> None:
    root, _ = upstream
    import_saiverse(root, load_settings(saiverse_home))
    before, files = counts(saiverse_home), media_files(saiverse_home)
    with pytest.raises(ImportRefused, match="already holds a world .*--merge"):
        import_saiverse(root, load_settings(saiverse_home))
    again = import_saiverse(root, load_settings(saiverse_home), merge=True)
    assert counts(saiverse_home) == before and media_files(saiverse_home) == files
    assert sum(again.imported.values()) == 0
    assert again.existing["memory_messages"] == 50 and again.existing["building_log_lines"] == 11
    assert again.existing["personas"] == 3 and again.existing["items"] == 4 and again.existing["playbooks"] == 1


def test_merge_adds_what_upstream_said_since(upstream: tuple[Path, dict[str, Any]], saiverse_home: Path) -> None:
    root, _ = upstream
    import_saiverse(root, load_settings(saiverse_home))
    mem = sqlite3.connect(root / "personas" / "nova_city_a" / "memory.db")
    mem.execute("INSERT INTO messages VALUES ('new-1', 'nova_city_a:__persona__', 'user', '新しい質問', 'default', ?, "
                "NULL)", (T0 + 500_000,))
    mem.commit()
    mem.close()
    log = root / "cities" / "city_a" / "buildings" / "library_city_a" / "log.json"
    entries = json.loads(log.read_text(encoding="utf-8"))
    entries.append(user_line("library_city_a", 3, "また来たよ", "2026-11-30T10:00:00"))
    log.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    report = import_saiverse(root, load_settings(saiverse_home), merge=True)
    assert report.imported["memory_messages"] == 1 and report.imported["building_log_lines"] == 1
    assert report.existing["memory_messages"] == 50 and report.existing["building_log_lines"] == 11
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert manager.memory.search("nova_city_a", "質問")[0]["content"] == "新しい質問"
        assert manager.history("library_city_a")[-1].content == "また来たよ"
    finally:
        manager.close()


def test_merge_never_overwrites_colliding_ids(tmp_path: Path, saiverse_home: Path) -> None:
    SAIVerseManager(load_settings(saiverse_home)).close()  # the app's first start: the seed world (mina, library…)
    before = counts(saiverse_home)
    root = tmp_path / "upstream"
    home = UpstreamHome(root, city="town")
    home.building("library", "よその図書館")  # collides with the seed's library
    home.building("town_square", "広場")
    home.persona("mina", "別人のミナ", "town_square")  # collides with the seed's mina
    home.persona("kai", "カイ", "library")
    home.messages("mina", [("__persona__", "user", "別人の記憶", T0, None)])
    home.messages("kai", [("__persona__", "user", "カイの記憶", T0, None)])
    home.log("library", [user_line("library", 1, "よその図書館の会話", "2026-11-01T10:00:00")])
    home.log("town_square", [persona_line("town_square", 1, "kai", "広場にいるよ", "2026-11-01T10:00:00", "p")])
    home.close()
    report = import_saiverse(root, load_settings(saiverse_home), merge=True)
    skipped = {(s["kind"], s["id"]) for s in report.skipped}
    assert {("building", "library"), ("persona", "mina")} <= skipped
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert manager.world.persona("mina").name == "ミナ" and manager.world.persona("mina").building_id == "library"
        assert manager.world.building("library").name == "図書館"
        assert manager.world.persona("kai").building_id == "library"  # placed in the building of that id here
        assert [m["content"] for m in manager.memory_messages("mina")] == []  # nothing merged into the native mina
        assert [m["content"] for m in manager.memory_messages("kai")] == ["カイの記憶"]
        assert all(h.content != "よその図書館の会話" for h in manager.history("library"))
        assert manager.history("town_square")[0].speaker_name == "カイ"
        assert manager.world.user_building() == "library"  # the user of this home did not move
    finally:
        manager.close()
    after = counts(saiverse_home)
    assert (after["ai"], after["building"], after["city"]) == (before["ai"] + 1, before["building"] + 1, 2)


def test_damaged_source_imports_the_rest_and_reports_each_problem(upstream: tuple[Path, dict[str, Any]],
                                                                   saiverse_home: Path) -> None:
    root, facts = upstream
    (root / "personas" / "eris_city_a" / "memory.db").unlink()
    (root / "personas" / "nova_city_a" / "memory.db").write_bytes(b"this is not a database" * 100)
    log = root / "cities" / "city_a" / "buildings" / "library_city_a" / "log.json"
    text = log.read_text(encoding="utf-8")
    log.write_text(text[: text.index("静かだね") + 20], encoding="utf-8")  # cut inside the second entry
    sketch = next(p for p in facts["items"].values() if p is not None and p.suffix == ".png")
    sketch.unlink()
    facts["avatar"].unlink()
    report = import_saiverse(root, load_settings(saiverse_home))
    where = [p["where"] for p in report.problems]
    text = "\n".join(f"{p['where']}: {p['message']}" for p in report.problems)
    assert "memory of eris_city_a" in where and "memory.db" in text
    assert "memory of nova_city_a" in where and "cannot be read" not in text  # Japanese by default
    assert "log of library_city_a" in where and "1 行" in text
    assert "avatar of air_city_a" in where
    assert any(s["kind"] == "item" and sketch.name in s["reason"] for s in report.skipped)
    assert report.imported["personas"] == 3 and report.imported["items"] == 3
    assert report.per_owner["memory_messages"] == {"air_city_a": 6}
    assert report.per_owner["building_log_lines"]["library_city_a"] == 1
    assert report.per_owner["building_log_lines"]["cafe_city_a"] == 7
    assert counts(saiverse_home)["saimemory"] == 6  # nothing of the unreadable memory.db was left half-way


def test_refusals_change_nothing(upstream: tuple[Path, dict[str, Any]], tmp_path: Path, saiverse_home: Path) -> None:
    root, _ = upstream
    before = tree_digest(root)
    cases = [
        (tmp_path / "nowhere", "does not exist"),
        (tmp_path, "not an upstream SAIVerse data home"),
        (root / "personas" / "air_city_a" / "memory.db", "not an upstream SAIVerse database"),
    ]
    for path, message in cases:
        with pytest.raises(ImportRefused, match=message):
            import_saiverse(path, load_settings(saiverse_home))
    with pytest.raises(ImportRefused, match="never written to"):
        import_saiverse(root, load_settings(root / "inside"))
    with pytest.raises(ImportRefused, match="never written to"):
        import_saiverse(root, load_settings(root))
    SAIVerseManager(load_settings(saiverse_home)).close()
    with pytest.raises(ImportRefused, match="home of this app"):
        import_saiverse(saiverse_home, load_settings(tmp_path / "other"))
    assert tree_digest(root) == before
    assert not (tmp_path / "other").exists() and not (root / "inside").exists()


def test_the_saiverse_db_path_is_accepted(upstream: tuple[Path, dict[str, Any]], saiverse_home: Path) -> None:
    root, facts = upstream
    report = import_saiverse(root / "user_data" / "database" / "saiverse.db", load_settings(saiverse_home))
    assert report.source == str(root.resolve())
    assert report.per_owner["memory_messages"] == facts["messages"]
