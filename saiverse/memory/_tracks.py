"""A persona's tracks and notes (upstream v0.3), as the CLI and the メモリ tab show them.

A *track* is a unit of ongoing activity (a conversation with the user, an autonomous task, a wait);
at most one runs at a time. A *note* is a lasting bundle of interest (a person, a project, a
vocation) linking Memopedia pages and SAIMemory messages; notes open on tracks. Both come from an
upstream v0.3 home (saiverse/importer/v03.py); this module reads them, with every link resolved to
what it points at here (the Memopedia page's title, the SAIMemory message's id and text), and the
persona's meta-judgment log and SAIMemory notes. Nothing here writes.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import text

from database.engine import Database, named
from saiverse.world import shown_state


def _json(raw: Any) -> Any:
    if raw in (None, ""):
        return None
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw


def _rows(db: Database, sql: str, **params: Any) -> list[dict[str, Any]]:
    with db.engine.connect() as conn:
        result = conn.execute(text(sql), params)
        return [named(r) for r in result]


def activity_states(db: Database) -> dict[str, str]:
    """Persona id → its activity state as upstream v0.3 names it (saiverse/world/_activity.py)."""
    return {r["AIID"]: shown_state(r["ACTIVITY_STATE"], r["INTERACTION_MODE"])
            for r in _rows(db, "SELECT AIID, ACTIVITY_STATE, INTERACTION_MODE FROM ai")}


def map_positions(db: Database) -> dict[str, tuple[float, float] | None]:
    """Building id → its (x, y) on the city map, or None where it is placed automatically."""
    return {r["BUILDINGID"]: (r["MAP_X"], r["MAP_Y"]) if r["MAP_X"] is not None and r["MAP_Y"] is not None else None
            for r in _rows(db, "SELECT BUILDINGID, MAP_X, MAP_Y FROM building")}


def tracks(db: Database, persona_id: str) -> list[dict[str, Any]]:
    """The persona's tracks, the running one first, then by last activity; each with its open notes
    and its local log."""
    found = _rows(db, "SELECT * FROM action_track WHERE PERSONA_ID = :p ORDER BY STATUS != 'running', "
                      "coalesce(LAST_ACTIVE_AT, CREATED_AT) DESC, TRACK_ID", p=persona_id)
    out = []
    for t in found:
        open_notes = _rows(db, "SELECT n.NOTE_ID, n.TITLE, n.NOTE_TYPE, o.OPENED_AT FROM track_open_note o "
                               "JOIN note n ON n.NOTE_ID = o.NOTE_ID WHERE o.TRACK_ID = :t ORDER BY o.OPENED_AT",
                           t=t["TRACK_ID"])
        log = _rows(db, "SELECT LOG_ID, OCCURRED_AT, LOG_KIND, PAYLOAD, SOURCE_LINE_ID FROM track_local_log "
                        "WHERE TRACK_ID = :t ORDER BY OCCURRED_AT, LOG_ID", t=t["TRACK_ID"])
        out.append({
            "track_id": t["TRACK_ID"], "title": t["TITLE"], "track_type": t["TRACK_TYPE"], "status": t["STATUS"],
            "is_persistent": bool(t["IS_PERSISTENT"]), "is_forgotten": bool(t["IS_FORGOTTEN"]),
            "output_target": t["OUTPUT_TARGET"], "intent": t["INTENT"], "metadata": _json(t["METADATA_JSON"]),
            "pause_summary": t["PAUSE_SUMMARY"], "waiting_for": _json(t["WAITING_FOR"]),
            "waiting_timeout_at": t["WAITING_TIMEOUT_AT"], "last_active_at": t["LAST_ACTIVE_AT"],
            "created_at": t["CREATED_AT"], "completed_at": t["COMPLETED_AT"], "aborted_at": t["ABORTED_AT"],
            "open_notes": [{"note_id": n["NOTE_ID"], "title": n["TITLE"], "note_type": n["NOTE_TYPE"],
                            "opened_at": n["OPENED_AT"]} for n in open_notes],
            "log": [{"log_id": g["LOG_ID"], "at": g["OCCURRED_AT"], "kind": g["LOG_KIND"],
                     "payload": _json(g["PAYLOAD"]), "source_line_id": g["SOURCE_LINE_ID"]} for g in log],
        })
    return out


def notes(db: Database, persona_id: str) -> list[dict[str, Any]]:
    """The persona's notes, active ones first; each with its Memopedia pages and SAIMemory messages
    (a link to something not here is shown with `found: false`, never dropped)."""
    found = _rows(db, "SELECT * FROM note WHERE PERSONA_ID = :p ORDER BY IS_ACTIVE DESC, "
                      "coalesce(LAST_OPENED_AT, CREATED_AT) DESC, NOTE_ID", p=persona_id)
    out = []
    for n in found:
        pages = _rows(db, "SELECT np.PAGE_ID, m.TITLE FROM note_page np LEFT JOIN memopedia_page m "
                          "ON m.PERSONA_ID = :p AND m.PAGE_ID = np.PAGE_ID WHERE np.NOTE_ID = :n ORDER BY np.PAGE_ID",
                      p=persona_id, n=n["NOTE_ID"])
        messages = _rows(db, "SELECT nm.MESSAGE_ID, nm.ADDED_AT, nm.AUTO_ADDED, s.ID, s.ROLE, s.CONTENT "
                             "FROM note_message nm LEFT JOIN saimemory s ON s.PERSONA_ID = :p "
                             "AND s.EXTERNAL_ID = nm.MESSAGE_ID WHERE nm.NOTE_ID = :n "
                             "ORDER BY nm.ADDED_AT, s.ID, nm.MESSAGE_ID", p=persona_id, n=n["NOTE_ID"])
        out.append({
            "note_id": n["NOTE_ID"], "title": n["TITLE"], "note_type": n["NOTE_TYPE"],
            "description": n["DESCRIPTION"], "metadata": _json(n["METADATA_JSON"]), "is_active": bool(n["IS_ACTIVE"]),
            "created_at": n["CREATED_AT"], "last_opened_at": n["LAST_OPENED_AT"], "closed_at": n["CLOSED_AT"],
            "pages": [{"page_id": p["PAGE_ID"], "title": p["TITLE"], "found": p["TITLE"] is not None} for p in pages],
            "messages": [{"upstream_id": m["MESSAGE_ID"], "message_id": m["ID"], "role": m["ROLE"],
                          "content": m["CONTENT"], "added_at": m["ADDED_AT"], "auto_added": bool(m["AUTO_ADDED"]),
                          "found": m["ID"] is not None} for m in messages],
        })
    return out


def memory_notes(db: Database, persona_id: str) -> list[dict[str, Any]]:
    """SAIMemory's short remembered facts of the persona, with the organiser's proposal where made."""
    return [{"note_id": r["NOTE_ID"], "thread_id": r["THREAD_ID"], "content": r["CONTENT"],
             "source_pulse_id": r["SOURCE_PULSE_ID"], "source_time": r["SOURCE_TIME"], "resolved": bool(r["RESOLVED"]),
             "group_label": r["GROUP_LABEL"], "action": r["ACTION"], "target_page_id": r["TARGET_PAGE_ID"],
             "suggested_title": r["SUGGESTED_TITLE"], "target_category": r["TARGET_CATEGORY"],
             "created_at": r["CREATED_AT"]}
            for r in _rows(db, "SELECT * FROM memory_note WHERE PERSONA_ID = :p ORDER BY CREATED_AT, NOTE_ID",
                           p=persona_id)]


def judgments(db: Database, persona_id: str) -> list[dict[str, Any]]:
    """The persona's meta-judgment log, newest first (what it thought when it chose what to do)."""
    return [{"judgment_id": r["JUDGMENT_ID"], "judged_at": r["JUDGED_AT"], "track_id": r["TRACK_AT_JUDGMENT_ID"],
             "trigger_type": r["TRIGGER_TYPE"], "trigger_context": _json(r["TRIGGER_CONTEXT"]),
             "thought": r["JUDGMENT_THOUGHT"], "spells": _json(r["SPELLS_EMITTED"]),
             "committed_to_main_cache": bool(r["COMMITTED_TO_MAIN_CACHE"])}
            for r in _rows(db, "SELECT * FROM meta_judgment_log WHERE PERSONA_ID = :p ORDER BY JUDGED_AT DESC",
                           p=persona_id)]
