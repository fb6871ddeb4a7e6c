"""Upstream's tools that make sense here, run as a persona against real SQLite in the temp home:
the city, documents and PDFs, the calculator, images, schedules, upstream's argument names, the
tools that need an outside service, and the CLI `tool` / `upload` commands. Memory and situation
tools are in tests/test_tools_upstream_memory.py."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from saiverse.manager import SAIVerseManager
from saiverse.world import InvalidPdfError
from tests.support.compat import compat_path
from tools import TOOL_REGISTRY, ToolArgumentError, ToolError, ToolUnavailableError

ROOT = Path(__file__).resolve().parents[1]


def tool(m: SAIVerseManager, name: str, args: dict[str, Any], persona: str = "mina") -> Any:
    return m.run_tool(name, persona, None, args)


def make_pdf(pages: list[str]) -> bytes:
    """A real PDF with a text layer (Helvetica, one line per `\\n`), written with pypdf."""
    writer = PdfWriter()
    font = writer._add_object(DictionaryObject({  # noqa: SLF001 - pypdf's way to add an indirect object
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica")}))
    for text in pages:
        page = writer.add_blank_page(595, 842)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        stream = DecodedStreamObject()
        shown = " ".join(f"({line}) Tj 0 -20 Td" for line in text.split("\n"))
        stream.set_data(f"BT /F1 14 Tf 72 760 Td {shown} ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)  # noqa: SLF001
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


PDF_PAGES = ["Cats of the library\nTama sleeps on the shelf.", "Chapter two\nThe brass key opens the archive.",
             "Chapter three\n" + "\n".join(f"Line {i}: the cats read until late at night." for i in range(1, 9))]


def building_count(m: SAIVerseManager) -> int:
    return len(m.world.buildings())


# ---- registration: upstream's names and arguments -----------------------------------------------

def test_upstream_tools_have_upstreams_argument_names() -> None:
    upstream = json.loads(compat_path("tool-arguments.json").read_text(encoding="utf-8"))
    owned_elsewhere = {n for n in upstream if n.startswith(("memopedia_", "chronicle_"))} | {"list_available_playbooks"}
    for name, schema in upstream.items():
        if name in owned_elsewhere:
            continue
        ours = TOOL_REGISTRY[name].parameters
        assert set(schema["properties"]) <= set(ours["properties"]), name
        # upstream lists `description` as required without declaring it (document_create, create_building, ...)
        extra = set(ours["properties"]) - set(schema["properties"])
        assert extra <= {"description"}, (name, extra)
        assert set(ours.get("required", [])) <= set(schema.get("required", [])), name


def test_toolctx_receives_services_not_the_manager() -> None:
    for module in ("saiverse/pulse/_toolctx.py", "saiverse/pulse/_toolctx_items.py"):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "saiverse.manager" not in imported, module
        assert "SAIVerseManager" not in (ROOT / module).read_text(encoding="utf-8"), module


@pytest.mark.parametrize("name, service", [
    ("searxng_search", "SearXNG"), ("read_url_content", "インターネット"), ("send_email_to_user", "SMTP"),
    ("x_post_tweet", "X (旧 Twitter)"), ("x_read_mentions", "X (旧 Twitter)"), ("x_search_tweets", "X (旧 Twitter)"),
    ("switch_active_thread", "スレッド"), ("save_playbook", "import-playbook"),
])
def test_tools_needing_an_outside_service_say_which(manager: SAIVerseManager, name: str, service: str) -> None:
    required = TOOL_REGISTRY[name].parameters.get("required", [])
    args = {k: 1 if k == "user_id" else "x" for k in required}
    with pytest.raises(ToolUnavailableError, match=f"{name}.*not available here.*{re.escape(service)}"):
        tool(manager, name, args)


# ---- the city -----------------------------------------------------------------------------------

def test_list_city_buildings_and_move_persona(manager: SAIVerseManager) -> None:
    listed = json.loads(tool(manager, "list_city_buildings", {}))
    library = next(b for b in listed if b["building_id"] == "library")
    assert library["name"] == "図書館" and library["occupants"] == [{"persona_id": "mina", "persona_name": "ミナ"}]
    assert [b["name"] for b in listed] == sorted(b["name"] for b in listed)

    assert tool(manager, "move_persona", {"building_id": "museum"}) == "図書館から美術館に移動しました。"
    assert manager.world.persona("mina").building_id == "museum"
    assert "すでに美術館にいます" in tool(manager, "move_persona", {"building_id": "museum", "persona_id": "mina"})
    with pytest.raises(ToolError, match="建物「nowhere」は見つかりません。行ける建物: .*図書館 \\(library\\)"):
        tool(manager, "move_persona", {"building_id": "nowhere"})
    with pytest.raises(ToolError, match="ほかのペルソナ \\(sora\\) を移動させることはできません"):
        tool(manager, "move_persona", {"building_id": "library", "persona_id": "sora"})
    with pytest.raises(ToolArgumentError, match="argument 'building_id' is required"):
        tool(manager, "move_persona", {})
    manager.admin.update_building("atelier", {"capacity": 1})
    tool(manager, "move_persona", {"building_id": "atelier"}, persona="sora")
    with pytest.raises(ToolError, match="満員"):
        tool(manager, "move_persona", {"building_id": "atelier"})
    assert manager.world.persona("mina").building_id == "museum"


def test_create_building(manager: SAIVerseManager) -> None:
    before = building_count(manager)
    out = tool(manager, "create_building", {"name": "温室", "description": "蘭と羊歯の温室",
                                            "system_instruction": "植物の世話をしながら静かに話す。", "capacity": 3,
                                            "interior_image_path": "image/none.png"})
    made = next(b for b in manager.world.buildings() if b.name == "温室")
    assert (made.description, made.capacity, made.system_instruction) == ("蘭と羊歯の温室", 3, "植物の世話をしながら静かに話す。")
    assert f"building_id: {made.building_id}" in out and "定員: 3名" in out and "内装画像" in out
    assert "温室" in tool(manager, "move_persona", {"building_id": made.building_id})
    for args, message in [
        ({"name": "温室", "description": "x", "system_instruction": "y"}, "もうあります"),
        ({"name": " ", "description": "x", "system_instruction": "y"}, "名前が空"),
        ({"name": "書庫", "description": "x", "system_instruction": " "}, "system_instruction"),
        ({"name": "書庫", "description": "x", "system_instruction": "y", "capacity": 0}, "argument 'capacity'"),
        ({"name": "書庫", "system_instruction": "y"}, "argument 'description' is required"),
    ]:
        with pytest.raises(ToolError, match=message):
            tool(manager, "create_building", args)
    assert building_count(manager) == before + 1


def test_item_place_takes_upstreams_building_id(manager: SAIVerseManager) -> None:
    key = next(i for i in manager.items.list_owned("building", "library") if i.name == "古い鍵")
    tool(manager, "item_pickup", {"item_id": key.item_id})
    with pytest.raises(ToolError, match="いまは美術館にいないので、そこには置けません"):
        tool(manager, "item_place", {"item_id": key.item_id, "building_id": "museum"})
    with pytest.raises(ToolError, match="建物 'ghost' は存在しません"):
        tool(manager, "item_place", {"item_id": key.item_id, "building_id": "ghost"})
    assert manager.items.get(key.item_id).owner_kind == "persona"
    assert "ここに置きました" in tool(manager, "item_place", {"item_id": key.item_id, "building_id": "library"})
    assert manager.items.get(key.item_id).owner_id == "library"


def test_control_body_takes_the_commands_out(manager: SAIVerseManager) -> None:
    said = 'こんにちは！{"body_emote": "wave"} ついていきます{"body_behavior": "follow_player"}'
    assert tool(manager, "control_body", {"message": said}) == "こんにちは！ ついていきます"
    assert tool(manager, "control_body", {"message": "ふつうの発言"}) == "ふつうの発言"
    with pytest.raises(ToolError, match="ほかのペルソナ \\(sora\\) の体は動かせません"):
        tool(manager, "control_body", {"message": said, "persona_id": "sora"})


# ---- calculator -----------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, value", [
    ("(3+4)*2^3", 56), ("2**10", 1024), ("5!", 120), ("(2+1)!", 6), ("7/2", 3.5), ("7//2", 3), ("-3 % 5", 2),
    ("sqrt(16)+abs(-2)", 6), ("round(pi, 3)", 3.142), ("１２×３÷４", 9), ("max(1, 5, 3) - min(4, 2)", 3),
])
def test_calculate_expression(manager: SAIVerseManager, expression: str, value: float) -> None:
    assert tool(manager, "calculate_expression", {"expression": expression}) == value


@pytest.mark.parametrize("expression, message", [
    ("1/0", "0 で割る"), ("__import__('os').system('true')", "使えないもの"), ("x + 1", "使えないもの"),
    ("(1 + 2", "読めませんでした"), ("9**9**9", "大きすぎます"), ("100000!", "階乗が大きすぎます"),
    ("(-1)!", "0 以上の整数"), ("'a' * 3", "使えないもの"), ("log(-1)", "計算できませんでした"), ("", "empty"),
    ("1" * 501, "longer than 500"),
])
def test_calculate_expression_refuses(manager: SAIVerseManager, expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        tool(manager, "calculate_expression", {"expression": expression})


# ---- documents ------------------------------------------------------------------------------------

def _document(m: SAIVerseManager, lines: int = 150) -> str:
    text = "\n".join(f"第{i}行: {'猫が鳴いた' if i % 50 == 0 else '静かな午後'}" for i in range(1, lines + 1))
    return m.items.create_document("長い記録", text, owner_kind="building", owner_id="library").item_id


def test_document_read(manager: SAIVerseManager) -> None:
    doc = _document(manager)
    first = tool(manager, "document_read", {"item_id": doc})
    assert first.startswith("[長い記録] 1〜100 行目 / 全 150 行") and "   100  第100行" in first
    assert "start_line=101" in first
    part = tool(manager, "document_read", {"item_id": doc, "start_line": 148, "end_line": 200})
    assert part.splitlines()[1:] == [f"   {i}  第{i}行: 静かな午後" for i in (148, 149)] + ["   150  第150行: 猫が鳴いた"]
    assert "3 行目" not in tool(manager, "document_read", {"item_id": doc, "start_line": 1, "limit": 2})
    with pytest.raises(ToolError, match="150 行しかありません"):
        tool(manager, "document_read", {"item_id": doc, "start_line": 151})
    with pytest.raises(ToolArgumentError, match="end_line \\(3\\) is before start_line \\(5\\)"):
        tool(manager, "document_read", {"item_id": doc, "start_line": 5, "end_line": 3})
    key = next(i for i in manager.items.list_owned("building", "library") if i.name == "古い鍵")
    with pytest.raises(ToolError, match="「古い鍵」は文書ではありません"):
        tool(manager, "document_read", {"item_id": key.item_id})
    with pytest.raises(ToolError, match="アイテム 'ghost' は存在しません"):
        tool(manager, "document_read", {"item_id": "ghost"})
    with pytest.raises(ToolError, match="「長い記録」はここにはありません"):
        tool(manager, "document_read", {"item_id": doc}, persona="sora")


def test_document_search(manager: SAIVerseManager) -> None:
    doc = _document(manager)
    out = tool(manager, "document_search", {"item_id": doc, "pattern": "猫", "context_lines": 1})
    assert out.splitlines()[0] == "[長い記録] 「猫」: 3 件 (全 150 行)"
    assert ">    50  第50行: 猫が鳴いた" in out and "     49  第49行" in out and "     51  第51行" in out
    limited = tool(manager, "document_search", {"item_id": doc, "pattern": r"第1\d\d行", "max_matches": 2})
    assert "(ほか 49 件" in limited
    assert "見つかりませんでした" in tool(manager, "document_search", {"item_id": doc, "pattern": "犬"})
    with pytest.raises(ToolArgumentError, match="not a valid regular expression"):
        tool(manager, "document_search", {"item_id": doc, "pattern": "猫("})
    with pytest.raises(ToolArgumentError, match="pattern is empty"):
        tool(manager, "document_search", {"item_id": doc, "pattern": " "})


# ---- PDF ------------------------------------------------------------------------------------------

def test_pdf_upload_read_and_search(manager: SAIVerseManager, saiverse_home: Path) -> None:
    item = manager.upload_file("library", make_pdf(PDF_PAGES), "猫の本")
    assert item.type == "document" and item.file_path.endswith(".pdf") and item.state["pages"] == 3
    assert (saiverse_home / item.file_path).read_bytes().startswith(b"%PDF-")
    assert "Tama sleeps" in item.description  # summarised from its text
    out = tool(manager, "pdf_read", {"item_id": item.item_id})
    assert out.startswith("【PDF】猫の本 (全 3 ページ)")
    assert "--- 1 ページ ---\nCats of the library\nTama sleeps on the shelf." in out and "--- 3 ページ ---" in out
    two = tool(manager, "pdf_read", {"item_id": item.item_id, "pages": "2"})
    assert "The brass key" in two and "Tama" not in two and "2 ページを表示" in two
    assert "Chapter three" in tool(manager, "pdf_read", {"item_id": item.item_id, "pages": "2-"})
    cut = tool(manager, "pdf_read", {"item_id": item.item_id, "max_chars": 200})
    assert len(cut) < 320 and "200 文字で打ち切りました" in cut
    assert "Tama" in tool(manager, "document_search", {"item_id": item.item_id, "pattern": "tama"})
    assert "The brass key" in tool(manager, "item_view", {"item_id": item.item_id})
    with pytest.raises(ToolError, match="3 ページしかありません"):
        tool(manager, "pdf_read", {"item_id": item.item_id, "pages": "5"})
    with pytest.raises(ToolArgumentError, match="pages must look like"):
        tool(manager, "pdf_read", {"item_id": item.item_id, "pages": "one"})
    with pytest.raises(ValueError, match="PDF なので内容を編集できません"):
        manager.save_document(item.item_id, "上書き")  # the item modal's 保存
    with pytest.raises(ToolError, match="PDF なので本文は編集できません"):
        tool(manager, "item_use", {"item_id": item.item_id,
                                   "action_json": {"action_type": "patch_content", "patch": "追記"}})
    guide = next(i for i in manager.items.list_owned("building", "library") if i.name == "SAIVerse使い方ガイド")
    with pytest.raises(ToolError, match="PDF ではありません"):
        tool(manager, "pdf_read", {"item_id": guide.item_id})


def test_broken_pdf_is_refused_and_nothing_written(manager: SAIVerseManager, saiverse_home: Path) -> None:
    before = sorted((saiverse_home / "documents").iterdir())
    for data, message in [(b"%PDF-1.7\nnot really a pdf", "壊れています"), (b"", "空")]:
        with pytest.raises(InvalidPdfError, match=message):
            manager.upload_pdf("library", data, "壊れた")
    assert sorted((saiverse_home / "documents").iterdir()) == before
    assert not [i for i in manager.items.list_owned("building", "library") if i.name == "壊れた"]


# ---- images and schedules with upstream's arguments ---------------------------------------------

def test_generate_image_with_upstreams_arguments(manager: SAIVerseManager, saiverse_home: Path) -> None:
    text, _snippet, path, meta = tool(manager, "generate_image", {
        "prompt": "夕焼けの海", "title": "夕焼け", "aspect_ratio": "16:9", "model": "nano_banana_pro", "quality": "low"})
    with Image.open(saiverse_home / path) as img:
        assert img.size == (512, 288)
    assert "絵「夕焼け」" in text and meta["requested_model"] == "nano_banana_pro" and meta["aspect_ratio"] == "16:9"
    first = meta["item_id"]
    _t, _s, _p, again = tool(manager, "generate_image", {"prompt": "同じ海を夜に", "input_images": [first]})
    assert again["input_images"] == [first]
    assert "参考画像「夕焼け」" in manager.items.get(again["item_id"]).state["prompt"]
    guide = next(i for i in manager.items.list_owned("building", "library") if i.name == "SAIVerse使い方ガイド")
    with pytest.raises(ToolError, match="絵ではないので参考画像にできません"):
        tool(manager, "generate_image", {"prompt": "x", "input_images": [guide.item_id]})
    with pytest.raises(ToolArgumentError, match="argument 'aspect_ratio'"):
        tool(manager, "generate_image", {"prompt": "x", "aspect_ratio": "7:3"})


def test_schedule_add_with_upstreams_arguments_and_old_names(manager: SAIVerseManager) -> None:
    weekly = tool(manager, "schedule_add", {"schedule_type": "periodic", "meta_playbook": "meta_auto",
                                            "days_of_week": [0, 2, 4], "time_of_day": "09:00",
                                            "description": "朝の見回り", "priority": 5})
    assert weekly["days_of_week"] == "mon,wed,fri" and weekly["description"] == "朝の見回り" and weekly["priority"] == 5
    assert "定期 月・水・金曜 09:00 に meta_auto" in weekly["message"]
    once = tool(manager, "schedule_add", {"schedule_type": "oneshot", "meta_playbook": "meta_auto",
                                          "scheduled_datetime": "2099-01-02 08:30", "enabled": False})
    assert once["run_at"] == "2099-01-02T08:30" and once["enabled"] is False and "無効のまま登録" in once["message"]
    old = tool(manager, "schedule_add", {"kind": "interval", "interval_sec": 600, "meta_playbook": "meta_auto"})
    assert old["interval_sec"] == 600
    for args, message in [
        ({"schedule_type": "interval", "meta_playbook": "meta_auto", "interval_seconds": 30}, "at least 60"),
        ({"schedule_type": "periodic", "meta_playbook": "meta_auto"}, "needs time_of_day"),
        ({"schedule_type": "oneshot", "meta_playbook": "meta_auto"}, "needs scheduled_datetime"),
        ({"schedule_type": "periodic", "meta_playbook": "meta_auto", "time_of_day": "09:00", "days_of_week": [7]},
         "0 \\(Monday\\) to 6"),
        ({"schedule_type": "oneshot", "meta_playbook": "meta_auto", "scheduled_datetime": "tomorrow"}, "YYYY-MM-DD"),
        ({"schedule_type": "interval", "meta_playbook": "ghost", "interval_seconds": 600}, "ghost"),
        ({"kind": "interval", "schedule_type": "interval", "meta_playbook": "meta_auto"}, "not both"),
        ({"schedule_type": "weekly", "meta_playbook": "meta_auto"}, "argument 'schedule_type'"),
    ]:
        with pytest.raises(ToolError, match=message):
            tool(manager, "schedule_add", args)
    assert len(manager.schedules.list("mina")) == 3
    assert "見つかりませんでした" in tool(manager, "schedule_delete", {"schedule_id": 12})
    assert "削除しました" in tool(manager, "schedule_delete", {"schedule_id": old["schedule_id"]})


# ---- the CLI ------------------------------------------------------------------------------------

def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=env, cwd=home.parent, timeout=120, check=False)


def test_cli_upload_a_pdf_and_read_it_with_a_tool(saiverse_home: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "猫の本.pdf"
    pdf.write_bytes(make_pdf(PDF_PAGES))
    up = cli("upload", "--building", "library", str(pdf), home=saiverse_home)
    assert up.returncode == 0, up.stderr
    item = json.loads(up.stdout)
    assert item["type"] == "document" and item["name"] == "猫の本" and item["file_path"].endswith(".pdf")
    read = cli("tool", "pdf_read", "--persona", "mina", "--args",
               json.dumps({"item_id": item["item_id"], "pages": "2"}), home=saiverse_home)
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout) == {"ok": True, "tool": "pdf_read",
                                       "result": "【PDF】猫の本 (全 3 ページ、2 ページを表示)\n\n"
                                                 "--- 2 ページ ---\nChapter two\nThe brass key opens the archive."}
    calc = cli("tool", "calculate_expression", "--persona", "mina", "--args", '{"expression": "6*7"}',
               home=saiverse_home)
    assert calc.returncode == 0 and json.loads(calc.stdout)["result"] == 42
    bad = cli("tool", "calculate_expression", "--persona", "mina", "--args", '{"expression": "open(1)"}',
              home=saiverse_home)
    assert bad.returncode == 2 and "使えないもの" in bad.stderr and not bad.stdout
    offline = cli("tool", "searxng_search", "--persona", "mina", "--args", '{"query": "猫"}', home=saiverse_home)
    assert offline.returncode == 2 and "SearXNG" in offline.stderr
