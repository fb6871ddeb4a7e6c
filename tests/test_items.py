"""Items and media: every tool and type, the router reaching the item playbooks, the bad-input
corpus (nothing written, a clear message), crash safety, the summary model chain."""

from __future__ import annotations

import difflib
import io
import json
import os
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from saiverse.world import SUMMARY_SUFFIX, InvalidImageError, ItemStore, UnsafePathError
from tests.support.fakes_llm import FakeServer, gemini_text
from tests.support.models import MakeManager
from tools import ToolArgumentError, ToolError

NAME_RULE = re.compile(r"\d{8}_\d{6}_[0-9a-f]{32}\.(txt|png|jpg|gif|webp)")


def item_named(m: SAIVerseManager, building: str, name: str) -> Any:
    return next(i for i in m.items.list_owned("building", building) if i.name == name)


def snapshot(m: SAIVerseManager, home: Path) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Every file under the media folders and every item row: what 'nothing written' compares."""
    files = sorted(str(p.relative_to(home)) for d in ("image", "documents") for p in (home / d).rglob("*"))
    with m.db.session() as s:
        from database.models import Item

        rows = sorted((i.item_id, i.description, i.state_json) for i in s.query(Item).all())
    return files, rows


def tool(m: SAIVerseManager, name: str, args: dict[str, Any], persona: str = "mina") -> Any:
    return m.run_tool(name, persona, None, args)


def png_bytes(size: tuple[int, int] = (32, 24), colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def huge_png(width: int = 30000, height: int = 30000) -> bytes:
    """A real, valid 30000×30000 grayscale PNG (900 megapixels) that compresses to ~1 MB."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    comp = zlib.compressobj(9)
    row = b"\x00" * (width + 1)
    body = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


# ---- tools on every type ----------------------------------------------------------------------

def test_document_create_follows_the_spec_steps(manager: SAIVerseManager, saiverse_home: Path) -> None:
    out = tool(manager, "document_create", {"name": "私の日記", "description": "日々の記録",
                                            "content": "今日は図書館で猫の本を読んだ。とても面白かった。"})
    doc = item_named(manager, "library", "私の日記")
    assert doc.item_id in out and doc.type == "document" and doc.owner_id == "library"
    path = saiverse_home / doc.file_path
    assert path.parent == saiverse_home / "documents" and NAME_RULE.fullmatch(path.name)
    assert path.read_text(encoding="utf-8") == "今日は図書館で猫の本を読んだ。とても面白かった。"
    sidecar = path.with_name(path.name + SUMMARY_SUFFIX)
    assert sidecar.read_text(encoding="utf-8") == doc.description and len(doc.description) <= 300
    assert doc.state["created_by"] == "mina"


def test_item_view_per_type(manager: SAIVerseManager) -> None:
    guide = item_named(manager, "library", "SAIVerse使い方ガイド")
    assert "ようこそ、SAIVerse へ" in tool(manager, "item_view", {"item_id": guide.item_id})
    key = item_named(manager, "library", "古い鍵")
    with pytest.raises(ToolError, match="このアイテムは view 操作に対応していません。"):
        tool(manager, "item_view", {"item_id": key.item_id})
    manager.world.move_persona("mina", "museum")
    picture = item_named(manager, "museum", "星空の絵")
    seen = tool(manager, "item_view", {"item_id": picture.item_id})
    assert seen["type"] == "picture" and seen["file_path"] == picture.file_path and seen["summary"]


def test_viewed_picture_reaches_the_model_as_an_image(manager: SAIVerseManager) -> None:
    manager.world.move_persona("mina", "museum")
    manager.move_user("museum")
    events = list(manager.handle_user_input("museum", "星空の絵を見せて"))
    assert "item_view_playbook" in {e.get("playbook") for e in events}
    record = next(m for m in manager.memory.list_messages("mina", tag="item_view_playbook"))
    # the look step saw the pixels (the offline model describes images it is given)
    assert "480×480" in record["content"]


def test_item_use_update_description_for_every_type(manager: SAIVerseManager, saiverse_home: Path) -> None:
    for name in ("古い鍵", "SAIVerse使い方ガイド"):
        item = item_named(manager, "library", name)
        action = json.dumps({"action_type": "update_description", "description": f"{name}の新しい説明"})
        assert "更新しました" in tool(manager, "item_use", {"item_id": item.item_id, "action_json": action})
        assert manager.item(item.item_id).description == f"{name}の新しい説明"
    doc = manager.item(item_named(manager, "library", "SAIVerse使い方ガイド").item_id)
    sidecar = saiverse_home / (doc.file_path + SUMMARY_SUFFIX)
    assert sidecar.read_text(encoding="utf-8") == "SAIVerse使い方ガイドの新しい説明"


