"""The city: cities, buildings, personas (where their open occupancy row puts them, their avatar), the user.

Upstream columns we have no use for are kept in `EXTRA_JSON` under `"upstream"`; that key also
marks a row as imported, so a later `--merge` of the same home adds new messages and log lines to
it instead of treating it as a collision.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saiverse.importer.context import Context, rows
from saiverse.importer.convert import dumps, stamp
from saiverse.importer.files import avatar_source
from saiverse.importer.report import Text
from saiverse.importer.source import ImportRefused
from saiverse.importer.v03 import map_position, persona_activity
from saiverse.world import USER_ID

_BUILDING_MAPPED = {"CITYID", "BUILDINGID", "BUILDINGNAME", "CAPACITY", "SYSTEM_INSTRUCTION", "ENTRY_PROMPT",
                    "AUTO_PROMPT", "DESCRIPTION", "AUTO_INTERVAL_SEC", "MAP_X", "MAP_Y"}
_PERSONA_MAPPED = {"AIID", "AINAME", "SYSTEMPROMPT", "DESCRIPTION", "INTERACTION_MODE", "DEFAULT_MODEL",
                   "LIGHTWEIGHT_MODEL", "LIGHTWEIGHT_VISION_MODEL", "VISION_MODEL", "PRIVATE_ROOM_ID",
                   "PREVIOUS_INTERACTION_MODE", "CHRONICLE_ENABLED", "AVATAR_IMAGE", "ACTIVITY_STATE"}


def _extra(row: dict[str, Any], mapped: set[str]) -> str:
    return dumps({"upstream": {k: v for k, v in row.items() if k not in mapped}})


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def import_cities(ctx: Context) -> None:
    cities = rows(ctx.src, "city", "CITYID")
    if not cities:
        raise ImportRefused(f"{ctx.source.db_path} holds no city: there is nothing to import.")
    for c in cities:
        name = str(c.get("CITYNAME") or c.get("CITYID"))
        ctx.city_ids[c.get("CITYID")] = name
        ctx.city_names[name] = name
        if name in ctx.state.cities:
            ctx.report.existing["cities"] += 1
            continue
        ctx.db.execute("INSERT INTO city (CITYID, CITYNAME, DESCRIPTION) VALUES (?, ?, ?)",
                       (name, name, c.get("DESCRIPTION") or ""))
        ctx.report.imported["cities"] += 1


def _city(ctx: Context, upstream_id: Any) -> str:
    return ctx.city_ids.get(upstream_id) or next(iter(ctx.city_ids.values()))


def import_buildings(ctx: Context) -> None:
    sort = ctx.state.next_sort
    for b in rows(ctx.src, "building"):
        bid = str(b["BUILDINGID"])
        city = _city(ctx, b.get("CITYID"))
        ctx.source_buildings[bid] = city
        if bid in ctx.state.buildings:
            if ctx.state.buildings[bid]:
                ctx.report.existing["buildings"] += 1
                ctx.buildings_ok.add(bid)
            else:
                ctx.report.skip("building", bid, Text(
                    "この ID の建物がすでにあります (そのまま残し、ログも重ねません)",
                    "a building of this home already has this id (kept as it is; its log is not merged)"))
            continue
        ctx.db.execute(
            "INSERT INTO building (BUILDINGID, CITYID, BUILDINGNAME, CAPACITY, SYSTEM_INSTRUCTION, DESCRIPTION, "
            "AUTO_INTERVAL_SEC, SORT_ORDER, ENTRY_PROMPT, AUTO_PROMPT, EXTRA_JSON, CREATED_AT, MAP_X, MAP_Y) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (bid, city, b.get("BUILDINGNAME") or bid, _int(b.get("CAPACITY"), 10), b.get("SYSTEM_INSTRUCTION") or "",
             b.get("DESCRIPTION") or "", _int(b.get("AUTO_INTERVAL_SEC"), 600), sort, b.get("ENTRY_PROMPT") or "",
             b.get("AUTO_PROMPT") or "", _extra(b, _BUILDING_MAPPED), stamp(ctx.now),
             *map_position(ctx, bid, b.get("MAP_X"), b.get("MAP_Y"))),
        )
        sort += 1
        ctx.buildings_ok.add(bid)
        ctx.report.imported["buildings"] += 1


def _current_buildings(ctx: Context) -> dict[str, str]:
    """Persona → building of its open occupancy row (EXIT_TIMESTAMP NULL; the latest entry wins)."""
    where: dict[str, str] = {}
    for r in rows(ctx.src, "building_occupancy_log", "ENTRY_TIMESTAMP, ID"):
        if r.get("EXIT_TIMESTAMP") is None and r.get("AIID"):
            where[str(r["AIID"])] = str(r["BUILDINGID"])
    return where


def _avatar(ctx: Context, persona_id: str, stored: str | None) -> str | None:
    if not stored:
        return None
    found = avatar_source(ctx.source.home, stored)
    if found is None:
        if stored.replace("\\", "/").startswith(("builtin_data/", "assets/")):
            why = Text(f"{stored} はアップストリーム本体に同梱の画像で、データホームにはありません",
                       f"{stored} is a picture shipped with upstream itself, not part of the data home")
        else:
            why = Text(f"{stored} が見つかりません", f"{stored} was not found")
        ctx.report.problem(f"avatar of {persona_id}", why)
        return None
    final = ctx.stager.free_path(f"icons/{found.name}")
    ctx.stager.copy(found, final)
    ctx.report.imported["avatars"] += 1
    ctx.report.imported["files"] += 1
    return ctx.stager.relative(final)


def import_personas(ctx: Context) -> None:
    where = _current_buildings(ctx)
    for n, p in enumerate(rows(ctx.src, "ai")):
        pid = str(p["AIID"])
        ctx.persona_names[pid] = str(p.get("AINAME") or pid)
        if pid in ctx.state.personas:
            if ctx.state.personas[pid]:
                ctx.report.existing["personas"] += 1
                ctx.personas_ok.add(pid)
            else:
                ctx.report.skip("persona", pid, Text(
                    "この ID のペルソナがすでにいます (そのまま残し、記憶・予定・イベントも重ねません)",
                    "a persona of this home already has this id (kept as it is; no memory, schedules or events "
                    "are merged into it)"))
            continue
        building = where.get(pid)
        if building is not None and not ctx.in_target(building):
            ctx.report.problem(f"persona {pid}", Text(
                f"居場所の建物 {building} が取り込まれていないため、居場所なしにしました",
                f"its building {building} is not in this home, so it has no place"))
            building = None
        mode, state = persona_activity(ctx, pid, p)
        ctx.db.execute(
            "INSERT INTO ai (AIID, CITYID, AINAME, SYSTEMPROMPT, DESCRIPTION, INTERACTION_MODE, DEFAULT_MODEL, "
            "LIGHTWEIGHT_MODEL, LIGHTWEIGHT_VISION_MODEL, VISION_MODEL, CURRENT_BUILDINGID, PRIVATE_ROOM_ID, "
            "AVATAR_IMAGE, PREVIOUS_INTERACTION_MODE, CHRONICLE_ENABLED, EXTRA_JSON, CREATED_AT, ACTIVITY_STATE) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pid, _city(ctx, p.get("HOME_CITYID")), p.get("AINAME") or pid, p.get("SYSTEMPROMPT") or "",
             p.get("DESCRIPTION") or "", mode, p.get("DEFAULT_MODEL"),
             p.get("LIGHTWEIGHT_MODEL"), p.get("LIGHTWEIGHT_VISION_MODEL"), p.get("VISION_MODEL"), building,
             p.get("PRIVATE_ROOM_ID"), _avatar(ctx, pid, p.get("AVATAR_IMAGE")), p.get("PREVIOUS_INTERACTION_MODE"),
             1 if p.get("CHRONICLE_ENABLED") is None else int(bool(p.get("CHRONICLE_ENABLED"))),
             _extra(p, _PERSONA_MAPPED), stamp(ctx.now + timedelta(microseconds=n)),  # keeps upstream's order
             state),
        )
        ctx.personas_ok.add(pid)
        ctx.report.imported["personas"] += 1


def import_user(ctx: Context) -> None:
    users = rows(ctx.src, "user", "USERID")
    if not users:
        return
    user = users[0]
    ctx.user_name = str(user.get("USERNAME") or ctx.user_name)
    if ctx.state.user_exists:
        return  # a merge never moves the user of this home
    building = user.get("CURRENT_BUILDINGID")
    ctx.db.execute("INSERT INTO user (USERID, USERNAME, CURRENT_BUILDINGID) VALUES (?, ?, ?)",
                   (USER_ID, ctx.user_name, building if ctx.in_target(building) else None))
