"""AdminService on a real data home: personas, buildings, saved settings (file mode, masking, env wins)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from saiverse.care import AdminError
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings, mask_key
from tests.support.models import MakeManager


def test_create_persona_with_models_and_slug_or_uuid_ids(manager: SAIVerseManager) -> None:
    p = manager.admin.create_persona({
        "name": "Kai", "avatar": "🦊", "description": "旅人", "system_prompt": "あなたはカイです。",
        "interaction_mode": "auto", "building_id": "library", "default_model": "gemini-2.5-flash",
        "lightweight_model": "", "lightweight_vision_model": "gemini-2.0-flash", "vision_model": None,
    })
    assert p.persona_id == "kai" and p.building_id == "library" and p.interaction_mode == "auto"
    assert p.default_model == "gemini-2.5-flash" and p.lightweight_model is None
    assert p.lightweight_vision_model == "gemini-2.0-flash" and p.vision_model is None
    jp = manager.admin.create_persona({"name": "ハル", "building_id": "library"})
    assert len(jp.persona_id) == 12 and jp.avatar == "🙂" and jp.interaction_mode == "user"
    again = manager.admin.create_persona({"name": "Kai", "building_id": "museum"})
    assert again.persona_id != "kai"  # a taken slug falls back to a fresh id
    assert {x.persona_id for x in manager.world.personas("library")} >= {"kai", jp.persona_id}


@pytest.mark.parametrize(("spec", "message"), [
    ({"name": "  ", "building_id": "library"}, "name"),
    ({"name": "X", "building_id": "nowhere"}, "nowhere"),
    ({"name": "X", "building_id": "library", "interaction_mode": "chatty"}, "interaction_mode"),
    ({"name": "X", "building_id": "library", "persona_id": "Bad Id!"}, "persona_id"),
    ({"name": "X", "building_id": "library", "persona_id": "mina"}, "もうあります"),
])
def test_invalid_persona_is_refused_with_the_field_named(
    manager: SAIVerseManager, spec: dict, message: str
) -> None:
    before = len(manager.personas())
    with pytest.raises(AdminError, match=message):
        manager.admin.create_persona(spec)
    assert len(manager.personas()) == before


def test_update_persona_changes_only_given_fields(manager: SAIVerseManager) -> None:
    mina = manager.world.persona("mina")
    p = manager.admin.update_persona("mina", {"description": "司書", "interaction_mode": "sleep",
                                              "vision_model": "gemini-2.0-flash"})
    assert (p.name, p.description, p.interaction_mode, p.vision_model) == (mina.name, "司書", "sleep",
                                                                           "gemini-2.0-flash")
    assert p.system_prompt == mina.system_prompt and p.building_id == mina.building_id
    with pytest.raises(AdminError, match="name"):
        manager.admin.update_persona("mina", {"name": ""})
    with pytest.raises(AdminError, match="存在しません"):
        manager.admin.update_persona("nobody", {"description": "x"})
    # A sleeping persona does not answer.
    assert "mina" not in [r.persona_id for r in manager.responders("library", "こんにちは")]


def test_full_building_refuses_a_new_persona(manager: SAIVerseManager) -> None:
    b = manager.admin.create_building({"name": "Tea room", "capacity": 2})
    manager.admin.create_persona({"name": "A", "building_id": b.building_id})
    manager.admin.create_persona({"name": "B", "building_id": b.building_id})
    with pytest.raises(AdminError, match="満員"):
        manager.admin.create_persona({"name": "C", "building_id": b.building_id})
    with pytest.raises(AdminError, match="より少なく"):
        manager.admin.update_building(b.building_id, {"capacity": 1})


def test_create_and_update_building(manager: SAIVerseManager) -> None:
    b = manager.admin.create_building({"name": "温室", "description": "植物がいっぱい", "capacity": "3",
                                       "system_instruction": "静かに", "auto_interval_sec": 120})
    assert b.building_id.startswith("b_") and b.capacity == 3 and b.auto_interval_sec == 120
    assert manager.buildings()[-1].building_id == b.building_id  # listed last
    u = manager.admin.update_building(b.building_id, {"description": "蘭の温室", "auto_interval_sec": 60})
    assert (u.name, u.description, u.auto_interval_sec) == ("温室", "蘭の温室", 60)
    for spec, field in (({"name": ""}, "name"), ({"name": "x", "capacity": 0}, "capacity"),
                        ({"name": "x", "auto_interval_sec": 59}, "auto_interval_sec"),
                        ({"name": "x", "capacity": "many"}, "capacity")):
        with pytest.raises(AdminError, match=field):
            manager.admin.create_building(spec)
    with pytest.raises(AdminError, match="存在しません"):
        manager.admin.update_building("nowhere", {"capacity": 2})


def test_settings_saved_private_masked_and_applied(make_manager: MakeManager, saiverse_home: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")  # conftest's `offline` would win over the saved value
    manager = make_manager()
    key = "AIzaSyTESTKEY1234abcd"
    new = manager.admin.save_settings({
        "default_model": "gemini-2.5-flash", "default_lightweight_model": "gemini-2.5-flash-lite",
        "lightweight_vision_model": "gemini-2.0-flash", "vision_model": "gemini-2.0-flash",
        "openai_base_url": "http://127.0.0.1:11434/v1", "gemini_api_key": key,
    })
    path = saiverse_home / "settings.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["gemini_api_key"] == key
    assert manager.settings is new and new.gemini_api_key == key and new.default_model == "gemini-2.5-flash"
    assert manager.summarizer.settings is new
    view = manager.admin.settings_view()
    assert view["gemini_api_key"] == "****abcd" and key not in json.dumps(view)
    assert key not in repr(new) and key not in capsys.readouterr().out
    # An empty key field keeps the key; clear_ removes it.
    manager.admin.save_settings({"gemini_api_key": ""})
    assert manager.settings.gemini_api_key == key
    # The next start reads the file...
    assert load_settings().gemini_api_key == key
    assert load_settings().openai_base_url == "http://127.0.0.1:11434/v1"
    manager.admin.save_settings({"clear_gemini_api_key": True})
    assert manager.settings.gemini_api_key is None and "gemini_api_key" not in json.loads(path.read_text())


def test_environment_wins_over_saved_settings(make_manager: MakeManager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")
    monkeypatch.setenv("GEMINI_API_KEY", "env-key-9999")
    manager = make_manager()
    assert manager.admin.settings_overridden() == {"gemini_api_key": "env GEMINI_API_KEY"}
    new = manager.admin.save_settings({"gemini_api_key": "file-key-0000", "default_model": "gemini-2.5-flash"})
    # Saved, but the environment still decides the key — now and at the next start alike.
    assert new.gemini_api_key == "env-key-9999" and new.default_model == "gemini-2.5-flash"
    assert manager.admin.settings_view()["gemini_api_key"] == "****9999"
    s = load_settings()
    assert s.gemini_api_key == "env-key-9999" and s.default_model == "gemini-2.5-flash"


def test_bad_settings_are_refused_and_nothing_written(manager: SAIVerseManager, saiverse_home: Path) -> None:
    for values, field in (({"default_model": " "}, "default_model"),
                          ({"openai_base_url": "localhost:11434"}, "openai_base_url"),
                          ({"gemini_api_key": "two words"}, "gemini_api_key")):
        with pytest.raises(AdminError, match=field):
            manager.admin.save_settings(values)
    assert not (saiverse_home / "settings.json").exists()
    assert manager.settings.default_model == "offline"


def test_damaged_settings_file_is_ignored(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True, exist_ok=True)
    (saiverse_home / "settings.json").write_text("{not json")
    assert load_settings().default_model == "offline"


def test_mask_key() -> None:
    assert mask_key(None) == "" and mask_key("short") == "****" and mask_key("0123456789") == "****6789"
