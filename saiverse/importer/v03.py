"""What upstream v0.3 adds to a home: activity states, map positions, item slots, tracks, notes and judgments.

Tracks (`action_track`, `track_local_log`), notes (`note`, `note_page`, `note_message`,
`track_open_note`) and `meta_judgment_log` come over row for row with their links (a link whose
track, note or persona did not come over is reported, never kept dangling). Columns this importer
does not know (a later v0.3.x) are kept in the track's EXTRA_JSON and named in the summary. The v0.3
tables it leaves out are named in the summary with why (`left_out`).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from typing import Any

from saiverse.importer.context import Context, rows
from saiverse.importer.convert import dumps, naive_text
from saiverse.importer.report import Text
from saiverse.importer.source import has_table, table_columns
from saiverse.world import from_interaction_mode, to_interaction_mode


def persona_activity(ctx: Context, persona_id: str, row: dict[str, Any]) -> tuple[str, str]:
    """(INTERACTION_MODE here, ACTIVITY_STATE) of an upstream persona row.

    A v0.2 row (INTERACTION_MODE) is converted as upstream's own migration does; a v0.3 row keeps
    its ACTIVITY_STATE. An unknown state becomes Idle, as upstream, and is reported."""
    if "INTERACTION_MODE" in row:
        # Upstream's migration: the old mode decides, whatever ACTIVITY_STATE the row had.
        return row.get("INTERACTION_MODE") or "user", from_interaction_mode(row.get("INTERACTION_MODE"))
    raw = row.get("ACTIVITY_STATE")
    state = str(raw).strip() if raw is not None else ""
    if state not in ("Active", "Idle", "Sleep", "Stop"):
        if "ACTIVITY_STATE" in row:
            ctx.report.problem(f"persona {persona_id}", Text(
                f"活動状態 {raw!r} は知らない値なので Idle にしました (アップストリームと同じ)",
                f"activity state {raw!r} is not a known one; it became Idle (as upstream does)"))
        state = from_interaction_mode(row.get("INTERACTION_MODE"))
    return to_interaction_mode(state), state


def map_position(ctx: Context, building_id: str, x: Any, y: Any) -> tuple[float | None, float | None]:
    """A building's MAP_X / MAP_Y as numbers; both NULL (auto-placed) when either is not a finite number."""
    if x is None and y is None:
        return None, None
    try:
        fx, fy = float(x), float(y)
    except (TypeError, ValueError):
        fx = fy = math.nan
    if not (math.isfinite(fx) and math.isfinite(fy)):
        ctx.report.problem(f"building {building_id}", Text(
            f"地図の位置 ({x!r}, {y!r}) は数ではないため、自動配置にしました",
            f"map position ({x!r}, {y!r}) is not a pair of numbers; the building is placed automatically"))
        return None, None
    return fx, fy


def free_slot(db: sqlite3.Connection, kind: str, owner: str, wanted: Any) -> int | None:
    """The item's slot: upstream's SLOT_NUMBER when free in its container, else the smallest free one
    from 1 (upstream's rule for a new item); None when upstream had none."""
    if wanted is None:
        return None
    used = {r[0] for r in db.execute("SELECT SLOT_NUMBER FROM item_location WHERE OWNER_KIND = ? AND OWNER_ID = ? "
                                     "AND SLOT_NUMBER IS NOT NULL", (kind, owner))}
    try:
        slot = int(wanted)
    except (TypeError, ValueError):
        slot = 0
    if slot >= 1 and slot not in used:
        return slot
    slot = 1
    while slot in used:
        slot += 1
    return slot


_TRACK = {"track_id": "TRACK_ID", "persona_id": "PERSONA_ID", "title": "TITLE", "track_type": "TRACK_TYPE",
          "is_persistent": "IS_PERSISTENT", "output_target": "OUTPUT_TARGET", "status": "STATUS",
          "is_forgotten": "IS_FORGOTTEN", "intent": "INTENT", "track_metadata": "METADATA_JSON",
          "pause_summary": "PAUSE_SUMMARY", "pause_summary_updated_at": "PAUSE_SUMMARY_UPDATED_AT",
          "last_active_at": "LAST_ACTIVE_AT", "waiting_for": "WAITING_FOR", "waiting_timeout_at": "WAITING_TIMEOUT_AT",
          "created_at": "CREATED_AT", "completed_at": "COMPLETED_AT", "aborted_at": "ABORTED_AT"}
