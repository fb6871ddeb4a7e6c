"""Names and text everywhere they come in (issue 13, hole 10): NUL, control characters and text UTF-8
cannot hold are refused with a message naming the field, and nothing is written."""

from __future__ import annotations

import pytest

from saiverse.care import AdminError
from saiverse.inputs import InputError, check_json_value, check_name, check_text
from saiverse.manager import SAIVerseManager

BAD_NAMES = [("a\x00b", "NUL"), ("mi\ud800na", "UTF-8"), ("two\nlines", "control"), ("bell\x07", "control")]


@pytest.mark.parametrize(("name", "why"), BAD_NAMES)
@pytest.mark.usefixtures("in_english")
def test_persona_and_building_names_are_checked(manager: SAIVerseManager, name: str, why: str) -> None:
    personas, buildings = len(manager.world.personas()), len(manager.world.buildings())
    with pytest.raises(AdminError, match=f"name.*{why}"):
        manager.admin.create_persona({"name": name, "building_id": "library"})
    with pytest.raises(AdminError, match=f"name.*{why}"):
        manager.admin.update_persona("mina", {"name": name})
    with pytest.raises(AdminError, match=f"name.*{why}"):
        manager.admin.create_building({"name": name})
    with pytest.raises(AdminError, match=f"name.*{why}"):
        manager.admin.update_building("library", {"name": name})
    assert len(manager.world.personas()) == personas and len(manager.world.buildings()) == buildings
    assert manager.world.persona("mina").name == "ミナ" and manager.world.building("library").name == "図書館"


@pytest.mark.parametrize("field", ["description", "system_prompt"])
def test_other_persona_text_refuses_nul_and_lone_surrogates(manager: SAIVerseManager, field: str) -> None:
    for bad in ("a\x00b", "a\udc80b"):
        with pytest.raises(AdminError, match=field):
            manager.admin.update_persona("mina", {field: bad})
    manager.admin.update_persona("mina", {field: "改行は\nかまわない"})


@pytest.mark.parametrize(("name", "why"), [("a\x00b", "制御文字"), ("a\ud800", "UTF-8"), ("x" * 201, "長すぎ")])
def test_item_names_are_checked_for_every_kind(manager: SAIVerseManager, name: str, why: str) -> None:
    before = len(manager.items.list_owned("building", "library"))
    with pytest.raises(InputError, match=why):
        manager.items.create_object(name, "d", owner_kind="building", owner_id="library")
    with pytest.raises(InputError, match=why):
        manager.items.create_document(name, "本文", owner_kind="building", owner_id="library")
    assert len(manager.items.list_owned("building", "library")) == before


@pytest.mark.parametrize(("text", "needle"), [("やあ\x00", "NUL"), ("やあ\udcff", "UTF-8")])
def test_chat_text_is_checked_before_anything_is_written(manager: SAIVerseManager, text: str, needle: str) -> None:
    history = len(manager.history("library"))
    events = list(manager.handle_user_input("library", text))
    assert [e["type"] for e in events] == ["error"] and needle in events[0]["message"]
    assert len(manager.history("library")) == history and manager.memory.count("mina") == 0


@pytest.mark.usefixtures("in_english")
def test_the_checks_name_what_they_refuse() -> None:
    assert check_text("改行\nと\tタブ", "note") == "改行\nと\tタブ"
    assert check_name("  ミナ  ", "name") == "ミナ"
    with pytest.raises(InputError, match="name is empty"):
        check_name("   ", "name")
    with pytest.raises(InputError, match=r"--args at \$\.a\[1\]\.b holds a NUL"):
        check_json_value({"a": [1, {"b": "\x00"}]}, "--args")
    with pytest.raises(InputError, match="more than 64 levels"):
        check_json_value(_nested(70), "--args")
    assert check_json_value({"n": 2**63 - 1, "f": 1.5, "ok": [True, None]}, "--args")["n"] == 2**63 - 1


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value
