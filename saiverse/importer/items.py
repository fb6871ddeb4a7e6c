"""Items: rows with their owner, description and state, and their files copied byte for byte.

A file keeps its relative place (`image/…`, `documents/…`) unless the target already has a file
there; an audio item's file (upstream's `audio/…`) goes to `recordings/` (here `audio/` is the spoken-audio
cache, pruned by size: saiverse/world/_item_audio.py). Its `.summary.txt` sidecar comes along. An item whose
file is gone from the source is not imported (a picture or document without its file cannot be opened) and
is reported.
"""

from __future__ import annotations

from typing import Any

from saiverse.importer.context import Context, rows
from saiverse.importer.convert import dumps, json_value, naive_text, stamp
from saiverse.importer.files import item_source, why_not_found
from saiverse.importer.report import Text
from saiverse.importer.v03 import free_slot
from saiverse.world import AUDIO_ITEMS_DIR, ITEM_TYPES, SUMMARY_SUFFIX, relative_to_home


def _state(raw: Any, item_type: str) -> str:
    state = json_value(raw, None)
    if raw not in (None, "") and not isinstance(state, dict):
        state = {"upstream_state": raw}
    state = dict(state or {})
    if item_type not in ITEM_TYPES:
        state["upstream_type"] = item_type
    return dumps(state)


def _owner_known(ctx: Context, kind: str, owner: str) -> bool:
    if kind == "building":
        return ctx.in_target(owner)
    if kind == "persona":
        return owner in ctx.state.personas or owner in ctx.personas_ok
    return True


def _copy_file(ctx: Context, item_id: str, name: str, stored: str, item_type: str) -> str | None:
    found = item_source(ctx.source.home, stored, item_type)
    if found is None:
        why = why_not_found(ctx.source.home, stored, item_type)
        if why == "link":  # never followed: every path is read inside the upstream home only
            reason = Text(f"「{name}」のファイル {stored} は元のホームの外へのリンクです (読んでいません)",
                          f"the file of {name!r}, {stored}, is a link out of the source home (not read)")
        elif why == "outside":
            reason = Text(f"「{name}」のファイル {stored} は元のホームの外にあり (読んでいません)、"
                          "ホームの image/ や documents/ にも同じ名前のファイルがありません",
                          f"the file of {name!r}, {stored}, is outside the source home (not read), and no file "
                          "of that name is in its image/ or documents/")
        else:
            reason = Text(f"「{name}」のファイル {stored} が元のホームにありません",
                          f"the file of {name!r}, {stored}, is missing from the source home")
        ctx.report.skip("item", item_id, reason)
        ctx.report.problem(f"item {item_id}", reason)
        return None
    rel = f"{AUDIO_ITEMS_DIR}/{found.name}" if item_type == "audio" else relative_to_home(ctx.source.home, found)
    final = ctx.stager.free_path(rel)
    ctx.stager.copy(found, final)
    ctx.report.imported["files"] += 1
    sidecar = found.with_name(found.name + SUMMARY_SUFFIX)
    if sidecar.is_file() and ctx.source.inside(str(sidecar)) is not None:  # never through a link out
        ctx.stager.copy(sidecar, final.with_name(final.name + SUMMARY_SUFFIX))
        ctx.report.imported["files"] += 1
    return ctx.stager.relative(final)


def import_items(ctx: Context) -> None:
    where = {str(r["ITEM_ID"]): (str(r.get("OWNER_KIND") or ""), str(r.get("OWNER_ID") or ""),
                                 naive_text(r.get("UPDATED_AT")), r.get("SLOT_NUMBER"))
             for r in rows(ctx.src, "item_location")}
    items = rows(ctx.src, "item")
    bags = {str(it["ITEM_ID"]) for it in items if str(it.get("TYPE") or "") == "bag"} | set(ctx.state.items)
    phase = ctx.progress.phase("items", len(items))
    for it in items:
        phase.advance()
        iid, name = str(it["ITEM_ID"]), str(it.get("NAME") or it["ITEM_ID"])
        if iid in ctx.state.items:
            ctx.report.existing["items"] += 1
            continue
        item_type = str(it.get("TYPE") or "object")
        file_path = None
        if it.get("FILE_PATH"):
            file_path = _copy_file(ctx, iid, name, str(it["FILE_PATH"]), item_type)
            if file_path is None:
                continue
        created = naive_text(it.get("CREATED_AT")) or stamp(ctx.now)
        ctx.db.execute(
            "INSERT INTO item (ITEM_ID, NAME, TYPE, DESCRIPTION, STATE_JSON, FILE_PATH, CREATOR_ID, SOURCE_CONTEXT, "
            "CREATED_AT, UPDATED_AT) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (iid, name, item_type if item_type in ITEM_TYPES else "object", it.get("DESCRIPTION") or "",
             _state(it.get("STATE_JSON"), item_type), file_path, it.get("CREATOR_ID"), it.get("SOURCE_CONTEXT"),
             created, naive_text(it.get("UPDATED_AT")) or created),
        )
        ctx.report.imported["items"] += 1
        if iid not in where:
            ctx.report.problem(f"item {iid}", Text(f"「{name}」には置き場所の行がありません",
                                                   f"{name!r} has no location row"))
            continue
        kind, owner, moved, wanted = where[iid]
        if kind == "bag" and owner not in bags:  # upstream v0.3's bags keep what they hold (world/_item_bags.py)
            ctx.report.problem(f"item {iid}", Text(f"「{name}」が入っている袋 {owner} がこのホームにありません",
                                                   f"the bag {owner} holding {name!r} is not in this home"))
        elif kind not in ("building", "persona", "bag"):
            ctx.report.problem(f"item {iid}", Text(f"「{name}」は {kind} {owner} の中にあり、道具からは届きません",
                                                   f"{name!r} is inside {kind} {owner}; no tool reaches it"))
        elif not _owner_known(ctx, kind, owner):
            ctx.report.problem(f"item {iid}", Text(f"「{name}」の持ち主 {kind} {owner} がこのホームにいません",
                                                   f"the owner of {name!r}, {kind} {owner}, is not in this home"))
        slot = free_slot(ctx.db, kind, owner, wanted)  # upstream v0.3's numbered slot in its container
        if wanted is not None and slot != wanted:
            ctx.report.problem(f"item {iid}", Text(f"「{name}」のスロット {wanted} は使えないため {slot} にしました",
                                                   f"slot {wanted} of {name!r} was taken or invalid: now {slot}"))
        ctx.db.execute("INSERT INTO item_location (ITEM_ID, OWNER_KIND, OWNER_ID, UPDATED_AT, SLOT_NUMBER) "
                       "VALUES (?, ?, ?, ?, ?)", (iid, kind, owner, moved or created, slot))
    phase.close()
