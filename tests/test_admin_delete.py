"""Deleting personas and buildings: one set of rules (saiverse/care/_admin.py) for the UI and the CLI."""

from __future__ import annotations

import json
import sqlite3
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import main as cli_main
from saiverse.care import AdminError
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.ltm_helpers import converse
from tests.support.models import ScriptedModel


def _snapshot_count(archive: Path, sql: str, *args: str) -> int:
    """Run a count on the database inside a backup archive."""
    with zipfile.ZipFile(archive) as zf, tempfile.TemporaryDirectory() as tmp:
        zf.extract("saiverse.db", tmp)
        with sqlite3.connect(Path(tmp) / "saiverse.db") as conn:
            return int(conn.execute(sql, args).fetchone()[0])


def _rows(m: SAIVerseManager, table: str, persona: str) -> int:
    with sqlite3.connect(m.settings.db_path) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table} WHERE PERSONA_ID = ?", (persona,)).fetchone()[0])


def test_persona_delete_keeps_its_memory_in_the_backup_and_leaves_its_things(manager: SAIVerseManager) -> None:
    converse(manager, 60)
    manager.build_chronicle("mina")
    manager.memopedia.create("mina", "ユーザー", summary="図書館によく来る人", category="people")
    manager.add_schedule("mina", {"kind": "interval", "interval_sec": 3600, "args": {"input": "本の整理"}})
    key = next(i for i in manager.items.list_owned("building", "library") if i.name == "古い鍵")
    manager.items.move(key.item_id, "persona", "mina")
    assert _rows(manager, "chronicle_entry", "mina") and _rows(manager, "memopedia_page", "mina")
    report = manager.admin.delete_persona("mina")
    assert report.backup is not None and report.backup.parent == manager.settings.backups_dir
    assert report.items_moved == 1 and report.moved_to == "library"
    assert manager.items.get(key.item_id).owner_id == "library"
    assert report.removed["saimemory"] == 60 and report.removed["schedule"] == 1
    for table in ("saimemory", "saimemory_tag", "chronicle_entry", "memopedia_page", "schedule"):
        assert _rows(manager, table, "mina") == 0, table
    assert [p.persona_id for p in manager.personas()] == ["sora"]
    assert manager.recall("sora", "星座") == []  # the recall index forgot her words too
    # Everything removed is in the backup taken just before.
    assert _snapshot_count(report.backup, "SELECT count(*) FROM saimemory WHERE PERSONA_ID = ?", "mina") == 60
    assert _snapshot_count(report.backup, "SELECT count(*) FROM chronicle_entry WHERE PERSONA_ID = ?", "mina") > 0
    assert _snapshot_count(report.backup, "SELECT count(*) FROM ai WHERE AIID = ?", "mina") == 1
    assert [e.kind for e in manager.backups.list()] == ["delete"]


def test_persona_delete_cancels_its_pulse_first(make_manager: Callable[..., SAIVerseManager]) -> None:
    manager = make_manager(ScriptedModel(follows_instructions=False, chunk_delay=0.05))
    events: list[dict] = []
    started = threading.Event()

    def talk() -> None:
        for ev in manager.handle_user_input("library", "長い話をしてください。" * 5, persona_id="mina"):
            events.append(ev)
            if ev["type"] == "speak_chunk":
                started.set()

    worker = threading.Thread(target=talk)
    worker.start()
    assert started.wait(20)
    manager.admin.delete_persona("mina")
    worker.join(20)
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "cancelled"
    assert _rows(manager, "saimemory", "mina") == 0  # nothing committed after the delete
    assert not [h for h in manager.history("library") if h.speaker_id == "mina"]


def test_persona_delete_refusals(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AdminError, match="'nobody'"):
        manager.admin.delete_persona("nobody")
    monkeypatch.setattr(manager.production, "live_runs", lambda: [("r" * 32, "sora", "atelier")])
    with pytest.raises(AdminError, match="ソラ.*制作中"):
        manager.admin.delete_persona("sora")
    assert {p.persona_id for p in manager.personas()} == {"mina", "sora"}
    assert manager.backups.list() == []  # a refusal takes no backup


def test_building_delete_refusals_name_who_is_there(manager: SAIVerseManager) -> None:
    with pytest.raises(AdminError, match="ミナ \\(mina\\) がいます"):
        manager.admin.delete_building("library")
    manager.move_user("museum")
    with pytest.raises(AdminError, match="あなたが今いる"):
        manager.admin.delete_building("museum")
    manager.move_user("user_room")
    with pytest.raises(AdminError, match="1 個のアイテム.*--move-to"):
        manager.admin.delete_building("museum")
    with pytest.raises(AdminError, match="'nowhere'"):
        manager.admin.delete_building("museum", move_to="nowhere")
    with pytest.raises(AdminError, match="別の建物"):
        manager.admin.delete_building("museum", move_to="museum")
    assert len(manager.buildings()) == 5 and manager.backups.list() == []


def test_building_delete_moves_items_and_forgets_its_history(manager: SAIVerseManager) -> None:
    manager.move_user("museum")
    list(manager.handle_user_input("museum", "誰かいますか"))
    manager.move_user("user_room")
    picture = manager.items.list_owned("building", "museum")[0]
    report = manager.admin.delete_building("museum", move_to="atelier")
    assert report.items_moved == 1 and report.moved_to == "atelier"
    assert manager.items.get(picture.item_id).owner_id == "atelier"
    assert report.removed["building_history"] >= 1 and manager.history("museum") == []
    assert "museum" not in {b.building_id for b in manager.buildings()}
    assert _snapshot_count(report.backup, "SELECT count(*) FROM building WHERE BUILDINGID = ?", "museum") == 1
    empty = manager.admin.create_building({"name": "空き家"})
    assert manager.admin.delete_building(empty.building_id).items_moved == 0


def test_cli_delete_commands(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    SAIVerseManager(load_settings()).close()
    assert cli_main.main(["building", "delete", "library", "--json"]) == 2
    assert "ミナ (mina) がいます" in capsys.readouterr().err
    assert cli_main.main(["persona", "delete", "mina", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deleted"] == "persona" and report["name"] == "ミナ" and Path(report["backup"]).is_file()
    assert cli_main.main(["building", "delete", "museum", "--move-to", "entrance"]) == 0
    out = capsys.readouterr().out
    assert "建物 美術館 (museum) を削除しました" in out and "アイテム 1 個を entrance に移しました" in out


def test_cli_delete_is_refused_while_the_app_has_the_home_open(manager: SAIVerseManager,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["persona", "delete", "sora"]) == 2
    assert "another SAIVerse process has this home open" in capsys.readouterr().err
    assert {p.persona_id for p in manager.personas()} == {"mina", "sora"}
