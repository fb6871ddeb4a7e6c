"""Administration of the world from the UI tabs and the CLI: personas, buildings and saved settings.

`AdminService(db, world, settings, hooks=...)` validates what a user typed and writes it (tables `ai`
and `building`, docs/ARCHITECTURE.md "Storage"); every rejection is an `AdminError` (a ValueError)
whose message names the field. Deleting a persona or a building follows one set of rules for the UI
and the CLI (`delete_persona`, `delete_building`): refusals name who or what is in the way, and an
automatic backup is taken just before anything is removed. Settings are saved through the
`SettingsStore` (`<home>/settings.json`, mode 600, it may hold API keys), which hands the running
app the new Settings at once; keys are never logged or returned in full (`mask_key`).
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from database import Database
from database.models import Building, City, Persona, User
from saiverse.care._delete import DeleteReport, forget_building, forget_persona, item_count, move_items
from saiverse.errors import UserError
from saiverse.inputs import InputError, check_name, check_text
from saiverse.settings import Settings, SettingsStore, mask_key
from saiverse.world import (
    SUMMARY_LIMIT,
    BuildingInfo,
    ItemInfo,
    ItemStore,
    PersonaInfo,
    World,
    delete_item,
    rename_item,
)
from words import say

MODES = ("user", "auto", "sleep")
MIN_AUTO_INTERVAL_SEC = 60
MODEL_FIELDS = ("default_model", "lightweight_model", "lightweight_vision_model", "vision_model")
"""The four per-persona model columns (empty = use the global default)."""
SETTING_FIELDS = ("default_model", "default_lightweight_model", "lightweight_vision_model", "vision_model",
                  "openai_base_url")
"""Non-secret settings the 設定 tab edits."""
KEY_FIELDS = ("gemini_api_key", "openai_api_key", "openai_official_api_key", "anthropic_api_key")
"""API keys the 設定 tab may replace or clear (always shown masked)."""
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class AdminError(UserError, ValueError):
    """Input the admin tabs cannot store; the message says which field and why."""


def slug(name: str) -> str:
    """An id from a name: lower-case ASCII words joined by '_', or '' when nothing ASCII is left."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:48]


def _text(spec: dict[str, Any], key: str, default: str = "") -> str:
    value = spec.get(key, default)
    text = "" if value is None else str(value).strip()
    try:  # NUL, text UTF-8 cannot hold, and (in a name) any control character are refused
        what = say("what_field", field=key)
        return check_name(text, what) if key == "name" and text else check_text(text, what)
    except InputError as exc:
        raise AdminError(str(exc)) from exc


def _int(spec: dict[str, Any], key: str, minimum: int) -> int:
    try:
        value = int(spec[key])
    except (TypeError, ValueError) as exc:
        raise AdminError(say("adm_int", field=key, value=spec.get(key))) from exc
    if value < minimum:
        raise AdminError(say("adm_min", field=key, least=minimum, value=value))
    return value


def _map_position(spec: dict[str, Any]) -> tuple[float | None, float | None]:
    """A building's (map_x, map_y): both finite numbers within ±MAP_LIMIT, or both empty (placed
    automatically on the city map, saiverse/world/_map.py)."""
    from saiverse.world import MAP_LIMIT

    out: list[float | None] = []
    for key in ("map_x", "map_y"):
        raw = spec.get(key)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            out.append(None)
            continue
        try:
            value = float(raw)
        except (TypeError, ValueError) as exc:
            raise AdminError(say("adm_map_number", field=key, value=raw)) from exc
        if not math.isfinite(value) or abs(value) > MAP_LIMIT:
            raise AdminError(say("adm_map_range", field=key, low=f"{-MAP_LIMIT:g}", high=f"{MAP_LIMIT:g}", value=raw))
        out.append(value)
    if (out[0] is None) != (out[1] is None):
        raise AdminError(say("adm_map_pair"))
    return out[0], out[1]


@dataclass(frozen=True)
class DeleteHooks:
    """What a deletion needs from the rest of the app (manager.py wires them)."""

    backup: Callable[[str], Path]
    """label → the automatic backup written now (kind `delete`)."""
    stop_persona: Callable[[str], None]
    """Cancel a persona's pulses and wait until none runs; raises AdminError if one will not stop."""
    live_runs: Callable[[], list[tuple[str, str, str]]]
    """(run id, persona id, building id) of the production runs working in this process."""


