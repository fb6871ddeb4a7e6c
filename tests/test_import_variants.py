"""import-saiverse on the homes real users have, not only the tidy reference ones: each case takes an
upstream home (the reference homes in ../shared when present, and the homes tests/upstream_small.py and
tests/upstream_v03.py write, so it also runs on a checkout alone), gives it one rough edge a real home
plausibly has, and imports it with the real CLI. The import ends with exit 0 (and a summary naming what
it skipped and why) or a one-line refusal (exit 2) that left nothing behind; never a traceback; it
never reads a file through a path or link leading out of the upstream home; the source is unchanged."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import main as cli_main
from tests.compat import compat_path, compat_v03_path
from tests.upstream_home import tree_digest
from tests.upstream_small import small_home
from tests.upstream_v03 import MEMORY_SQL, small_v03_home

DECOY = b"DECOY-OUTSIDE-THE-HOME-7f3a"
"""The bytes of a file outside the upstream home: they must never reach the imported home."""


# --- the homes the variants start from ----------------------------------------------------------


def _copy_tree(src: Path, root: Path) -> None:
    import shutil

    shutil.copytree(src, root, symlinks=True)


def _source(kind: str, root: Path) -> None:
    if kind == "small":
        small_home(root)
    elif kind == "v03":
        small_v03_home(root)
    elif kind == "ref":
        _copy_tree(compat_path("saiverse-home"), root)
    else:
        _copy_tree(compat_v03_path("saiverse-home-v03"), root)


def _db(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / "user_data" / "database" / "saiverse.db")


def _first(root: Path, sql: str) -> Any:
    conn = _db(root)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def _persona(root: Path) -> str:
    return str(_first(root, "SELECT AIID FROM ai ORDER BY AIID"))


def _building_with_log(root: Path) -> str:
    return sorted(p.parent.name for p in (root / "cities").glob("*/buildings/*/log.json"))[0]


def _logs(root: Path, bid: str) -> list[Path]:
    """Every log.json of building `bid` (upstream keeps a legacy copy under buildings/ too)."""
    return [*root.glob(f"cities/*/buildings/{bid}/log.json"), *root.glob(f"buildings/{bid}/log.json")]


def _memory(root: Path, pid: str) -> sqlite3.Connection:
    return sqlite3.connect(root / "personas" / pid / "memory.db")


def _loosen(conn: sqlite3.Connection, table: str) -> None:
    """Rebuild `table` without NOT NULL, as older upstream versions (and hand edits) left it."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
    loose = sql.replace("NOT NULL", "").replace(f"CREATE TABLE {table}", 'CREATE TABLE "_loose"', 1)
    loose = loose.replace(f'CREATE TABLE "{table}"', 'CREATE TABLE "_loose"', 1)
    conn.execute(loose)
    conn.execute(f'INSERT INTO "_loose" SELECT * FROM "{table}"')
    conn.execute(f'DROP TABLE "{table}"')
    conn.execute(f'ALTER TABLE "_loose" RENAME TO "{table}"')


# --- the variants: each changes the home and says what the import must show -----------------------

Check = Callable[[dict[str, Any], Path, dict[str, Any]], None]


