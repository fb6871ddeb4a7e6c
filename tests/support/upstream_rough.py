"""Rough upstream homes for tests/test_import_variants.py: the helpers that change a copy of an upstream home,
and the variants of its databases (a persona's memory.db, NULLs, names, duplicates, newer columns, playbooks).

Each variant is `(change, check)`: `change(root, facts)` gives the home one rough edge a real home plausibly has,
`check(report, home, facts)` says what the import of it must show."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.compat import compat_path, compat_v03_path
from tests.support.upstream_small import small_home
from tests.support.upstream_v03 import small_v03_home

DECOY = b"DECOY-OUTSIDE-THE-HOME-7f3a"
"""The bytes of a file outside the upstream home: they must never reach the imported home."""


# --- the homes the variants start from ----------------------------------------------------------


def copy_tree(src: Path, root: Path) -> None:
    """A copy of a reference home to change (its links stay links)."""
    shutil.copytree(src, root, symlinks=True)


def source(kind: str, root: Path) -> None:
    """Write the upstream home `kind` at `root`: ours (small, v03) or a copy of a reference one (ref, ref03)."""
    if kind == "small":
        small_home(root)
    elif kind == "v03":
        small_v03_home(root)
    elif kind == "ref":
        copy_tree(compat_path("saiverse-home"), root)
    else:
        copy_tree(compat_v03_path("saiverse-home-v03"), root)


def db(root: Path) -> sqlite3.Connection:
    """The upstream home's saiverse.db, to change."""
    return sqlite3.connect(root / "user_data" / "database" / "saiverse.db")


def first(root: Path, sql: str) -> Any:
    """The first value `sql` reads from the upstream saiverse.db."""
    conn = db(root)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def persona(root: Path) -> str:
    """The first persona id of the upstream home."""
    return str(first(root, "SELECT AIID FROM ai ORDER BY AIID"))


def building_with_log(root: Path) -> str:
    """The first building that has a log.json."""
    return sorted(p.parent.name for p in (root / "cities").glob("*/buildings/*/log.json"))[0]


def logs(root: Path, bid: str) -> list[Path]:
    """Every log.json of building `bid` (upstream keeps a legacy copy under buildings/ too)."""
    return [*root.glob(f"cities/*/buildings/{bid}/log.json"), *root.glob(f"buildings/{bid}/log.json")]


def memory(root: Path, pid: str) -> sqlite3.Connection:
    """Persona `pid`'s memory.db, to change."""
    return sqlite3.connect(root / "personas" / pid / "memory.db")


def loosen(conn: sqlite3.Connection, table: str) -> None:
    """Rebuild `table` without NOT NULL, as older upstream versions (and hand edits) left it."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
    loose = sql.replace("NOT NULL", "").replace(f"CREATE TABLE {table}", 'CREATE TABLE "_loose"', 1)
    loose = loose.replace(f'CREATE TABLE "{table}"', 'CREATE TABLE "_loose"', 1)
    conn.execute(loose)
    conn.execute(f'INSERT INTO "_loose" SELECT * FROM "{table}"')
    conn.execute(f'DROP TABLE "{table}"')
    conn.execute(f'ALTER TABLE "_loose" RENAME TO "{table}"')


def count(path: Path, table: str) -> int:
    """Rows of `table` in the SQLite file `path` (0 when it cannot be read)."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0
    finally:
        conn.close()


def target(home: Path, sql: str) -> list[Any]:
    """The first column of `sql` on the imported home's saiverse.db."""
    conn = sqlite3.connect(home / "saiverse.db")
    try:
        return [r[0] for r in conn.execute(sql)]
    finally:
        conn.close()



# --- the variants: each changes the home and says what the import must show -----------------------

Check = Callable[[dict[str, Any], Path, dict[str, Any]], None]


def _no_memory_db(root: Path, facts: dict[str, Any]) -> None:
    pid = facts["pid"] = persona(root)
    for p in (root / "personas" / pid).glob("memory.db*"):
        p.unlink()


