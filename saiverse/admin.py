"""Administration of the world from the UI tabs: personas, buildings and saved settings.

`AdminService(manager)` validates what a user typed and writes it (tables `ai` and `building`,
DESIGN §3); every rejection is an `AdminError` (a ValueError) whose message names the field.
Settings saved here go to `<home>/settings.json` (mode 600, it may hold API keys) and are applied
to the running manager at once; keys are never logged or returned in full (`mask_key`).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from database.models import Building, City, Persona
from saiverse.settings import SAVED_KEYS, SAVED_SETTINGS_FILE, Settings, read_saved_settings
from saiverse.world import BuildingInfo, PersonaInfo

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

MODES = ("user", "auto", "sleep")
MIN_AUTO_INTERVAL_SEC = 60
MODEL_FIELDS = ("default_model", "lightweight_model", "lightweight_vision_model", "vision_model")
"""The four per-persona model columns (empty = use the global default)."""
SETTING_FIELDS = ("default_model", "default_lightweight_model", "lightweight_vision_model", "vision_model",
                  "openai_base_url")
"""Non-secret settings the 設定 tab edits."""
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class AdminError(ValueError):
    """Input the admin tabs cannot store; the message says which field and why."""


def mask_key(key: str | None) -> str:
    """`****abcd` (the last four characters) for a key, '' for none: the UI never shows a key."""
    if not key:
        return ""
    return "****" + key[-4:] if len(key) > 8 else "****"


def slug(name: str) -> str:
    """An id from a name: lower-case ASCII words joined by '_', or '' when nothing ASCII is left."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:48]


def _text(spec: dict[str, Any], key: str, default: str = "") -> str:
    value = spec.get(key, default)
    return "" if value is None else str(value).strip()


def _int(spec: dict[str, Any], key: str, minimum: int) -> int:
    try:
        value = int(spec[key])
    except (TypeError, ValueError) as exc:
        raise AdminError(f"{key} must be an integer, got {spec.get(key)!r}") from exc
    if value < minimum:
        raise AdminError(f"{key} must be at least {minimum}, got {value}")
    return value