_NOTE = {"note_id": "NOTE_ID", "persona_id": "PERSONA_ID", "title": "TITLE", "note_type": "NOTE_TYPE",
         "description": "DESCRIPTION", "note_metadata": "METADATA_JSON", "is_active": "IS_ACTIVE",
         "created_at": "CREATED_AT", "last_opened_at": "LAST_OPENED_AT", "closed_at": "CLOSED_AT"}
_LOG = {"log_id": "LOG_ID", "track_id": "TRACK_ID", "occurred_at": "OCCURRED_AT", "log_kind": "LOG_KIND",
        "payload": "PAYLOAD", "source_line_id": "SOURCE_LINE_ID", "visible_to_other_tracks": "VISIBLE_TO_OTHER_TRACKS"}
_JUDGMENT = {"judgment_id": "JUDGMENT_ID", "persona_id": "PERSONA_ID", "judged_at": "JUDGED_AT",
             "track_at_judgment_id": "TRACK_AT_JUDGMENT_ID", "trigger_type": "TRIGGER_TYPE",
             "trigger_context": "TRIGGER_CONTEXT", "prompt_snapshot": "PROMPT_SNAPSHOT",
             "judgment_thought": "JUDGMENT_THOUGHT", "spells_emitted": "SPELLS_EMITTED",
             "committed_to_main_cache": "COMMITTED_TO_MAIN_CACHE"}
_TIMES = {"PAUSE_SUMMARY_UPDATED_AT", "LAST_ACTIVE_AT", "WAITING_TIMEOUT_AT", "CREATED_AT", "COMPLETED_AT",
          "ABORTED_AT", "LAST_OPENED_AT", "CLOSED_AT", "OCCURRED_AT", "JUDGED_AT", "OPENED_AT", "ADDED_AT"}
_FLAGS = {"IS_PERSISTENT", "IS_FORGOTTEN", "IS_ACTIVE", "VISIBLE_TO_OTHER_TRACKS", "COMMITTED_TO_MAIN_CACHE",
          "AUTO_ADDED"}
_DEFAULTS = {"OUTPUT_TARGET": "none", "STATUS": "unstarted", "IS_ACTIVE": 1, "TRACK_TYPE": "autonomous",
             "LOG_KIND": "event_message", "NOTE_TYPE": "project", "TITLE": ""}


def _value(column: str, value: Any) -> Any:
    if value is None:
        return _DEFAULTS.get(column, 0 if column in _FLAGS else None)
    if column in _TIMES:
        return naive_text(value)
    if column in _FLAGS:
        return 1 if value in (1, True, "1", "true", "True") else 0
    return value if isinstance(value, int | float | str) else dumps(value)


def _insert(ctx: Context, table: str, mapping: dict[str, str], row: dict[str, Any], unknown: set[str]) -> int:
    cols = list(mapping.values())
    values = [_value(mapping[k], row.get(k)) for k in mapping]
    extra = {k: v for k, v in row.items() if k not in mapping}
    if extra:
        unknown.update(f"{table}.{k}" for k in extra)
        if table == "action_track":
            cols.append("EXTRA_JSON")
            values.append(dumps({"upstream": extra}))
    cur = ctx.db.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                         values)
    return cur.rowcount