def _no_memory_db(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = _persona(root)
    for p in (root / "personas" / pid).glob("memory.db*"):
        p.unlink()


def _check_persona_kept(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["pid"] in _target(home, "SELECT AIID FROM ai")
    assert report["per_owner"].get("memory_messages", {}).get(facts["pid"], 0) == 0


def _zero_byte_memory_db(root: Path, facts: dict[str, Any]) -> None:
    _no_memory_db(root, facts)
    (root / "personas" / facts["pid"] / "memory.db").write_bytes(b"")


def _garbage_memory_db(root: Path, facts: dict[str, Any]) -> None:
    _no_memory_db(root, facts)
    (root / "personas" / facts["pid"] / "memory.db").write_bytes(b"not a database at all\n" * 50)


def _check_garbage_memory(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    _check_persona_kept(report, home, facts)
    assert any(facts["pid"] in p["where"] for p in report["problems"]), report["problems"]


def _memory_without_optional_tables(root: Path, facts: dict[str, Any]) -> None:
    for folder in (root / "personas").iterdir():
        conn = sqlite3.connect(folder / "memory.db")
        with conn:
            for table in ("memopedia_pages", "memopedia_page_states", "memopedia_page_edit_history", "arasuji_entries",
                          "arasuji_progress", "stelis_threads", "memory_notes", "working_memory"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.close()
    facts["messages"] = sum(_count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _check_messages_all(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["memory_messages"] == facts["messages"]
    assert report["imported"]["memopedia_pages"] == 0 and report["imported"]["chronicle_entries"] == 0


def _v03_without_track_tables(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        for table in ("track_open_note", "note_message", "note_page", "note", "track_local_log", "meta_judgment_log"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.close()


def _check_ok(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["personas"] >= 1 and report["imported"]["buildings"] >= 1


def _no_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        log.unlink()


def _check_building_kept(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["bid"] in _target(home, "SELECT BUILDINGID FROM building")


def _empty_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        log.write_text("[]", encoding="utf-8")


def _truncated_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        data = log.read_bytes()
        log.write_bytes(data[: len(data) - 7])  # a crash mid-write: the last line is cut


def _check_truncated(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    _check_building_kept(report, home, facts)
    assert any(facts["bid"] in p["where"] for p in report["problems"]), report["problems"]


def _bom_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        facts["lines"] = len(json.loads(log.read_text(encoding="utf-8")))
        log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())  # saved by a Windows editor


def _check_all_lines(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["per_owner"]["building_log_lines"][facts["bid"]] >= facts["lines"], report


def _non_utf8_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        facts["lines"] = len(lines)
        data = log.read_bytes()
        cut = data.rfind(b'"content": "') + len(b'"content": "') if b'"content": "' in data else None
        if cut is None:
            cut = data.rfind(b'": "') + 4
        log.write_bytes(data[:cut] + "古い".encode("cp932") + b"\xff" + data[cut:])


def _check_replaced(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    _check_all_lines(report, home, facts)
    assert any(facts["bid"] in p["where"] and "UTF-8" in p["message"] for p in report["problems"]), report["problems"]
    assert any("\ufffd" in (c or "") for c in _target(home, "SELECT CONTENT FROM building_history"))


def _nulls(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        for table in ("ai", "building", "item"):
            _loosen(conn, table)
        cols = {r[1] for r in conn.execute("PRAGMA table_info(building)")}
        conn.execute("UPDATE ai SET AVATAR_IMAGE = NULL, DESCRIPTION = NULL, SYSTEMPROMPT = NULL, EMOTION = NULL, "
                     "DEFAULT_MODEL = NULL, AUTO_COUNT = NULL")
        conn.execute("UPDATE building SET DESCRIPTION = NULL, SYSTEM_INSTRUCTION = NULL, ENTRY_PROMPT = NULL, "
                     "AUTO_PROMPT = NULL, IMAGE_PATH = NULL, EXTRA_PROMPT_FILES = NULL, AUTO_INTERVAL_SEC = NULL, "
                     "CAPACITY = NULL" + (", MAP_X = NULL, MAP_Y = NULL" if "MAP_X" in cols else ""))
        conn.execute("UPDATE item SET DESCRIPTION = NULL, STATE_JSON = NULL, CREATOR_ID = NULL, SOURCE_CONTEXT = NULL")
    facts["personas"] = [r[0] for r in conn.execute("SELECT AIID FROM ai")]
    conn.close()


def _check_all_personas(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert set(facts["personas"]) <= set(_target(home, "SELECT AIID FROM ai"))


UNUSUAL = {"b": "カフェ 2号店 ☕", "p": "ミナ 🌸 two words", "name": "とても長い名前" * 40}


def _unusual_names(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        bid = _building_with_log(root)
        conn.execute("CREATE TEMP TABLE b AS SELECT * FROM building WHERE BUILDINGID = ?", (bid,))
        conn.execute("UPDATE b SET BUILDINGID = ?, BUILDINGNAME = ?", (UNUSUAL["b"], UNUSUAL["name"]))
        conn.execute("INSERT INTO building SELECT * FROM b")
        pid = _persona(root)
        conn.execute("CREATE TEMP TABLE a AS SELECT * FROM ai WHERE AIID = ?", (pid,))
        conn.execute("UPDATE a SET AIID = ?, AINAME = ?, AVATAR_IMAGE = NULL, PRIVATE_ROOM_ID = NULL",
                     (UNUSUAL["p"], "👩‍🚀 " + UNUSUAL["name"]))
        conn.execute("INSERT INTO ai SELECT * FROM a")
        conn.execute("UPDATE ai SET AINAME = ? WHERE AIID = ?", ("名前に 空白 と 😀", pid))
    conn.close()
    folder = root / "cities"
    for src in _logs(root, bid):
        dest = src.parent.with_name(UNUSUAL["b"]) / "log.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
    assert folder.is_dir()
    (root / "personas" / UNUSUAL["p"]).mkdir()
    (root / "personas" / UNUSUAL["p"] / "memory.db").write_bytes((root / "personas" / pid / "memory.db").read_bytes())


def _check_unusual(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert UNUSUAL["b"] in _target(home, "SELECT BUILDINGID FROM building")
    assert UNUSUAL["p"] in _target(home, "SELECT AIID FROM ai")


def _item_outside(root: Path, facts: dict[str, Any]) -> None:
    decoy = root.parent / "decoy-outside" / "secret.png"
    decoy.parent.mkdir()
    decoy.write_bytes(DECOY)
    conn = _db(root)
    with conn:
        facts["item"] = conn.execute("SELECT ITEM_ID FROM item WHERE FILE_PATH IS NOT NULL ORDER BY ITEM_ID").fetchone()[0]
        conn.execute("UPDATE item SET FILE_PATH = ? WHERE ITEM_ID = ?", (str(decoy), facts["item"]))
    conn.close()


def _check_item_refused(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = [s for s in report["skipped"] if s["id"] == facts["item"]]
    assert said and "読んでいません" in said[0]["reason"], report["skipped"]  # not read, and it says so
    assert facts["item"] not in _target(home, "SELECT ITEM_ID FROM item")


def _item_symlink_out(root: Path, facts: dict[str, Any]) -> None:
    decoy = root.parent / "decoy-outside" / "secret.png"
    decoy.parent.mkdir()
    decoy.write_bytes(DECOY)
    conn = _db(root)
    facts["item"], rel = conn.execute("SELECT ITEM_ID, FILE_PATH FROM item WHERE FILE_PATH LIKE 'image/%' "
                                      "ORDER BY ITEM_ID").fetchone()
    conn.close()
    (root / rel).unlink()
    (root / rel).symlink_to(decoy)


def _duplicates(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        conn.execute("INSERT INTO persona_schedule SELECT NULL, PERSONA_ID, SCHEDULE_TYPE, META_PLAYBOOK, ENABLED, "
                     "DESCRIPTION, PRIORITY, DAYS_OF_WEEK, TIME_OF_DAY, SCHEDULED_DATETIME, COMPLETED, "
                     "INTERVAL_SECONDS, LAST_EXECUTED_AT, PLAYBOOK_PARAMS, CREATED_AT, UPDATED_AT FROM persona_schedule")
        conn.execute("INSERT INTO persona_event_log SELECT NULL, PERSONA_ID, CREATED_AT, CONTENT, STATUS, EVENT_TYPE, "
                     "PAYLOAD FROM persona_event_log")
        conn.execute("INSERT INTO building_occupancy_log SELECT NULL, CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP, "
                     "EXIT_TIMESTAMP FROM building_occupancy_log")
    conn.close()
    bid = _building_with_log(root)
    for log in _logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        log.write_text(json.dumps(lines + lines, ensure_ascii=False), encoding="utf-8")


def _future_columns(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        for table in ("ai", "building", "item", "city", "playbooks"):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN FUTURE_FIELD TEXT DEFAULT 'x'")
        conn.execute("CREATE TABLE persona_voice (AIID TEXT, VOICE TEXT)")
        conn.execute("INSERT INTO persona_voice VALUES ('a', 'b')")
    conn.close()
    for folder in (root / "personas").iterdir():
        mem = sqlite3.connect(folder / "memory.db")
        with mem:
            mem.execute("ALTER TABLE messages ADD COLUMN future_weight REAL")
            mem.execute("ALTER TABLE threads ADD COLUMN future_flag INTEGER")
            mem.execute("CREATE TABLE dream_log (id TEXT PRIMARY KEY, body TEXT)")
        mem.close()
    facts["messages"] = sum(_count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _check_messages_total(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["memory_messages"] == facts["messages"]


def _bad_playbook(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        facts["playbook"] = "user_flow_bad_json"
        row = conn.execute("SELECT * FROM playbooks ORDER BY id LIMIT 1").fetchone()
        names = [r[1] for r in conn.execute("PRAGMA table_info(playbooks)")]
        values = dict(zip(names, row, strict=True))
        values.update(id=None, name=facts["playbook"], nodes_json='[{"id": "a", "type": "say",', scope="public")
        conn.execute(f"INSERT INTO playbooks ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                     tuple(values.values()))
    conn.close()


def _check_playbook_skipped(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert any(s["id"] == facts["playbook"] and "nodes_json" in s["reason"] for s in report["skipped"]), report["skipped"]


BIG = "長" * 100_000


def _huge_message(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = _persona(root)
    mem = _memory(root, pid)
    with mem:
        mem.execute("INSERT INTO messages (id, thread_id, role, content, resource_id, created_at, metadata) "
                    "VALUES ('huge-1', ?, 'user', ?, ?, 1792800500, NULL)", (f"{pid}:__persona__", BIG, pid))
    mem.close()
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        lines.append({**lines[-1], "content": BIG})
        log.write_text(json.dumps(lines, ensure_ascii=False), encoding="utf-8")


def _check_huge(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert len(BIG) in [len(c or "") for c in _target(home, "SELECT CONTENT FROM saimemory")]


def _text_times(root: Path, facts: dict[str, Any]) -> None:
    for folder in (root / "personas").iterdir():
        mem = sqlite3.connect(folder / "memory.db")
        with mem:
            mem.execute("UPDATE messages SET created_at = datetime(created_at, 'unixepoch') WHERE rowid % 2 = 0")
            mem.execute("UPDATE messages SET created_at = '2026-11-20T10:00:00+09:00' WHERE rowid % 3 = 0")
        mem.close()
    conn = _db(root)
    with conn:
        conn.execute("UPDATE item SET CREATED_AT = 1792800000, UPDATED_AT = '1792800000.5'")
        conn.execute("UPDATE persona_event_log SET CREATED_AT = 1792800000")
    conn.close()
    facts["messages"] = sum(_count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _mixed_upgrade(root: Path, facts: dict[str, Any]) -> None:
    """v0.2's saiverse.db with a persona whose memory.db already has v0.3's columns (or the reverse)."""
    pid = _persona(root)
    mem = _memory(root, pid)
    have = {r[1] for r in mem.execute("PRAGMA table_info(messages)")}
    with mem:
        if "line_role" in have:
            mem.execute("DROP TABLE IF EXISTS memory_notes")
        else:
            mem.executescript(MEMORY_SQL)
            mem.execute("UPDATE messages SET line_role = 'main_line', origin_track_id = 'no-such-track'")
    mem.close()
    facts["messages"] = sum(_count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _check_times(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    _check_messages_total(report, home, facts)
    assert "2026-11-20 01:00:00.000000" in _target(home, "SELECT CREATED_AT FROM saimemory")  # +09:00 → UTC
    assert set(_target(home, "SELECT CREATED_AT FROM item")) == {"2026-10-24 00:00:00.000000"}  # epoch seconds


def _log_not_array(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        log.write_text('{"messages": []}', encoding="utf-8")


def _memory_null_fields(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = _persona(root)
    mem = _memory(root, pid)
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
    contents = _target(home, f"SELECT CONTENT FROM saimemory WHERE PERSONA_ID = '{facts['pid']}'")
    assert {"役割なし", "スレッドなし", "時刻が文字"} <= set(contents), contents


def _dangling(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        pid = _persona(root)
        conn.execute("UPDATE ai SET HOME_CITYID = 99, PRIVATE_ROOM_ID = 'gone_room' WHERE AIID = ?", (pid,))
        conn.execute("INSERT INTO building_occupancy_log (CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP) "
                     "VALUES (1, 'demolished_building', ?, '2026-11-24 10:00:00')", (pid,))
        conn.execute("UPDATE item_location SET OWNER_ID = 'deleted_persona', OWNER_KIND = 'persona' "
                     "WHERE ITEM_ID = (SELECT ITEM_ID FROM item_location ORDER BY ITEM_ID LIMIT 1)")
        conn.execute("UPDATE user SET CURRENT_BUILDINGID = 'demolished_building'")
    conn.close()


def _no_user(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        conn.execute("DELETE FROM user")
    conn.close()


def _odd_schedules(root: Path, facts: dict[str, Any]) -> None:
    conn = _db(root)
    with conn:
        conn.execute("UPDATE persona_schedule SET DAYS_OF_WEEK = 'mon,tue', TIME_OF_DAY = '9時', "
                     "PLAYBOOK_PARAMS = '{broken', INTERVAL_SECONDS = -5, SCHEDULED_DATETIME = 'someday'")
    conn.close()


def _check_schedules(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = {s["id"]: s["reason"] for s in report["skipped"] if s["kind"] == "schedule"}
    assert all(r for r in said.values()) and said, report["skipped"]  # each unreadable one named, with why
    for kind, interval, upcoming in zip(_target(home, "SELECT KIND FROM schedule"),
                                        _target(home, "SELECT INTERVAL_SEC FROM schedule"),
                                        _target(home, "SELECT NEXT_RUN_AT FROM schedule"), strict=True):
        assert kind != "oneshot" or upcoming is None or upcoming > "2026"  # a one-shot kept has a time
        assert kind != "interval" or interval >= 60  # never a schedule that fires at every tick


def _odd_log_times(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
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
    pid = facts["pid"] = _persona(root)
    db = root / "personas" / pid / "memory.db"
    data = db.read_bytes()
    db.write_bytes(data[: max(4096, len(data) // 2)])


def _check_memory_problem(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["pid"] in _target(home, "SELECT AIID FROM ai")
    assert any(facts["pid"] in p["where"] for p in report["problems"]), report["problems"]


def _persona_folder_links_out(root: Path, facts: dict[str, Any]) -> None:
    import shutil

    pid = facts["pid"] = _persona(root)
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
    pid = facts["pid"] = _persona(root)
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
    bid = facts["bid"] = _building_with_log(root)
    for log in _logs(root, bid):
        log.unlink()
        log.symlink_to(outside / "log.json")
    old = _logs(root, bid)[0].parent / "old_log"
    old.mkdir(exist_ok=True)
    (old / "20990101_000000.json").symlink_to(outside / "log.json")
    conn = _db(root)
    rel = conn.execute("SELECT FILE_PATH FROM item WHERE FILE_PATH LIKE 'image/%' ORDER BY ITEM_ID").fetchone()[0]
    conn.close()
    sidecar = root / (rel + ".summary.txt")
    sidecar.unlink(missing_ok=True)
    sidecar.symlink_to(outside / "summary.txt")


def _check_log_not_followed(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert DECOY.decode() not in _target(home, "SELECT CONTENT FROM building_history")
    assert any(facts["bid"] in p["where"] and "リンク" in p["message"] for p in report["problems"]), report["problems"]
    assert not any(DECOY in p.read_bytes() for p in home.rglob("*.summary.txt"))


def _check_not_followed(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert DECOY.decode() not in _target(home, "SELECT CONTENT FROM saimemory")
    assert not any(DECOY.decode() in (x or "") for x in _target(home, "SELECT EXTRA_JSON FROM ai"))
    assert facts["pid"] in _target(home, "SELECT AIID FROM ai")
    assert any(facts["pid"] in p["where"] for p in report["problems"]), report["problems"]


VARIANTS: dict[str, tuple[Callable[[Path, dict[str, Any]], None], Check]] = {
    "no-memory-db": (_no_memory_db, _check_persona_kept),
    "zero-byte-memory-db": (_zero_byte_memory_db, _check_persona_kept),
    "garbage-memory-db": (_garbage_memory_db, _check_garbage_memory),
    "memory-without-optional-tables": (_memory_without_optional_tables, _check_messages_all),
    "v03-tables-missing": (_v03_without_track_tables, _check_ok),
    "no-log-json": (_no_log, _check_building_kept),
    "empty-log-json": (_empty_log, _check_building_kept),
    "truncated-log-json": (_truncated_log, _check_truncated),
    "bom-log-json": (_bom_log, _check_all_lines),
    "non-utf8-log-json": (_non_utf8_log, _check_replaced),
    "nulls": (_nulls, _check_all_personas),
    "unusual-names": (_unusual_names, _check_unusual),
    "item-path-outside": (_item_outside, _check_item_refused),
    "item-symlink-outside": (_item_symlink_out, _check_item_refused),
    "duplicate-rows": (_duplicates, _check_ok),
    "future-columns-and-tables": (_future_columns, _check_messages_total),
    "playbook-bad-json": (_bad_playbook, _check_playbook_skipped),
    "huge-message": (_huge_message, _check_huge),
    "text-and-epoch-times": (_text_times, _check_times),
    "mixed-upgrade": (_mixed_upgrade, _check_messages_total),
    "log-json-not-array": (_log_not_array, _check_truncated),
    "memory-null-fields": (_memory_null_fields, _check_persona_messages),
    "dangling-references": (_dangling, _check_ok),
    "no-user-row": (_no_user, _check_ok),
    "odd-schedule-values": (_odd_schedules, _check_schedules),
    "odd-log-times": (_odd_log_times, _check_all_lines),
    "truncated-saiverse-db": (_truncated_main_db, _check_refused),
    "zero-byte-saiverse-db": (_zero_byte_main_db, _check_refused),
    "truncated-memory-db": (_truncated_memory_db, _check_memory_problem),
    "persona-folder-links-out": (_persona_folder_links_out, _check_not_followed),
    "memory-files-link-out": (_memory_files_link_out, _check_not_followed),
    "log-and-sidecar-link-out": (_log_and_sidecar_link_out, _check_log_not_followed),
}


# --- helpers on the imported home -------------------------------------------------------------------


def _count(db: Path, table: str) -> int:
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0
    finally:
        conn.close()


def _target(home: Path, sql: str) -> list[Any]:
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return [r[0] for r in conn.execute(sql)]
    finally:
        conn.close()


def _world_rows(home: Path) -> int:
    if not (home / "saiverse.db").exists():
        return 0
    return sum(len(_target(home, f"SELECT 1 FROM {t}")) for t in ("city", "building", "ai", "item", "saimemory"))


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("kind", ["small", "v03", "ref", "ref03"])
def test_variant_imports_or_refuses_cleanly(kind: str, variant: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    if variant == "v03-tables-missing" and kind in ("small", "ref"):
        pytest.skip("a v0.3 variant: the v0.2 homes have no track or note tables")
    root = tmp_path / "upstream"
    _source(kind, root)
    facts: dict[str, Any] = {}
    change, check = VARIANTS[variant]
    change(root, facts)
    before = tree_digest(root)
    home = tmp_path / "imported"
    capsys.readouterr()
    code = cli_main.main(["--home", str(home), "import-saiverse", str(root), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert tree_digest(root) == before  # the source is never written to
    if code == 2:  # a refusal: one line, and nothing half-imported
        assert err.startswith("error: ") and err.strip().count("\n") == 0, err
        assert _world_rows(home) == 0
        return
    assert code == 0, err
    report = json.loads(out)
    for path in home.rglob("*"):  # nothing read through a path or link out of the upstream home
        assert not path.is_symlink(), path
        if path.is_file() and path.stat().st_size == len(DECOY):
            assert path.read_bytes() != DECOY, path
    check(report, home, facts)