def test_patch_content_applies_a_unified_diff_and_regenerates_the_summary(
    manager: SAIVerseManager, saiverse_home: Path
) -> None:
    tool(manager, "document_create", {"name": "日記", "description": "d", "content": "一行目\n二行目\n三行目\n"})
    doc = item_named(manager, "library", "日記")
    diff = "".join(difflib.unified_diff(["一行目\n", "二行目\n", "三行目\n"],
                                        ["雨の日の記録。\n", "二行目\n", "三行目\n"], "a", "b"))
    out = tool(manager, "item_use", {"item_id": doc.item_id,
                                     "action_json": json.dumps({"action_type": "patch_content", "patch": diff})})
    assert "差分を適用しました" in out
    path = saiverse_home / doc.file_path
    assert path.read_text(encoding="utf-8") == "雨の日の記録。\n二行目\n三行目\n"
    after = manager.item(doc.item_id)
    assert after.description.startswith("雨の日の記録。") and after.state["version"] == 2
    assert path.with_name(path.name + SUMMARY_SUFFIX).read_text(encoding="utf-8") == after.description
    out = tool(manager, "item_use", {"item_id": doc.item_id,
                                     "action_json": {"action_type": "patch_content", "patch": "追記した一行"}})
    assert "追記しました" in out and path.read_text(encoding="utf-8").endswith("三行目\n追記した一行\n")


def test_generate_image_creates_a_picture_item_here(manager: SAIVerseManager, saiverse_home: Path) -> None:
    text, snippet, file_path, meta = tool(manager, "generate_image", {"prompt": "青い夜空と白い猫"})
    pic = manager.item(meta["item_id"])
    assert pic.type == "picture" and pic.owner_id == "library" and pic.file_path == file_path
    path = saiverse_home / file_path
    assert NAME_RULE.fullmatch(path.name) and path.read_bytes()[:4] == b"\x89PNG"
    assert pic.description and pic.description in text and pic.state["prompt"] == "青い夜空と白い猫"
    assert "picture:" in snippet


def test_pickup_and_place_move_between_building_and_persona(manager: SAIVerseManager) -> None:
    key = item_named(manager, "library", "古い鍵")
    assert "手に取りました" in tool(manager, "item_pickup", {"item_id": key.item_id})
    assert manager.item(key.item_id).owner_kind == "persona"
    manager.world.move_persona("mina", "atelier")
    assert "置きました" in tool(manager, "item_place", {"item_id": key.item_id})
    assert (manager.item(key.item_id).owner_kind, manager.item(key.item_id).owner_id) == ("building", "atelier")
    with pytest.raises(ToolError, match="手に持っていません"):
        tool(manager, "item_place", {"item_id": key.item_id})


# ---- the router reaches each item playbook offline -------------------------------------------

@pytest.mark.parametrize(("request_text", "playbook"), [
    ("ガイドを読んで", "item_view_playbook"),
    ("古い鍵を確認して", "item_view_playbook"),
    ("ガイドを見せて", "item_view_playbook"),
    ("ガイドに「6. 困ったらミナに聞いてください」と追記して", "item_edit_playbook"),
    ("ガイドの説明を更新して", "item_edit_playbook"),
    ("ガイドを書き換えて", "item_edit_playbook"),
    ("日記を書いて: 今日は雨だった。", "document_create_playbook"),
    ("文章を作成して: 図書館の利用案内", "document_create_playbook"),
    ("星空の絵を描いて", "image_generate_playbook"),
])
def test_router_reaches_item_playbooks(manager: SAIVerseManager, request_text: str, playbook: str) -> None:
    events = list(manager.handle_user_input("library", request_text))
    assert playbook in {e.get("playbook") for e in events}, [e.get("playbook") for e in events]
    assert events[-1]["status"] == "ok"