class AdminService:
    """Create, edit and delete personas and buildings, save settings — for one world."""

    def __init__(self, db: Database, world: World, settings: SettingsStore, *,
                 hooks: DeleteHooks | None = None, items: ItemStore | None = None) -> None:
        self.db = db
        self.world = world
        self._items = items
        """The world's items (the room's modal edits and deletes them)."""
        self.settings = settings
        self.hooks = hooks
        """Backup and pulse control for deletions (None: deleting is refused)."""

    # ---- personas -------------------------------------------------------------------------------
    def _check_persona(self, spec: dict[str, Any], s: Any, persona_id: str | None) -> dict[str, Any]:
        """Validated column values of a persona spec (only the keys present, for updates)."""
        values: dict[str, Any] = {}
        if persona_id is None or "name" in spec:
            name = _text(spec, "name")
            if not name:
                raise AdminError(say("adm_empty", field="name"))
            values["name"] = name
        for key in ("avatar", "description", "system_prompt"):
            if key in spec:
                values[key] = _text(spec, key)
        if values.get("avatar") == "":
            values["avatar"] = "🙂"
        if persona_id is None or "interaction_mode" in spec:
            mode = _text(spec, "interaction_mode", "user") or "user"
            if mode not in MODES:
                raise AdminError(say("adm_mode", modes=", ".join(MODES), value=mode))
            values["interaction_mode"] = mode
        if persona_id is None or "building_id" in spec:
            bid = _text(spec, "building_id")
            building = s.get(Building, bid) if bid else None
            if building is None:
                raise AdminError(say("no_building", id=bid))
            occupants = s.scalar(select(func.count()).select_from(Persona).where(
                Persona.building_id == bid, Persona.persona_id != (persona_id or "")))
            if (occupants or 0) >= building.capacity:
                raise AdminError(say("building_full", name=building.name, capacity=building.capacity))
            values["building_id"] = bid
        for key in MODEL_FIELDS:
            if key in spec:
                values[key] = _text(spec, key) or None
        return values

    def _new_persona_id(self, spec: dict[str, Any], s: Any) -> str:
        wanted = _text(spec, "persona_id").lower()
        if wanted:
            if not _ID.match(wanted):
                raise AdminError(say("adm_slug", value=wanted))
            if s.get(Persona, wanted) is not None:
                raise AdminError(say("adm_exists", id=wanted))
            return wanted
        base = slug(_text(spec, "name"))
        if base and s.get(Persona, base) is None and _ID.match(base):
            return base
        return uuid.uuid4().hex[:12]  # a Japanese name has no ASCII slug

    def create_persona(self, spec: dict[str, Any]) -> PersonaInfo:
        """A new persona from a spec (name, building_id required; see MODEL_FIELDS for models)."""
        with self.db.session(write=True) as s:  # the room counted, then taken
            values = self._check_persona(spec, s, None)
            pid = self._new_persona_id(spec, s)
            city_id = s.get(Building, values["building_id"]).city_id
            values.setdefault("avatar", "🙂")
            s.add(Persona(persona_id=pid, city_id=city_id, **values))
        return self.world.persona(pid)

    def update_persona(self, persona_id: str, spec: dict[str, Any]) -> PersonaInfo:
        """Change the fields present in `spec` of an existing persona."""
        with self.db.session(write=True) as s:  # the room counted, then taken
            row = s.get(Persona, persona_id)
            if row is None:
                raise AdminError(say("no_persona", id=persona_id))
            for key, value in self._check_persona(spec, s, persona_id).items():
                setattr(row, key, value)
        return self.world.persona(persona_id)

    # ---- buildings ------------------------------------------------------------------------------
    def _check_building(self, spec: dict[str, Any], creating: bool) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if creating or "name" in spec:
            name = _text(spec, "name")
            if not name:
                raise AdminError(say("adm_empty", field="name"))
            values["name"] = name
        for key in ("description", "system_instruction"):
            if key in spec:
                values[key] = _text(spec, key)
        if creating or "capacity" in spec:
            values["capacity"] = _int({"capacity": spec.get("capacity", 10)}, "capacity", 1)
        if creating or "auto_interval_sec" in spec:
            values["auto_interval_sec"] = _int(
                {"auto_interval_sec": spec.get("auto_interval_sec", 600)}, "auto_interval_sec", MIN_AUTO_INTERVAL_SEC)
        if "map_x" in spec or "map_y" in spec:
            values["map_x"], values["map_y"] = _map_position(spec)
        return values

    def create_building(self, spec: dict[str, Any]) -> BuildingInfo:
        """A new building in the city (name required; capacity ≥ 1, interval ≥ 60 s; map_x / map_y both
        numbers within ±100000, or absent / empty for automatic placement on the city map)."""
        values = self._check_building(spec, True)
        with self.db.session(write=True) as s:  # the last sort order read, then the next taken
            city = s.scalars(select(City).order_by(City.created_at)).first()
            if city is None:
                raise AdminError(say("adm_no_city"))
            bid = slug(values["name"])
            if not bid or not _ID.match(bid) or s.get(Building, bid) is not None:
                bid = "b_" + uuid.uuid4().hex[:10]
            order = s.scalar(select(func.max(Building.sort_order))) or 0
            s.add(Building(building_id=bid, city_id=city.city_id, sort_order=order + 1, **values))
        return self.world.building(bid)

    def update_building(self, building_id: str, spec: dict[str, Any]) -> BuildingInfo:
        """Change the fields present in `spec`; capacity may not drop below who is inside."""
        values = self._check_building(spec, False)
        with self.db.session(write=True) as s:  # the room counted, then taken
            row = s.get(Building, building_id)
            if row is None:
                raise AdminError(say("no_building", id=building_id))
            if "capacity" in values:
                inside = s.scalar(select(func.count()).select_from(Persona).where(
                    Persona.building_id == building_id)) or 0
                if values["capacity"] < inside:
                    raise AdminError(say("adm_capacity_low", capacity=values["capacity"], inside=inside))
            for key, value in values.items():
                setattr(row, key, value)
        return self.world.building(building_id)

    # ---- items (the room's modal) ---------------------------------------------------------------
    @property
    def items(self) -> ItemStore:
        if self._items is None:
            raise AdminError(say("admin_needs_manager"))
        return self._items

    def edit_item(self, item_id: str, name: str, description: str) -> ItemInfo:
        """Rename an item and set its description (a name checked like a new item's; a description of at
        most 300 characters, as every summary). The description is written only when it changed."""
        if len(description.strip()) > SUMMARY_LIMIT:
            raise AdminError(say("description_long", n=len(description.strip()), limit=SUMMARY_LIMIT))
        before = self.items.get(item_id)
        try:
            check_text(description, say("what_description"))
            info = rename_item(self.db, item_id, name) if name.strip() != before.name else before
        except InputError as exc:
            raise AdminError(str(exc)) from exc
        if description.strip() and description.strip() != before.description:
            info = self.items.update_description(item_id, description)
        return info

    def delete_item(self, item_id: str) -> DeleteReport:
        """Delete an item: a backup is taken just before (it keeps the item and its file); a bag's
        contents are put where the bag was."""
        hooks = self._hooks()
        info = self.items.get(item_id)
        report = DeleteReport("item", item_id, info.name)
        report.backup = hooks.backup(f"item_{info.name}")
        _gone, report.items_moved = delete_item(self.db, self.settings.current.home, item_id)
        report.moved_to = f"{info.owner_kind}:{info.owner_id}" if report.items_moved else None
        return report

    # ---- deleting -------------------------------------------------------------------------------
    def _hooks(self) -> DeleteHooks:
        if self.hooks is None:
            raise AdminError(say("admin_delete_needs_hooks"))
        return self.hooks

    def delete_persona(self, persona_id: str) -> DeleteReport:
        """Delete a persona: pulses cancelled, a backup taken, then its own rows go and its items stay
        in the building it stood in (saiverse/care/_delete.py lists what is removed)."""
        hooks = self._hooks()
        persona = self._persona(persona_id)
        for run_id, owner, building_id in hooks.live_runs():
            if owner == persona_id:
                raise AdminError(say("del_persona_producing", name=persona.name, id=persona_id, building=building_id,
                                     run=run_id[:8]))
        hooks.stop_persona(persona_id)
        report = DeleteReport("persona", persona_id, persona.name)
        report.backup = hooks.backup(f"persona_{persona_id}")
        with self.db.session(write=True) as s:  # slots read, then taken
            target = persona.building_id if persona.building_id and s.get(Building, persona.building_id) else None
            if target is None:
                user = s.scalars(select(User)).first()
                target = user.building_id if user and user.building_id else None
            held = item_count(s, "persona", persona_id)
            if held and target is None:
                raise AdminError(say("del_persona_no_place", name=persona.name, held=held))
            report.items_moved = move_items(s, "persona", persona_id, target) if held and target else 0
            report.moved_to = target if report.items_moved else None
            report.removed = forget_persona(s, persona_id)
        return report

    def delete_building(self, building_id: str, *, move_to: str | None = None) -> DeleteReport:
        """Delete an empty building: refused while someone (or the user) is there, or while it holds
        items and no `move_to` building takes them; a backup is taken first; its history goes."""
        hooks = self._hooks()
        with self.db.session() as s:
            row = s.get(Building, building_id)
            if row is None:
                raise AdminError(say("no_building", id=building_id))
            name = row.name
            inside = [f"{p.name} ({p.persona_id})" for p in s.scalars(
                select(Persona).where(Persona.building_id == building_id).order_by(Persona.name))]
            if inside:
                raise AdminError(say("del_building_someone", name=name, id=building_id,
                                     inside=say("list_sep").join(inside)))
            if s.scalar(select(func.count()).select_from(User).where(User.building_id == building_id)):
                raise AdminError(say("del_building_user", name=name, id=building_id))
            items = item_count(s, "building", building_id)
            if move_to is not None:
                dest = s.get(Building, move_to)
                if dest is None:
                    raise AdminError(say("no_move_to", id=move_to))
                if move_to == building_id:
                    raise AdminError(say("del_building_same"))
            elif items:
                raise AdminError(say("del_building_items", name=name, id=building_id, items=items))
        for run_id, _owner, where in hooks.live_runs():
            if where == building_id:
                raise AdminError(say("del_building_producing", name=name, id=building_id, run=run_id[:8]))
        report = DeleteReport("building", building_id, name)
        report.backup = hooks.backup(f"building_{building_id}")
        with self.db.session(write=True) as s:  # slots read, then taken
            if s.scalar(select(func.count()).select_from(Persona).where(Persona.building_id == building_id)) or \
                    s.scalar(select(func.count()).select_from(User).where(User.building_id == building_id)):
                raise AdminError(say("del_building_entered", name=name, id=building_id))
            if move_to is not None:
                report.items_moved = move_items(s, "building", building_id, move_to)
                report.moved_to = move_to if report.items_moved else None
            elif item_count(s, "building", building_id):
                raise AdminError(say("del_building_item_put", name=name, id=building_id))
            report.removed = forget_building(s, building_id)
        return report

    def _persona(self, persona_id: str) -> PersonaInfo:
        try:
            return self.world.persona(persona_id)
        except LookupError:
            raise AdminError(say("no_persona", id=persona_id)) from None

    # ---- settings -------------------------------------------------------------------------------
    def settings_view(self) -> dict[str, str]:
        """The editable settings now in force, with keys masked."""
        st = self.settings.current
        view = {key: str(getattr(st, key) or "") for key in SETTING_FIELDS}
        for key in KEY_FIELDS:
            view[key] = mask_key(getattr(st, key))
        return view

    def settings_overridden(self) -> dict[str, str]:
        """Editable fields a flag, the environment or a `.env` file decides (saving them changes nothing)."""
        st = self.settings.current
        return {key: str(st.source(key)) for key in (*SETTING_FIELDS, *KEY_FIELDS)
                if st.source(key).kind not in ("settings.json", "default")}

    def save_settings(self, values: dict[str, Any]) -> Settings:
        """Validate and save through the settings store; returns the Settings now in force.

        Keys: a non-empty value replaces the stored key, '' or None keeps it; `clear_<key>` = True
        removes it. Model names may not be empty; the base URL must be http(s) or empty.
        """
        changes: dict[str, str | None] = {}
        for key in SETTING_FIELDS:
            if key not in values:
                continue
            value = _text(values, key)
            if key == "openai_base_url":
                if value and not re.match(r"^https?://\S+$", value):
                    raise AdminError(say("adm_url", value=value))
                changes[key] = value or None
            elif not value:
                raise AdminError(say("adm_empty", field=key))
            else:
                changes[key] = value
        for key in KEY_FIELDS:
            secret = _text(values, key)
            if any(c.isspace() for c in secret):
                raise AdminError(say("adm_spaces", field=key))
            if secret:
                changes[key] = secret
            elif values.get(f"clear_{key}"):
                changes[key] = None
        return self.settings.save(changes)