class AdminService:
    """Create and edit personas and buildings, save settings — for one manager."""

    def __init__(self, manager: SAIVerseManager) -> None:
        self.manager = manager

    # ---- personas -------------------------------------------------------------------------------
    def _check_persona(self, spec: dict[str, Any], s: Any, persona_id: str | None) -> dict[str, Any]:
        """Validated column values of a persona spec (only the keys present, for updates)."""
        values: dict[str, Any] = {}
        if persona_id is None or "name" in spec:
            name = _text(spec, "name")
            if not name:
                raise AdminError("name must not be empty")
            values["name"] = name
        for key in ("avatar", "description", "system_prompt"):
            if key in spec:
                values[key] = _text(spec, key)
        if values.get("avatar") == "":
            values["avatar"] = "🙂"
        if persona_id is None or "interaction_mode" in spec:
            mode = _text(spec, "interaction_mode", "user") or "user"
            if mode not in MODES:
                raise AdminError(f"interaction_mode must be one of {', '.join(MODES)}, got {mode!r}")
            values["interaction_mode"] = mode
        if persona_id is None or "building_id" in spec:
            bid = _text(spec, "building_id")
            building = s.get(Building, bid) if bid else None
            if building is None:
                raise AdminError(f"building_id {bid!r} does not exist")
            occupants = s.scalar(select(func.count()).select_from(Persona).where(
                Persona.building_id == bid, Persona.persona_id != (persona_id or "")))
            if (occupants or 0) >= building.capacity:
                raise AdminError(f"building {building.name} is full (capacity {building.capacity})")
            values["building_id"] = bid
        for key in MODEL_FIELDS:
            if key in spec:
                values[key] = _text(spec, key) or None
        return values

    def _new_persona_id(self, spec: dict[str, Any], s: Any) -> str:
        wanted = _text(spec, "persona_id").lower()
        if wanted:
            if not _ID.match(wanted):
                raise AdminError(f"persona_id must be a slug (a-z, 0-9, _ or -), got {wanted!r}")
            if s.get(Persona, wanted) is not None:
                raise AdminError(f"persona_id {wanted!r} already exists")
            return wanted
        base = slug(_text(spec, "name"))
        if base and s.get(Persona, base) is None and _ID.match(base):
            return base
        return uuid.uuid4().hex[:12]  # a Japanese name has no ASCII slug

    def create_persona(self, spec: dict[str, Any]) -> PersonaInfo:
        """A new persona from a spec (name, building_id required; see MODEL_FIELDS for models)."""
        with self.manager.db.session() as s:
            values = self._check_persona(spec, s, None)
            pid = self._new_persona_id(spec, s)
            city_id = s.get(Building, values["building_id"]).city_id
            values.setdefault("avatar", "🙂")
            s.add(Persona(persona_id=pid, city_id=city_id, **values))
        return self.manager.world.persona(pid)

    def update_persona(self, persona_id: str, spec: dict[str, Any]) -> PersonaInfo:
        """Change the fields present in `spec` of an existing persona."""
        with self.manager.db.session() as s:
            row = s.get(Persona, persona_id)
            if row is None:
                raise AdminError(f"persona {persona_id!r} does not exist")
            for key, value in self._check_persona(spec, s, persona_id).items():
                setattr(row, key, value)
        return self.manager.world.persona(persona_id)

    # ---- buildings ------------------------------------------------------------------------------
    def _check_building(self, spec: dict[str, Any], creating: bool) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if creating or "name" in spec:
            name = _text(spec, "name")
            if not name:
                raise AdminError("name must not be empty")
            values["name"] = name
        for key in ("description", "system_instruction"):
            if key in spec:
                values[key] = _text(spec, key)
        if creating or "capacity" in spec:
            values["capacity"] = _int({"capacity": spec.get("capacity", 10)}, "capacity", 1)
        if creating or "auto_interval_sec" in spec:
            values["auto_interval_sec"] = _int(
                {"auto_interval_sec": spec.get("auto_interval_sec", 600)}, "auto_interval_sec", MIN_AUTO_INTERVAL_SEC)
        return values

    def create_building(self, spec: dict[str, Any]) -> BuildingInfo:
        """A new building in the city (name required; capacity ≥ 1, interval ≥ 60 s)."""
        values = self._check_building(spec, True)
        with self.manager.db.session() as s:
            city = s.scalars(select(City).order_by(City.created_at)).first()
            if city is None:
                raise AdminError("the world has no city yet")
            bid = slug(values["name"])
            if not bid or not _ID.match(bid) or s.get(Building, bid) is not None:
                bid = "b_" + uuid.uuid4().hex[:10]
            order = s.scalar(select(func.max(Building.sort_order))) or 0
            s.add(Building(building_id=bid, city_id=city.city_id, sort_order=order + 1, **values))
        return self.manager.world.building(bid)

    def update_building(self, building_id: str, spec: dict[str, Any]) -> BuildingInfo:
        """Change the fields present in `spec`; capacity may not drop below who is inside."""
        values = self._check_building(spec, False)
        with self.manager.db.session() as s:
            row = s.get(Building, building_id)
            if row is None:
                raise AdminError(f"building {building_id!r} does not exist")
            if "capacity" in values:
                inside = s.scalar(select(func.count()).select_from(Persona).where(
                    Persona.building_id == building_id)) or 0
                if values["capacity"] < inside:
                    raise AdminError(f"capacity {values['capacity']} is less than the {inside} personas inside")
            for key, value in values.items():
                setattr(row, key, value)
        return self.manager.world.building(building_id)

    # ---- settings -------------------------------------------------------------------------------
    @property
    def settings_path(self) -> Path:
        return self.manager.settings.home / SAVED_SETTINGS_FILE

    def settings_view(self) -> dict[str, str]:
        """The editable settings now in force, with keys masked."""
        st = self.manager.settings
        view = {key: str(getattr(st, key) or "") for key in SETTING_FIELDS}
        view["gemini_api_key"] = mask_key(st.gemini_api_key)
        view["openai_api_key"] = mask_key(st.openai_api_key)
        return view

    def save_settings(self, values: dict[str, Any]) -> Settings:
        """Validate, write `<home>/settings.json` (mode 600) and apply to the running manager.

        Keys: a non-empty value replaces the stored key, '' or None keeps it; `clear_<key>` = True
        removes it. Model names may not be empty; the base URL must be http(s) or empty.
        """
        changes: dict[str, Any] = {}
        for key in SETTING_FIELDS:
            if key not in values:
                continue
            value = _text(values, key)
            if key == "openai_base_url":
                if value and not re.match(r"^https?://\S+$", value):
                    raise AdminError(f"openai_base_url must start with http:// or https://, got {value!r}")
                changes[key] = value or None
            elif not value:
                raise AdminError(f"{key} must not be empty")
            else:
                changes[key] = value
        for key in ("gemini_api_key", "openai_api_key"):
            secret = _text(values, key)
            if any(c.isspace() for c in secret):
                raise AdminError(f"{key} must not contain spaces")
            if secret:
                changes[key] = secret
            elif values.get(f"clear_{key}"):
                changes[key] = None
        stored = read_saved_settings(self.manager.settings.home)
        for key, value in changes.items():
            if value:
                stored[key] = value
            else:
                stored.pop(key, None)
        _write_private_json(self.settings_path, {k: stored[k] for k in SAVED_KEYS if k in stored})
        new = self.manager.settings.with_overrides(**changes)
        self.manager.settings = new
        summarizer = getattr(self.manager, "summarizer", None)
        if summarizer is not None:
            summarizer.settings = new  # item summaries use the new models too
        return new


def _write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically with mode 600 from the start (the key is never world-readable, even briefly)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)  # mkstemp creates mode 600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=2)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
