"""The manager end to end on a real data home: seeding, items on disk, the thin pulse."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from saiverse.world import SUMMARY_SUFFIX, InvalidImageError
from sea.playbook import parse_playbook
from tests.support.models import ScriptedModel


def test_first_run_world(manager: SAIVerseManager, saiverse_home: Path) -> None:
    names = [b.name for b in manager.buildings()]
    for expected in ("エントランス", "ユーザーの部屋", "図書館", "美術館", "アトリエ"):
        assert expected in names
    personas = manager.personas()
    assert len(personas) >= 2
    assert len({p.system_prompt for p in personas}) == len(personas)  # distinct voices
    library = {i.name: i for i in manager.building_view("library")["items"]}
    doc = library["SAIVerse使い方ガイド"]
    assert doc.type == "document" and library["古い鍵"].type == "object"
    doc_path = saiverse_home / doc.file_path
    assert doc_path.parent == saiverse_home / "documents"
    assert "SAIVerse" in doc_path.read_text(encoding="utf-8")
    sidecar = doc_path.with_name(doc_path.name + SUMMARY_SUFFIX)
    assert sidecar.read_text(encoding="utf-8") == doc.description and 0 < len(doc.description) <= 300
    (pic,) = [i for i in manager.building_view("museum")["items"] if i.type == "picture"]
    pic_path = saiverse_home / pic.file_path
    assert pic_path.parent == saiverse_home / "image" and pic_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import re

    assert re.fullmatch(r"\d{8}_\d{6}_[0-9a-f]{32}\.png", pic_path.name)
    assert pic.description  # summary made from the pixels


def test_seeding_happens_once_and_keeps_user_changes(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings())
    key = next(i for i in m.building_view("library")["items"] if i.name == "古い鍵")
    with m.db.session() as s:
        from database.models import Item

        s.delete(s.get(Item, key.item_id))
    m.move_user("museum")
    m.close()
    again = SAIVerseManager(load_settings())
    assert "古い鍵" not in [i.name for i in again.building_view("library")["items"]]
    assert again.user_building() == "museum"
    again.close()


def test_user_message_gets_a_streamed_reply_recorded_everywhere(manager: SAIVerseManager) -> None:
    events = list(manager.handle_user_input("library", "おすすめの本はありますか？"))
    types = [e["type"] for e in events]
    assert types[0] == "user_message"
    assert "speak_chunk" in types and types[-1] == "pulse_end"
    speak = next(e for e in events if e["type"] == "speak")
    chunks = "".join(e["delta"] for e in events if e["type"] == "speak_chunk")
    assert speak["text"] == chunks and "オフライン" in speak["text"]
    assert speak["persona_id"] == "mina" and speak["pulse_id"]
    pulse_id = speak["pulse_id"]
    hist = manager.history("library")
    assert [h.speaker_kind for h in hist[-2:]] == ["user", "persona"]
    assert hist[-1].content == speak["text"] and hist[-1].pulse_id == pulse_id
    mem = manager.memory.recent_persona_messages("mina", ("conversation",), pulse_id=pulse_id)
    assert [(m["role"], m["content"]) for m in mem[-2:]] == [
        ("user", "おすすめの本はありますか？"), ("assistant", speak["text"])
    ]
    assert all({"conversation", f"pulse:{pulse_id}"} <= set(m["tags"]) for m in mem[-2:])


def test_every_present_persona_answers_in_turn_and_mention_narrows(manager: SAIVerseManager) -> None:
    manager.world.move_persona("sora", "library")
    events = list(manager.handle_user_input("library", "こんにちは"))
    assert sorted(e["persona_id"] for e in events if e["type"] == "speak") == ["mina", "sora"]
    # in turn: one pulse ends before the next starts
    order = [(e["type"], e["pulse_id"]) for e in events if e["type"] in ("pulse_start", "pulse_end")]
    assert [t for t, _ in order] == ["pulse_start", "pulse_end", "pulse_start", "pulse_end"]
    assert order[0][1] == order[1][1] != order[2][1] == order[3][1]
    events = list(manager.handle_user_input("library", "@ソラ 絵の話をして"))
    assert [e["persona_id"] for e in events if e["type"] == "speak"] == ["sora"]


def test_failed_pulse_writes_nothing_and_persona_stays_usable(manager: SAIVerseManager) -> None:
    broken = parse_playbook({
        "name": "broken", "nodes": [
            {"id": "a", "type": "llm", "action": None, "speak": True, "next": "s"},
            {"id": "s", "type": "set", "assignments": {"result": "={}"}, "next": "b"},
            {"id": "b", "type": "speak", "action": "{result.missing_field}", "next": None},
        ],
    })
    before = len(manager.history("library"))
    events = list(manager.run_playbook(broken, "mina", "library"))
    assert any(e["type"] == "speak" for e in events)  # spoke, then failed: nothing may be kept
    err = next(e for e in events if e["type"] == "error")
    assert "missing_field" in err["message"] and "broken" in err["message"] and "'b'" in err["message"]
    assert events[-1] == {**events[-1], "type": "pulse_end", "status": "error"}
    assert len(manager.history("library")) == before
    assert manager.memory.count("mina") == 0
    ok = list(manager.handle_user_input("library", "もう一度"))
    assert any(e["type"] == "speak" for e in ok)


def test_cancelled_pulse_stops_and_keeps_only_what_was_said(make_manager: Callable[..., SAIVerseManager]) -> None:
    # The offline model, streaming one chunk every 20 ms, like a remote model would. What the reply said
    # before the stop stays as a cut line, to be continued (tests/test_continue_reply.py); nothing else.
    manager = make_manager(ScriptedModel(follows_instructions=False, chunk_delay=0.02))
    gen = manager.handle_user_input("library", "長い話をしてください。" * 5)
    seen = []
    for ev in gen:
        seen.append(ev)
        if ev["type"] == "speak_chunk" and sum(e["type"] == "speak_chunk" for e in seen) == 1:
            assert manager.cancel_pulses() == 1
    assert seen[-1]["status"] == "cancelled"
    assert sum(e["type"] == "speak_chunk" for e in seen) < 10
    [said] = [e for e in seen if e["type"] == "speak"]
    assert said["cut"] == "stopped" and len(said["text"]) < 40
    assert any(e["type"] == "error" and e["kind"] == "cancelled" for e in seen)
    assert [(h.speaker_kind, h.cut) for h in manager.history("library")] == [("user", ""), ("persona", "stopped")]


def test_upload_becomes_a_picture_item_and_bad_upload_stores_nothing(
    manager: SAIVerseManager, saiverse_home: Path
) -> None:
    from saiverse.seed import draw_starry_night

    events = list(manager.handle_user_input("library", "", [("夜空.png", draw_starry_night(64))]))
    created = next(e for e in events if e["type"] == "item_created")
    assert created["item"]["type"] == "picture" and created["item"]["name"] == "夜空"
    files_before = sorted((saiverse_home / "image").iterdir())
    with pytest.raises(InvalidImageError, match="画像ファイルではありません"):
        manager.upload_image("library", b"not an image at all", "fake")
    assert sorted((saiverse_home / "image").iterdir()) == files_before


def test_documents_save_atomically_with_a_new_summary(manager: SAIVerseManager, saiverse_home: Path) -> None:
    doc = next(i for i in manager.building_view("library")["items"] if i.type == "document")
    new = "猫の冒険日記\n\n今日は屋根の上で星を数えた。明日は港まで歩く。"
    saved = manager.save_document(doc.item_id, new)
    path = saiverse_home / saved.file_path
    assert path.read_text(encoding="utf-8") == new
    assert saved.description != doc.description and "猫の冒険日記" in saved.description
    assert path.with_name(path.name + SUMMARY_SUFFIX).read_text(encoding="utf-8") == saved.description
    assert saved.state["version"] == 2
    assert manager.item_view(doc.item_id)["text"] == new
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_world_snapshot_is_json(manager: SAIVerseManager) -> None:
    snap = json.loads(json.dumps(manager.world_snapshot(), ensure_ascii=False))
    lib = next(b for b in snap["buildings"] if b["building_id"] == "library")
    assert {i["type"] for i in lib["items"]} == {"object", "document"}
    assert {p["persona_id"]: p["building_id"] for p in snap["personas"]}["mina"] == "library"


def test_the_city_has_its_own_name(manager: SAIVerseManager) -> None:
    """The window's subtitle names the city (an imported city keeps upstream's name)."""
    assert manager.world.city_name() == "サイバース市"