def import_tracks_and_notes(ctx: Context) -> None:
    """Tracks, notes, their links and the judgment log of the personas that came over."""
    counts: Counter[str] = Counter()
    unknown: set[str] = set()
    dropped: Counter[str] = Counter()
    tracks: set[str] = set()
    notes: set[str] = set()
    for r in rows(ctx.src, "action_track"):
        if str(r.get("persona_id")) not in ctx.personas_ok or not r.get("track_id"):
            dropped["action_track"] += 1
            continue
        tracks.add(str(r["track_id"]))
        counts["action_tracks"] += _insert(ctx, "action_track", _TRACK, r, unknown)
    for r in rows(ctx.src, "note"):
        if str(r.get("persona_id")) not in ctx.personas_ok or not r.get("note_id"):
            dropped["note"] += 1
            continue
        notes.add(str(r["note_id"]))
        counts["notes"] += _insert(ctx, "note", _NOTE, r, unknown)
    for r in rows(ctx.src, "track_local_log"):
        if str(r.get("track_id")) not in tracks or not r.get("log_id"):
            dropped["track_local_log"] += 1
            continue
        counts["track_logs"] += _insert(ctx, "track_local_log", _LOG, r, unknown)
    for r in rows(ctx.src, "meta_judgment_log"):
        if str(r.get("persona_id")) not in ctx.personas_ok or not r.get("judgment_id"):
            dropped["meta_judgment_log"] += 1
            continue
        counts["meta_judgments"] += _insert(ctx, "meta_judgment_log", _JUDGMENT, r, unknown)
    for r in rows(ctx.src, "note_page"):
        if str(r.get("note_id")) not in notes or not r.get("page_id"):
            dropped["note_page"] += 1
            continue
        counts["note_pages"] += _insert(ctx, "note_page", {"note_id": "NOTE_ID", "page_id": "PAGE_ID"}, r, unknown)
    for r in rows(ctx.src, "note_message"):
        if str(r.get("note_id")) not in notes or not r.get("message_id"):
            dropped["note_message"] += 1
            continue
        counts["note_messages"] += _insert(ctx, "note_message", {
            "note_id": "NOTE_ID", "message_id": "MESSAGE_ID", "added_at": "ADDED_AT", "auto_added": "AUTO_ADDED"},
            r, unknown)
    for r in rows(ctx.src, "track_open_note"):
        if str(r.get("track_id")) not in tracks or str(r.get("note_id")) not in notes:
            dropped["track_open_note"] += 1
            continue
        counts["track_open_notes"] += _insert(ctx, "track_open_note", {
            "track_id": "TRACK_ID", "note_id": "NOTE_ID", "opened_at": "OPENED_AT"}, r, unknown)
    ctx.report.imported.update(counts)
    for table, n in sorted(dropped.items()):
        ctx.report.skip(table, f"{n} rows", Text(
            f"{table} の {n} 行は、持ち主のペルソナ・トラック・ノートが取り込まれていないため取り込んでいません",
            f"{n} {table} rows were not imported: their persona, track or note did not come over"))
    if unknown:
        ctx.report.note(Text(
            f"知らない列 {', '.join(sorted(unknown))} は取り込んでいません (トラックの列は EXTRA_JSON に残しました)",
            f"columns this importer does not know were not brought over as columns: {', '.join(sorted(unknown))} "
            "(a track's are kept in its EXTRA_JSON)"))


LEFT_OUT: dict[str, Text] = {
    "addon_config": Text("アドオンはこのアプリにありません", "there are no addons here"),
    "addon_persona_config": Text("アドオンはこのアプリにありません", "there are no addons here"),
    "addon_message_metadata": Text("アドオンはこのアプリにありません (TTS の音声ファイルなど)",
                                   "there are no addons here (e.g. a TTS addon's audio paths)"),
    "persona_building_state": Text("建物の変化の比較用スナップショットで、次に見たときに作り直されます",
                                   "a snapshot for telling what changed in a building; it is rebuilt on the next look"),
    "llm_usage_log": Text("アップストリームのモデル利用量の記録です", "upstream's record of model usage"),
}
"""v0.3 tables not brought over, with why; named in the summary when the source has rows in them."""


def note_left_out(ctx: Context) -> None:
    """One summary line per v0.3 table with rows that this import does not bring over."""
    for table, why in LEFT_OUT.items():
        if not has_table(ctx.src, table):
            continue
        # The voice-tts addon's rows become voices (saiverse/importer/voices.py): not left out.
        addon = "addon_name" in table_columns(ctx.src, table)
        count = int(ctx.src.execute(f'SELECT count(*) FROM "{table}"' + (
            " WHERE addon_name IS NOT 'saiverse-voice-tts'" if addon else "")).fetchone()[0])
        if count:
            ctx.report.skip(table, f"{count} rows", why)
    versions = sorted({str(c["LAST_KNOWN_VERSION"]) for c in rows(ctx.src, "city") if c.get("LAST_KNOWN_VERSION")})
    if versions:
        ctx.report.note(Text(f"都市の LAST_KNOWN_VERSION ({', '.join(versions)}) はアップストリームの版の印なので"
                             "取り込んでいません (このアプリは自分のスキーマ版で管理します)",
                             f"the city's LAST_KNOWN_VERSION ({', '.join(versions)}) is upstream's version marker "
                             "and is not brought over (this app tracks its own schema version)"))
    for column, why in (("MAP_BACKGROUND_IMAGE", Text("都市の地図の背景画像はまだ使いません",
                                                      "the city map's background picture is not used yet")),):
        if column in table_columns(ctx.src, "city"):
            for c in rows(ctx.src, "city"):
                if c.get(column):
                    ctx.report.skip("city", str(c.get("CITYNAME") or c.get("CITYID")), Text(
                        f"{column} ({c[column]}): {why.ja}",
                        f"{column} ({c[column]}): {why.en}"))