def _check_persona_kept(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["pid"] in target(home, "SELECT AIID FROM ai")
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
    facts["messages"] = sum(count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def _check_messages_all(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["memory_messages"] == facts["messages"]
    assert report["imported"]["memopedia_pages"] == 0 and report["imported"]["chronicle_entries"] == 0


def _v03_without_track_tables(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        for table in ("track_open_note", "note_message", "note_page", "note", "track_local_log", "meta_judgment_log"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.close()


def check_ok(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["personas"] >= 1 and report["imported"]["buildings"] >= 1


def _no_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        log.unlink()


def _check_building_kept(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert facts["bid"] in target(home, "SELECT BUILDINGID FROM building")


def _empty_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        log.write_text("[]", encoding="utf-8")


def _truncated_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        data = log.read_bytes()
        log.write_bytes(data[: len(data) - 7])  # a crash mid-write: the last line is cut


def check_truncated(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    _check_building_kept(report, home, facts)
    assert any(facts["bid"] in p["where"] for p in report["problems"]), report["problems"]


def _bom_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        facts["lines"] = len(json.loads(log.read_text(encoding="utf-8")))
        log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())  # saved by a Windows editor


def check_all_lines(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["per_owner"]["building_log_lines"][facts["bid"]] >= facts["lines"], report


def _non_utf8_log(root: Path, facts: dict[str, Any]) -> None:
    bid = facts["bid"] = building_with_log(root)
    for log in logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        facts["lines"] = len(lines)
        data = log.read_bytes()
        cut = data.rfind(b'"content": "') + len(b'"content": "') if b'"content": "' in data else None
        if cut is None:
            cut = data.rfind(b'": "') + 4
        log.write_bytes(data[:cut] + "古い".encode("cp932") + b"\xff" + data[cut:])


def _check_replaced(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    check_all_lines(report, home, facts)
    assert any(facts["bid"] in p["where"] and "UTF-8" in p["message"] for p in report["problems"]), report["problems"]
    assert any("\ufffd" in (c or "") for c in target(home, "SELECT CONTENT FROM building_history"))


def _nulls(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        for table in ("ai", "building", "item"):
            loosen(conn, table)
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
    assert set(facts["personas"]) <= set(target(home, "SELECT AIID FROM ai"))


UNUSUAL = {"b": "カフェ 2号店 ☕", "p": "ミナ 🌸 two words", "name": "とても長い名前" * 40}


def _unusual_names(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        bid = building_with_log(root)
        conn.execute("CREATE TEMP TABLE b AS SELECT * FROM building WHERE BUILDINGID = ?", (bid,))
        conn.execute("UPDATE b SET BUILDINGID = ?, BUILDINGNAME = ?", (UNUSUAL["b"], UNUSUAL["name"]))
        conn.execute("INSERT INTO building SELECT * FROM b")
        pid = persona(root)
        conn.execute("CREATE TEMP TABLE a AS SELECT * FROM ai WHERE AIID = ?", (pid,))
        conn.execute("UPDATE a SET AIID = ?, AINAME = ?, AVATAR_IMAGE = NULL, PRIVATE_ROOM_ID = NULL",
                     (UNUSUAL["p"], "👩‍🚀 " + UNUSUAL["name"]))
        conn.execute("INSERT INTO ai SELECT * FROM a")
        conn.execute("UPDATE ai SET AINAME = ? WHERE AIID = ?", ("名前に 空白 と 😀", pid))
    conn.close()
    folder = root / "cities"
    for src in logs(root, bid):
        dest = src.parent.with_name(UNUSUAL["b"]) / "log.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
    assert folder.is_dir()
    (root / "personas" / UNUSUAL["p"]).mkdir()
    (root / "personas" / UNUSUAL["p"] / "memory.db").write_bytes((root / "personas" / pid / "memory.db").read_bytes())


def _check_unusual(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert UNUSUAL["b"] in target(home, "SELECT BUILDINGID FROM building")
    assert UNUSUAL["p"] in target(home, "SELECT AIID FROM ai")


def _item_outside(root: Path, facts: dict[str, Any]) -> None:
    decoy = root.parent / "decoy-outside" / "secret.png"
    decoy.parent.mkdir()
    decoy.write_bytes(DECOY)
    conn = db(root)
    with conn:
        facts["item"] = conn.execute("SELECT ITEM_ID FROM item WHERE FILE_PATH IS NOT NULL ORDER BY ITEM_ID").fetchone()[0]
        conn.execute("UPDATE item SET FILE_PATH = ? WHERE ITEM_ID = ?", (str(decoy), facts["item"]))
    conn.close()


def _check_item_refused(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    said = [s for s in report["skipped"] if s["id"] == facts["item"]]
    assert said and "読んでいません" in said[0]["reason"], report["skipped"]  # not read, and it says so
    assert facts["item"] not in target(home, "SELECT ITEM_ID FROM item")


def _item_symlink_out(root: Path, facts: dict[str, Any]) -> None:
    decoy = root.parent / "decoy-outside" / "secret.png"
    decoy.parent.mkdir()
    decoy.write_bytes(DECOY)
    conn = db(root)
    facts["item"], rel = conn.execute("SELECT ITEM_ID, FILE_PATH FROM item WHERE FILE_PATH LIKE 'image/%' "
                                      "ORDER BY ITEM_ID").fetchone()
    conn.close()
    (root / rel).unlink()
    (root / rel).symlink_to(decoy)


def _duplicates(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
    with conn:
        conn.execute("INSERT INTO persona_schedule SELECT NULL, PERSONA_ID, SCHEDULE_TYPE, META_PLAYBOOK, ENABLED, "
                     "DESCRIPTION, PRIORITY, DAYS_OF_WEEK, TIME_OF_DAY, SCHEDULED_DATETIME, COMPLETED, "
                     "INTERVAL_SECONDS, LAST_EXECUTED_AT, PLAYBOOK_PARAMS, CREATED_AT, UPDATED_AT FROM persona_schedule")
        conn.execute("INSERT INTO persona_event_log SELECT NULL, PERSONA_ID, CREATED_AT, CONTENT, STATUS, EVENT_TYPE, "
                     "PAYLOAD FROM persona_event_log")
        conn.execute("INSERT INTO building_occupancy_log SELECT NULL, CITYID, BUILDINGID, AIID, ENTRY_TIMESTAMP, "
                     "EXIT_TIMESTAMP FROM building_occupancy_log")
    conn.close()
    bid = building_with_log(root)
    for log in logs(root, bid):
        lines = json.loads(log.read_text(encoding="utf-8"))
        log.write_text(json.dumps(lines + lines, ensure_ascii=False), encoding="utf-8")


def _future_columns(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
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
    facts["messages"] = sum(count(f / "memory.db", "messages") for f in (root / "personas").iterdir())


def check_messages_total(report: dict[str, Any], home: Path, facts: dict[str, Any]) -> None:
    assert report["imported"]["memory_messages"] == facts["messages"]


def _bad_playbook(root: Path, facts: dict[str, Any]) -> None:
    conn = db(root)
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


Change = Callable[[Path, dict[str, Any]], None]

VARIANTS: dict[str, tuple[Change, Check]] = {
    "no-memory-db": (_no_memory_db, _check_persona_kept),
    "zero-byte-memory-db": (_zero_byte_memory_db, _check_persona_kept),
    "garbage-memory-db": (_garbage_memory_db, _check_garbage_memory),
    "memory-without-optional-tables": (_memory_without_optional_tables, _check_messages_all),
    "v03-tables-missing": (_v03_without_track_tables, check_ok),
    "no-log-json": (_no_log, _check_building_kept),
    "empty-log-json": (_empty_log, _check_building_kept),
    "truncated-log-json": (_truncated_log, check_truncated),
    "bom-log-json": (_bom_log, check_all_lines),
    "non-utf8-log-json": (_non_utf8_log, _check_replaced),
    "nulls": (_nulls, _check_all_personas),
    "unusual-names": (_unusual_names, _check_unusual),
    "item-path-outside": (_item_outside, _check_item_refused),
    "item-symlink-outside": (_item_symlink_out, _check_item_refused),
    "duplicate-rows": (_duplicates, check_ok),
    "future-columns-and-tables": (_future_columns, check_messages_total),
    "playbook-bad-json": (_bad_playbook, _check_playbook_skipped),
}
