"""More rough upstream homes for tests/test_import_variants.py: times, logs, schedules, damaged databases,
and links leading out of the home (see tests/support/upstream_rough.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.upstream_rough import (
    DECOY,
    Change,
    Check,
    building_with_log,
    check_all_lines,
    check_messages_total,
    check_ok,
    check_truncated,
    count,
    db,
    logs,
    memory,
    persona,
    target,
)
from tests.support.upstream_v03 import MEMORY_SQL

BIG = "長" * 100_000


def _huge_message(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = persona(root)
    mem = memory(root, pid)
    with mem:
        mem.execute("INSERT INTO messages (id, thread_id, role, content, resource_id, created_at, metadata) "
                    "VALUES ('huge-1', ?, 'user', ?, ?, 1792800500, NULL)", (f"{pid}:__persona__", BIG, pid))
    mem.close()
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        lines.append({**lines[-1], "content": BIG})
        log.write_text(json.dumps(lines, ensure_ascii=False), encoding="utf-8")


def _check_huge(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert len(BIG) in [len(c or "") for c in target(home, "SELECT CONTENT FROM saimemory")]


def _text_times(root: Path, facts: dict[str, Any]) -> None:
    for folder in (root / "personas").iterdir():
        mem = sqlite3.connect(folder / "memory.db")
        with mem:
            mem.execute("UPDATE messages SET created_at = datetime(created_at, 'unixepoch') WHERE rowid % 2 = 0")
            mem.execute("UPDATE messages SET created_at = '2026-11-20T10:00:00+09:00' WHERE rowid % 3 = 0")
        mem.close()
    conn = db(root)
    with conn:
        conn.execute("UPDATE item SET CREATED_AT = 1792800000, UPDATED_AT = '1792800000.5'")
        conn.execute("UPDATE persona_event_log SET CREATED_AT = 1792800000")
    conn.close()
    facts["messages"] = sum(count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _mixed_upgrade(root: Path, facts: dict[str, Any]) -> None:
    """v0.2's saiverse.db with a persona whose memory.db already has v0.3's columns (or the reverse)."""
    pid = persona(root)
    mem = memory(root, pid)
    have = {r[1] for r in mem.execute("PRAGMA table_info(messages)")}
    with mem:
        if "line_role" in have:  # a v0.3 city whose persona's memory is still v0.2's
            mem.execute("DROP TABLE IF EXISTS memory_notes")
            for (index,) in mem.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' "
                                        "AND sql IS NOT NULL AND name != 'idx_messages_thread_created'").fetchall():
                mem.execute(f'DROP INDEX "{index}"')
            for column in ("origin_track_id", "line_role", "line_id", "scope", "paired_action_text", "pulse_id"):
                if column in have:
                    mem.execute(f"ALTER TABLE messages DROP COLUMN {column}")
        else:
            mem.executescript(MEMORY_SQL)
            mem.execute("UPDATE messages SET line_role = 'main_line', origin_track_id = 'no-such-track'")
    mem.close()
    facts["messages"] = sum(count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _check_times(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    check_messages_total(report, home, facts)
    assert "2026-11-20 01:00:00.000000" in target(home, "SELECT CREATED_AT FROM saimemory")  # +09:00 → UTC
    assert set(target(home, "SELECT CREATED_AT FROM item")) == {"2026-10-24 00:00:00.000000"}  # epoch seconds


def _log_not_array(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        log.write_text('{"messages": []}', encoding="utf-8")


def _memory_null_fields(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = persona(root)
    mem = memory(root, pid)
    with mem:
        thread = f"{pid}:__persona__"
        mem.executemany("INSERT INTO messages (id, thread_id, role, content, resource_id, created_at, metadata) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", [
                            ("n-1", thread, "user", None, pid, 1792800100, None),
                            ("n-2", thread, None, "役割なし", None, 1792800200, "{not json"),
                            ("n-3", None, "assistant", "スレッドなし", pid, None, '"just a string"'),
                            ("n-4", thread, "user", "時刻が文字", pid, "yesterday", "[]")])
    mem.close()


def _check_persona_messages(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    contents = target(home, f"SELECT CONTENT FROM saimemory WHERE PERSONA_ID = '{facts['pid']}'")
    assert {"役割なし", "スレッドなし", "時刻が文字"} <= set(contents), contents


def _dangling(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        pid = persona(root)
        conn.execute("UPDATE ai SET HOME_CITYID = 99, PRIVATE_ROOM_ID = 'gone_room' WHERE AIID = ?", (pid,))
        conn.execute("INSERT INTO building_occupancy_log (CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP) "
                     "VALUES (1, 'demolished_building', ?, '2026-11-24 10:00:00')", (pid,))
        conn.execute("UPDATE item_location SET OWNER_ID = 'deleted_persona', OWNER_KIND = 'persona' "
                     "WHERE ITEM_ID = (SELECT ITEM_ID FROM item_location ORDER BY ITEM_ID LIMIT 1)")
        conn.execute("UPDATE user SET CURRENT_BUILDINGID = 'demolished_building'")
    conn.close()


def _no_user(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        conn.execute("DELETE FROM user")
    conn.close()


def _odd_schedules(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        conn.execute("UPDATE persona_schedule SET DAYS_OF_WEEK = 'mon,tue', TIME_OF_DAY = '9時', "
                     "PLAYBOOK_PARAMS = '{broken', INTERVAL_SECONDS = -5, SCHEDULED_DATETIME = 'someday'")
    conn.close()


def _check_schedules(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = {s["id"]: s["reason"] for s in report["skipped"] if s["kind"] == "schedule"}
    assert all(r for r in said.values()) and said, report["skipped"]  # each unreadable one named, with why
    for kind, interval, upcoming in zip(target(home, "SELECT KIND FROM schedule"),
                                        target(home, "SELECT INTERVAL_SEC FROM schedule"),
                                        target(home, "SELECT NEXT_RUN_AT FROM schedule"), strict=True):
        assert kind != "oneshot" or upcoming is None or upcoming > "2026"  # a one-shot kept has a time
        assert kind != "interval" or interval >= 60  # never a schedule that fires at every tick


def _odd_log_times(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        base = {k: v for k, v in lines[-1].items() if k != "message_id"}
        lines += [{**base, "content": "epoch", "timestamp": 1792800000}, {**base, "content": "なし", "timestamp": None},
                  {**base, "content": "文字", "timestamp": "きのう"}, {**base, "content": "ミリ秒", "timestamp": 1792800000123},
                  {"role": "assistant", "content": ["a", "list"]}, "just a string", None]
        facts["lines"] = len(lines) - 2
        log.write_text(json.dumps(lines, ensure_ascii=False), encoding="utf-8")


def _truncated_main_db(root: Path, facts: dict[str, Any]) -> None:
    db = root / "user_data" / "database" / "saiverse.db"
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])  # copied while upstream was writing, or a disk that filled up


def _zero_byte_main_db(root: Path, facts: dict[str, Any]) -> None:
    (root / "user_data" / "database" / "saiverse.db").write_bytes(b"")


def _check_refused(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    raise AssertionError(f"a home without a readable saiverse.db was imported: {report['imported']}")


def _truncated_memory_db(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = persona(root)
    db = root / "personas" / pid / "memory.db"
    data = db.read_bytes()
    db.write_bytes(data[: max(4096, len(data) // 2)])


def _check_memory_problem(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["pid"] in target(home, "SELECT AIID FROM ai")
    assert any(facts["pid"] in p["where"] for p in report["problems"]), report["problems"]


def _persona_folder_links_out(root: Path, facts: dict[str, Any]) -> None:
    import shutil

    pid = facts["pid"] = persona(root)
    outside = root.parent / "decoy-outside" / pid
    outside.parent.mkdir()
    shutil.move(root / "personas" / pid, outside)
    mem = sqlite3.connect(outside / "memory.db")
    with mem:
        mem.execute("INSERT INTO messages (id, thread_id, role, content, resource_id, created_at, metadata) "
                    "VALUES ('decoy', ?, 'user', ?, ?, 1792800000, NULL)", (f"{pid}:__persona__", DECOY.decode(), pid))
    mem.close()
    (root / "personas" / pid).symlink_to(outside, target_is_directory=True)


def _memory_files_link_out(root: Path, facts: dict[str, Any]) -> None:
    """The folder is real; memory.db and active_state.json in it are links to files outside the home."""
    pid = facts["pid"] = persona(root)
    outside = root.parent / "decoy-outside"
    outside.mkdir()
    folder = root / "personas" / pid
    (outside / "memory.db").write_bytes((folder / "memory.db").read_bytes())
    mem = sqlite3.connect(outside / "memory.db")
    with mem:
        mem.execute("INSERT INTO messages (id, thread_id, role, content, resource_id, created_at, metadata) "
                    "VALUES ('decoy', ?, 'user', ?, ?, 1792800000, NULL)", (f"{pid}:__persona__", DECOY.decode(), pid))
    mem.close()
    (outside / "active_state.json").write_text(json.dumps({"decoy": DECOY.decode()}), encoding="utf-8")
    for name in ("memory.db", "active_state.json"):
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(outside / name)


def _log_and_sidecar_link_out(root: Path, facts: dict[str, Any]) -> None:
    outside = root.parent / "decoy-outside"
    outside.mkdir()
    line = {"role": "user", "content": DECOY.decode(), "timestamp": "2026-11-20T10:00:00"}
    (outside / "log.json").write_text(json.dumps([line]), encoding="utf-8")
    (outside / "summary.txt").write_bytes(DECOY)
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        log.unlink()
        log.symlink_to(outside / "log.json")
    old = logs(root, bid)[0].parent / "old_log"
    old.mkdir(exist_ok=True)
    (old / "20990101_000000.json").symlink_to(outside / "log.json")
    conn = db(root)
    rel = conn.execute("SELECT FILE_PATH FROM item WHERE FILE_PATH LIKE 'image/%' ORDER BY ITEM_ID").fetchone()[0]
    conn.close()
    sidecar = root / (rel + ".summary.txt")
    sidecar.unlink(missing_ok=True)
    sidecar.symlink_to(outside / "summary.txt")


def _check_log_not_followed(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert DECOY.decode() not in target(home, "SELECT CONTENT FROM building_history")
    assert any(facts["bid"] in p["where"] and "リンク" in p["message"] for p in report["problems"]), report["problems"]
    assert not any(DECOY in p.read_bytes() for p in home.rglob("*.summary.txt"))


def _check_not_followed(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert DECOY.decode() not in target(home, "SELECT CONTENT FROM saimemory")
    assert not any(DECOY.decode() in (x or "") for x in target(home, "SELECT EXTRA_JSON FROM ai"))
    assert facts["pid"] in target(home, "SELECT AIID FROM ai")
    assert any(facts["pid"] in p["where"] for p in report["problems"]), report["problems"]


def _windows_paths(root: Path, facts: dict[str, Any]) -> None:
    """A home first used on Windows: item and avatar paths with backslashes and a drive letter."""
    conn = db(root)
    with conn:
        facts["items"] = conn.execute("SELECT count(*) FROM item").fetchone()[0]
        conn.execute("UPDATE item SET FILE_PATH = 'C:\\Users\\ユーザー\\.saiverse\\' || replace(FILE_PATH, '/', '\\') "
                     "WHERE FILE_PATH IS NOT NULL AND FILE_PATH NOT LIKE '/%'")
        conn.execute("UPDATE item SET FILE_PATH = 'D:\\old\\' || substr(FILE_PATH, instr(FILE_PATH, 'image/')) "
                     "WHERE FILE_PATH LIKE '/%image/%'")
        conn.execute("UPDATE ai SET AVATAR_IMAGE = 'C:\\Users\\ユーザー\\.saiverse\\user_data\\icons\\' || "
                     "substr(AVATAR_IMAGE, instr(AVATAR_IMAGE, 'icons/') + 6) WHERE AVATAR_IMAGE LIKE '%icons/%'")
        facts["avatars"] = conn.execute("SELECT count(*) FROM ai WHERE AVATAR_IMAGE LIKE 'C:%'").fetchone()[0]
    conn.close()


def _check_windows(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["items"] == facts["items"], report["skipped"]
    assert not [s for s in report["skipped"] if s["kind"] == "item"], report["skipped"]
    assert report["imported"]["avatars"] == facts["avatars"]
    assert all(p is None or ("\\" not in p and not p.startswith(("C:", "D:", "/")))
               for p in target(home, "SELECT FILE_PATH FROM item"))


def _second_city(root: Path, facts: dict[str, Any]) -> None:
    """Upstream lets a user run a second city: its own buildings and a persona whose home it is."""
    conn = db(root)
    with conn:
        row = conn.execute("SELECT * FROM city ORDER BY CITYID LIMIT 1").fetchone()
        conn.execute(f"INSERT INTO city VALUES ({', '.join('?' * len(row))})",
                     (row[0], 2, "city_b", "二つ目の街", *row[4:5], row[5] + 10, row[6] + 10, *row[7:]))
        conn.execute("CREATE TEMP TABLE b AS SELECT * FROM building ORDER BY BUILDINGID LIMIT 1")
        conn.execute("UPDATE b SET CITYID = 2, BUILDINGID = 'plaza_city_b', BUILDINGNAME = '広場'")
        conn.execute("INSERT INTO building SELECT * FROM b")
        conn.execute("CREATE TEMP TABLE a AS SELECT * FROM ai ORDER BY AIID LIMIT 1")
        conn.execute("UPDATE a SET HOME_CITYID = 2, AIID = 'luna_city_b', AINAME = 'ルナ', AVATAR_IMAGE = NULL, "
                     "PRIVATE_ROOM_ID = NULL")
        conn.execute("INSERT INTO ai SELECT * FROM a")
        conn.execute("INSERT INTO building_occupancy_log (CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP) "
                     "VALUES (2, 'plaza_city_b', 'luna_city_b', '2026-11-24 10:00:00')")
    conn.close()
    folder = root / "cities" / "city_b" / "buildings" / "plaza_city_b"
    folder.mkdir(parents=True)
    line = {"role": "user", "content": "広場にて", "timestamp": "2026-11-24T10:00:00", "message_id": "plaza_city_b:1"}
    (folder / "log.json").write_text(json.dumps([line], ensure_ascii=False), encoding="utf-8")


def _check_second_city(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = json.dumps([*report["skipped"], *report["problems"]], ensure_ascii=False)
    assert "plaza_city_b" in target(home, "SELECT BUILDINGID FROM building") or "plaza_city_b" in said, said
    assert "luna_city_b" in target(home, "SELECT AIID FROM ai") or "luna_city_b" in said, said


def _traversal(root: Path, facts: dict[str, Any]) -> None:
    """Ids and paths with `..` (hand edits, or a tool that wrote the row): nothing outside is read."""
    outside = root.parent / "decoy-outside"
    (outside / "personas" / "x").mkdir(parents=True)
    (outside / "secret.png").write_bytes(DECOY)
    evil = "../decoy-outside/personas/x"
    pid = persona(root)
    (outside / "personas" / "x" / "memory.db").write_bytes((root / "personas" / pid / "memory.db").read_bytes())
    conn = db(root)
    with conn:
        facts["item"] = conn.execute("SELECT ITEM_ID FROM item WHERE FILE_PATH IS NOT NULL ORDER BY ITEM_ID").fetchone()[0]
        conn.execute("UPDATE item SET FILE_PATH = '../decoy-outside/secret.png' WHERE ITEM_ID = ?", (facts["item"],))
        conn.execute("CREATE TEMP TABLE a AS SELECT * FROM ai WHERE AIID = ?", (pid,))
        conn.execute("UPDATE a SET AIID = ?, AVATAR_IMAGE = '../decoy-outside/secret.png', PRIVATE_ROOM_ID = NULL",
                     (f"../../{evil}",))
        conn.execute("INSERT INTO ai SELECT * FROM a")
    conn.close()


def _check_traversal(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = [s for s in report["skipped"] if s["id"] == facts["item"]]
    assert said and "外" in said[0]["reason"] and "リンク" not in said[0]["reason"], report["skipped"]
    assert count(home / "saiverse.db", "saimemory") == sum(report["per_owner"]["memory_messages"].values())
    assert not list(home.rglob("*decoy*"))


VARIANTS: dict[str, tuple[Change, Check]] = {
    "dotdot-paths-and-ids": (_traversal, _check_traversal),
    "windows-paths": (_windows_paths, _check_windows),
    "second-city": (_second_city, _check_second_city),
    "huge-message": (_huge_message, _check_huge),
    "text-and-epoch-times": (_text_times, _check_times),
    "mixed-upgrade": (_mixed_upgrade, check_messages_total),
    "log-json-not-array": (_log_not_array, check_truncated),
    "memory-null-fields": (_memory_null_fields, _check_persona_messages),
    "dangling-references": (_dangling, check_ok),
    "no-user-row": (_no_user, check_ok),
    "odd-schedule-values": (_odd_schedules, _check_schedules),
    "odd-log-times": (_odd_log_times, check_all_lines),
    "truncated-saiverse-db": (_truncated_main_db, _check_refused),
    "zero-byte-saiverse-db": (_zero_byte_main_db, _check_refused),
    "truncated-memory-db": (_truncated_memory_db, _check_memory_problem),
    "persona-folder-links-out": (_persona_folder_links_out, _check_not_followed),
    "memory-files-link-out": (_memory_files_link_out, _check_not_followed),
    "log-and-sidecar-link-out": (_log_and_sidecar_link_out, _check_log_not_followed),
}