def test_diary_request_creates_a_document_named_by_the_rule(manager: SAIVerseManager, saiverse_home: Path) -> None:
    events = list(manager.handle_user_input("library", "日記を書いて: 今日は港で白い猫を見た。"))
    created = next(e for e in events if e["type"] == "item_created")["item"]
    assert created["name"] == "日記"
    path = saiverse_home / created["file_path"]
    assert NAME_RULE.fullmatch(path.name) and path.read_text(encoding="utf-8") == "今日は港で白い猫を見た。"
    assert "日記" in next(e for e in events if e["type"] == "speak")["text"]


# ---- bad input: a clear message, nothing written -----------------------------------------------

def test_upload_corpus_refused_without_writing(manager: SAIVerseManager, saiverse_home: Path,
                                               make_manager: MakeManager, monkeypatch: pytest.MonkeyPatch) -> None:
    good = png_bytes()
    cases: list[tuple[bytes, str]] = [
        (b"this is plain text pretending to be a PNG", "画像ファイルではありません"),
        (good[: len(good) // 2], "壊れています"),
        (b"", "空です"),
        (huge_png(), "画素数が多すぎます"),
    ]
    before = snapshot(manager, saiverse_home)
    for data, message in cases:
        with pytest.raises(InvalidImageError, match=message):
            manager.upload_image("library", data, "fake.png")
        events = list(manager.handle_user_input("library", "", [("fake.png", data)]))
        assert [e["type"] for e in events] == ["error"] and message in events[0]["message"]
    assert snapshot(manager, saiverse_home) == before
    monkeypatch.setenv("SAIVERSE_MAX_UPLOAD_BYTES", "10")
    with pytest.raises(InvalidImageError, match="大きすぎます"):
        make_manager().upload_image("library", good, "big.png")
    assert snapshot(manager, saiverse_home) == before


def test_upload_judges_by_content_not_name(manager: SAIVerseManager, saiverse_home: Path) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (20, 10), (10, 200, 10)).save(buf, format="JPEG")
    item = manager.upload_image("library", buf.getvalue(), "looks_like.png")
    assert item.file_path.endswith(".jpg") and item.state["mime_type"] == "image/jpeg"


@pytest.mark.parametrize(("name", "args", "error", "message"), [
    ("item_view", {"item_id": "../../etc/passwd"}, ToolError, "存在しません"),
    ("item_view", {"item_id": "no-such-item"}, ToolError, "存在しません"),
    ("item_view", {}, ToolArgumentError, "argument 'item_id' is required"),
    ("item_use", {"item_id": "KEY", "action_json": "{not json"}, ToolArgumentError, "not valid JSON"),
    ("item_use", {"item_id": "KEY", "action_json": "[1, 2]"}, ToolArgumentError, "JSON object"),
    ("item_use", {"item_id": "KEY", "action_json": '{"action_type": "explode"}'}, ToolArgumentError, "action_type"),
    ("item_use", {"item_id": "KEY", "action_json": '{"action_type": "patch_content", "patch": "x"}'}, ToolError,
     "文書ではない"),
    ("item_use", {"item_id": "GUIDE", "action_json": '{"action_type": "patch_content", "patch": "@@ -1,1 +1,1 @@\\n-違う行\\n+新"}'},
     ToolError, "パッチを当てられませんでした"),
    ("document_create", {"name": "", "description": "d", "content": "x"}, ToolError, "名前が空"),
    ("document_create", {"name": "n", "description": "d", "content": "x", "owner": "me"}, ToolArgumentError,
     "unknown argument 'owner'"),
])
def test_tool_bad_input_corpus(manager: SAIVerseManager, saiverse_home: Path, name: str, args: dict[str, Any],
                               error: type[Exception], message: str) -> None:
    ids = {"KEY": item_named(manager, "library", "古い鍵").item_id,
           "GUIDE": item_named(manager, "library", "SAIVerse使い方ガイド").item_id}
    args = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
    before = snapshot(manager, saiverse_home)
    with pytest.raises(error, match=message):
        tool(manager, name, args)
    assert snapshot(manager, saiverse_home) == before


def test_items_of_another_building_are_out_of_reach(manager: SAIVerseManager) -> None:
    picture = item_named(manager, "museum", "星空の絵")
    with pytest.raises(ToolError, match="ここにはありません"):
        tool(manager, "item_view", {"item_id": picture.item_id})


def test_file_paths_outside_the_home_are_refused(manager: SAIVerseManager, saiverse_home: Path,
                                                 tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("secret")
    guide = item_named(manager, "library", "SAIVerse使い方ガイド")
    link = saiverse_home / "documents" / "link.txt"
    os.symlink(secret, link)
    for bad in (str(secret), "../outside.txt", "documents/../../outside.txt", "documents/link.txt"):
        with manager.db.session() as s:
            from database.models import Item

            s.get(Item, guide.item_id).file_path = bad
        with pytest.raises(UnsafePathError, match="outside the data home"):
            manager.item_view(guide.item_id)
        with pytest.raises(UnsafePathError):
            manager.save_document(guide.item_id, "overwrite")
    assert secret.read_text() == "secret"


def test_crash_between_file_and_row_leaves_neither(manager: SAIVerseManager, saiverse_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(manager, saiverse_home)

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk vanished")

    monkeypatch.setattr(ItemStore, "_insert", crash)
    with pytest.raises(RuntimeError):
        tool(manager, "document_create", {"name": "n", "description": "d", "content": "本文"})
    with pytest.raises(RuntimeError):
        manager.upload_image("library", png_bytes(), "p")
    assert snapshot(manager, saiverse_home) == before


def test_failed_save_keeps_the_old_file(manager: SAIVerseManager, saiverse_home: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    guide = item_named(manager, "library", "SAIVerse使い方ガイド")
    path = saiverse_home / guide.file_path
    old = path.read_text(encoding="utf-8")
    from sqlalchemy.orm import Session

    monkeypatch.setattr(Session, "flush", lambda self, *a, **k: (_ for _ in ()).throw(RuntimeError("db down")))
    with pytest.raises(RuntimeError):
        manager.save_document(guide.item_id, "新しい本文")
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == old
    assert manager.item(guide.item_id).description == guide.description
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


# ---- the summary model chain -----------------------------------------------------------------

def test_summaries_use_the_persona_model_then_fall_back_offline(saiverse_home: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as fake:
        fake.fallback = gemini_text("ゲミニによる要約です。")
        monkeypatch.setenv("GEMINI_API_KEY", "test-key-123")
        monkeypatch.setenv("SAIVERSE_GEMINI_BASE_URL", fake.url)
        m = SAIVerseManager(load_settings())
        try:
            with m.db.session() as s:
                from database.models import Persona

                s.get(Persona, "mina").lightweight_model = "gemini-test-lite"
            fake.requests.clear()
            tool(m, "document_create", {"name": "要約テスト", "description": "d", "content": "長い本文。" * 20})
            doc = item_named(m, "library", "要約テスト")
            assert doc.description == "ゲミニによる要約です。"
            assert any("gemini-test-lite" in r.path for r in fake.requests)
            body = json.dumps(fake.requests[-1].body, ensure_ascii=False)
            assert "以下の文書の内容を300文字以内の日本語で要約してください" in body
        finally:
            m.close()
    # with no key the chain ends at the offline extractive summariser
    monkeypatch.delenv("GEMINI_API_KEY")
    m = SAIVerseManager(load_settings())
    try:
        tool(m, "document_create", {"name": "オフライン要約", "description": "d", "content": "一文目です。二文目です。"})
        assert item_named(m, "library", "オフライン要約").description == "一文目です。二文目です。"
    finally:
        m.close()


def test_viewing_a_picture_uses_the_persona_vision_model(saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as fake:
        fake.fallback = gemini_text("紺色の空に月が浮かぶ絵です。")
        monkeypatch.setenv("GEMINI_API_KEY", "test-key-456")
        monkeypatch.setenv("SAIVERSE_GEMINI_BASE_URL", fake.url)
        m = SAIVerseManager(load_settings())
        try:
            with m.db.session() as s:
                from database.models import Persona

                mina = s.get(Persona, "mina")
                mina.default_model = mina.lightweight_model = "offline"  # only vision goes to "Gemini"
                mina.vision_model = "gemini-vision-test"
            m.world.move_persona("mina", "museum")
            fake.requests.clear()
            events = list(m.handle_user_input("museum", "星空の絵を見せて", persona_id="mina"))
            assert events[-1]["status"] == "ok"
            seen = [r for r in fake.requests if "gemini-vision-test" in r.path]
            assert seen, [r.path for r in fake.requests]
            body = json.dumps(seen[0].body)
            assert "inline_data" in body or "inlineData" in body  # the picture itself was sent
        finally:
            m.close()
