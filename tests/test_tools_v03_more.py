"""Upstream v0.3's document_edit, item_move (slots), messagelog_get_around, memory_recall_unified,
forget_recalled, memopedia_health and memopedia_manage on a real home, with upstream's argument names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from saiverse.manager import SAIVerseManager
from saiverse.pulse import ManagerToolContext
from saiverse.settings import load_settings
from tests.support.compat import compat_v03_path
from tools import TOOL_REGISTRY, ToolError, call_tool

ROOT = Path(__file__).resolve().parents[1]
NEW = ("document_edit", "item_move", "messagelog_get_around", "memory_recall_unified", "forget_recalled",
       "memopedia_health", "memopedia_manage")


def run(m: SAIVerseManager, name: str, args: dict[str, Any], persona: str = "mina") -> Any:
    return m.run_tool(name, persona, None, args)


def journaled(m: SAIVerseManager, name: str, args: dict[str, Any]) -> tuple[Any, list[str | None]]:
    """Run a tool as in a pulse, collecting what it reports to the pulse journal (on_effect)."""
    notes: list[str | None] = []
    ctx = ManagerToolContext(m.tool_services, "mina", "library", on_effect=notes.append)
    return call_tool(name, args, ctx), notes


def test_upstream_argument_names_and_shapes() -> None:
    upstream = json.loads(compat_v03_path("tool-arguments.json").read_text(encoding="utf-8"))
    for name in NEW:
        ours, theirs = TOOL_REGISTRY[name].parameters, upstream[name]
        assert ours["properties"].keys() == theirs["properties"].keys(), name
        assert set(ours.get("required", [])) == set(theirs.get("required", [])), name
        for arg, schema in theirs["properties"].items():
            assert ours["properties"][arg].get("type") == schema.get("type"), (name, arg)
            assert ours["properties"][arg].get("enum") == schema.get("enum"), (name, arg)


# ---- document_edit -------------------------------------------------------------------------------

def test_document_edit_whole_and_line_ranges(manager: SAIVerseManager) -> None:
    manager.run_tool("document_create", "mina", "library", {
        "name": "詩", "content": "一行目\n二行目\n三行目\n", "description": "試し"})
    item_id = next(i.item_id for i in manager.items.list_owned("building", "library") if i.name == "詩")
    out, notes = journaled(manager, "document_edit", {"item_id": item_id, "start_line": 2, "replacement": "二\n二半"})
    assert json.loads(out)["result"] == "2行目を置き換えました"
    assert notes == [f"文書「詩」を編集しました。 (item_id: {item_id})"]
    assert manager.items.read_document(item_id) == "一行目\n二\n二半\n三行目\n"
    run(manager, "document_edit", {"item_id": item_id, "start_line": 1, "end_line": 2, "replacement": ""})
    assert manager.items.read_document(item_id) == "二半\n三行目\n"
    run(manager, "document_edit", {"item_id": item_id, "start_line": 3, "replacement": "末尾"})
    assert manager.items.read_document(item_id) == "二半\n三行目\n末尾\n"
    run(manager, "document_edit", {"item_id": item_id, "new_content": "全部ちがう"})
    assert manager.items.read_document(item_id) == "全部ちがう"
    for bad, needle in (({"start_line": 5, "replacement": "x"}, "start_line は 1〜2"),
                        ({"start_line": 1, "end_line": 9, "replacement": "x"}, "end_line は 1〜1"),
                        ({"start_line": 1}, "replacement を指定"),
                        ({}, "new_content"),
                        ({"new_content": "a", "start_line": 1, "replacement": "b"}, "どちらか一方")):
        with pytest.raises(ToolError, match=needle):
            run(manager, "document_edit", {"item_id": item_id, **bad})
    assert manager.items.read_document(item_id) == "全部ちがう"  # refused edits write nothing
    picture = next((i for i in manager.items.list_owned("building", "library") if i.type != "document"), None)
    if picture is not None:
        with pytest.raises(ToolError, match="文書ではありません"):
            run(manager, "document_edit", {"item_id": picture.item_id, "new_content": "x"})
    with pytest.raises(ToolError, match="存在しません"):
        run(manager, "document_edit", {"item_id": "nope", "new_content": "x"})


# ---- item_move -----------------------------------------------------------------------------------

def test_item_move_takes_the_smallest_free_slot(manager: SAIVerseManager) -> None:
    here = manager.items.list_owned("building", "library")
    assert len(here) >= 2
    a, b = here[0], here[1]
    out, notes = journaled(manager, "item_move", {"item_ids": f"{a.item_id}, {b.item_id}",
                                                  "destination_type": "persona"})
    moved = json.loads(out)["moved"]
    assert [(m["item_id"], m["owner_kind"], m["owner_id"], m["slot_number"]) for m in moved] == [
        (a.item_id, "persona", "mina", 1), (b.item_id, "persona", "mina", 2)]
    assert len(notes) == 2 and "スロット 1" in str(notes[0])
    run(manager, "item_move", {"item_ids": a.item_id, "destination_type": "building"})
    assert manager.items.get(a.item_id).owner_id == "library"
    again = json.loads(run(manager, "item_move", {"item_ids": a.item_id, "destination_type": "persona",
                                                  "destination_id": "mina"}))
    assert again["moved"][0]["slot_number"] == 1  # the freed slot is taken again
    with pytest.raises(ToolError, match="もうそこにあります"):
        run(manager, "item_move", {"item_ids": f"{b.item_id}", "destination_type": "persona"})
    with pytest.raises(ToolError, match="'x' は存在しません"):  # a bag that is not there
        run(manager, "item_move", {"item_ids": a.item_id, "destination_type": "bag", "destination_id": "x"})
    with pytest.raises(ToolError, match="いないので"):
        run(manager, "item_move", {"item_ids": a.item_id, "destination_type": "building", "destination_id": "museum"})
    with pytest.raises(ToolError, match="存在しません"):  # nothing moves when one id is bad
        run(manager, "item_move", {"item_ids": f"{a.item_id},nope", "destination_type": "building"})
    assert manager.items.get(a.item_id).owner_kind == "persona"
    with pytest.raises(ToolError, match="destination_type"):
        run(manager, "item_move", {"item_ids": a.item_id, "destination_type": "world"})


# ---- messagelog_get_around -----------------------------------------------------------------------

def test_messagelog_get_around_a_time_and_thread(manager: SAIVerseManager) -> None:
    mem = manager.tool_services.memory
    for h in range(8):
        mem.add("mina", "user" if h % 2 else "assistant", f"発言{h}", created_at=f"2026-03-01T{10 + h:02d}:00:00+00:00")
    with manager.tool_services.memory.db.session() as s:
        s.execute(text("UPDATE saimemory SET THREAD_ID = 'mina:side' WHERE PERSONA_ID = 'mina' AND CONTENT IN "
                       "('発言1', '発言6')"))
    got = run(manager, "messagelog_get_around", {"timestamp": "2026-03-01T13:30:00+00:00", "count": 4})
    assert [line for line in got.split("\n") if line.startswith("発言")] == ["発言2", "発言3", "発言4", "発言5"]
    epoch = "1772370000"  # 2026-03-01T13:00:00Z
    got = run(manager, "messagelog_get_around", {"timestamp": epoch, "count": 2})
    assert [line for line in got.split("\n") if line.startswith("発言")] == ["発言3", "発言4"]  # 13:00 and the next
    side = run(manager, "messagelog_get_around", {"timestamp": epoch, "count": 10, "thread_id": "mina:side"})
    assert [line for line in side.split("\n") if line.startswith("発言")] == ["発言1", "発言6"]
    with pytest.raises(ToolError, match="スレッド 'nope' はありません.*mina:side"):
        run(manager, "messagelog_get_around", {"timestamp": epoch, "thread_id": "nope"})
    with pytest.raises(ToolError, match="読めません"):
        run(manager, "messagelog_get_around", {"timestamp": "きのう"})
    with pytest.raises(ToolError, match="count は 1〜100"):
        run(manager, "messagelog_get_around", {"timestamp": epoch, "count": 0})
    early = run(manager, "messagelog_get_around", {"timestamp": "2020-01-01T00:00:00+00:00", "count": 1,
                                                   "thread_id": "mina:side"})
    assert early.endswith("\n発言1")  # nothing before: the closest after


# ---- memory_recall_unified / forget_recalled -----------------------------------------------------

def test_unified_recall_over_messages_and_memopedia_then_forget(manager: SAIVerseManager) -> None:
    manager.tool_services.memory.add("mina", "user", "灯台守のトマスは猫を三匹飼っている")
    page, _ = manager.tool_services.memopedia.save_page("mina", "灯台守トマス", summary="岬の灯台守", content="猫好き",
                                                        category="people")
    both = run(manager, "memory_recall_unified", {"query": "灯台守", "topk": 5})
    assert both.startswith("記憶検索結果: 2件")
    assert "Memopedia: 灯台守トマス" in both and f"page_id: {page.page_id}" in both and "概要: 岬の灯台守" in both
    assert "メッセージ |" in both and "灯台守のトマス" in both
    only_messages = run(manager, "memory_recall_unified", {"query": "灯台守", "search_memopedia": False})
    assert only_messages.startswith("記憶検索結果: 1件") and "Memopedia" not in only_messages
    assert run(manager, "memory_recall_unified", {"query": "存在しない話題"}) == "関連する記憶が見つかりませんでした。"
    with pytest.raises(ToolError, match="topk は 1〜20"):
        run(manager, "memory_recall_unified", {"query": "灯台守", "topk": 50})
    with pytest.raises(ToolError, match="query"):
        run(manager, "memory_recall_unified", {"topk": 3})

    recalled = manager.world.persona_extra("mina", "working_memory")["recalled"]
    assert {r["source_id"] for r in recalled} >= {page.page_id}
    assert run(manager, "forget_recalled", {"source_id": page.page_id}) == f"記憶を忘れました: {page.page_id}"
    assert "ワーキングメモリにありません" in run(manager, "forget_recalled", {"source_id": page.page_id})
    left = len(manager.world.persona_extra("mina", "working_memory")["recalled"])
    assert run(manager, "forget_recalled", {}) == f"ワーキングメモリから{left}件の記憶をクリアしました。"
    assert "recalled" not in manager.world.persona_extra("mina", "working_memory")
    assert run(manager, "forget_recalled", {}) == "ワーキングメモリに保持されている記憶はありません。"


# ---- memopedia_health / memopedia_manage ---------------------------------------------------------

def test_memopedia_health_and_manage(manager: SAIVerseManager) -> None:
    store = manager.tool_services.memopedia
    big = store.create("mina", "長い話", content="あ" * 3100, category="terms")
    mid = store.create("mina", "中くらい", summary="要約あり", content="い" * 2500, category="terms")
    child = store.create("mina", "子ページ", summary="子", parent_id=big.page_id)
    report = run(manager, "memopedia_health", {})
    assert "総ページ数: 3" in report and "カテゴリ別: terms: 3" in report
    assert "分割推奨 (3000字超): 1件" in report and "長い話 (3100字)" in report
    assert "注意 (2000-3000字): 1件" in report and "中くらい (2500字)" in report
    assert "概要なし: 1件" in report

    out, notes = journaled(manager, "memopedia_manage", {"action": "set_vividness", "page_id": mid.page_id,
                                                         "vividness": "faint"})
    assert "'faint'" in out and notes and store.get("mina", mid.page_id).vividness == "faint"
    run(manager, "memopedia_manage", {"action": "set_important", "page_id": mid.page_id, "is_important": True})
    assert store.get("mina", mid.page_id).is_important
    run(manager, "memopedia_manage", {"action": "move", "page_id": child.page_id, "new_parent_id": mid.page_id})
    assert store.get("mina", child.page_id).parent_id == mid.page_id
    with pytest.raises(ToolError, match="循環"):
        run(manager, "memopedia_manage", {"action": "move", "page_id": mid.page_id, "new_parent_id": child.page_id})
    for bad, needle in (({"action": "move"}, "new_parent_id"), ({"action": "set_vividness"}, "vividness"),
                        ({"action": "set_important"}, "is_important"), ({"action": "explode"}, "action")):
        with pytest.raises(ToolError, match=needle):
            run(manager, "memopedia_manage", {"page_id": mid.page_id, **bad})
    with pytest.raises(ToolError, match="削除できません"):
        run(manager, "memopedia_manage", {"action": "delete", "page_id": "root_terms"})

    gone = run(manager, "memopedia_manage", {"action": "delete", "page_id": mid.page_id})
    assert gone == "ページ '中くらい' を削除しました (子ページ 1 件も)"
    assert {p.title for p in store.pages("mina") if not p.is_root} == {"長い話"}
    kept = {p.page_id for p in store.pages("mina", include_deleted=True)}
    assert {mid.page_id, child.page_id} <= kept  # soft delete: the pages and their history stay
    assert "delete" in {h["edit_type"] for h in store.history("mina", child.page_id)}
    with pytest.raises(ToolError):
        run(manager, "memopedia_manage", {"action": "delete", "page_id": mid.page_id})


# ---- end to end through the CLI ------------------------------------------------------------------

def test_cli_runs_the_new_tools(manager: SAIVerseManager, saiverse_home: Path) -> None:
    manager.tool_services.memopedia.create("mina", "灯台", content="岬の灯台", category="terms")
    manager.tool_services.memory.add("mina", "user", "灯台の話をしよう", created_at="2026-03-01T10:00:00+00:00")
    item_id = manager.items.list_owned("building", "library")[0].item_id
    doc = manager.items.create_document("日記", "一\n二\n", owner_kind="building", owner_id="library")
    manager.close()

    def cli(name: str, args: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), "tool", name, "--persona", "mina", "--args",
                               json.dumps(args, ensure_ascii=False), "--home", str(saiverse_home)],
                              capture_output=True, text=True, timeout=120, check=False)

    health = cli("memopedia_health", {})
    assert health.returncode == 0, health.stderr
    assert "総ページ数: 1" in health.stdout
    moved = cli("item_move", {"item_ids": item_id, "destination_type": "persona"})
    assert moved.returncode == 0, moved.stderr
    assert json.loads(json.loads(moved.stdout)["result"])["moved"][0]["slot_number"] == 1
    edited = cli("document_edit", {"item_id": doc.item_id, "start_line": 2, "replacement": "ニ"})
    assert edited.returncode == 0, edited.stderr
    recalled = cli("memory_recall_unified", {"query": "灯台"})
    assert recalled.returncode == 0 and "記憶検索結果: 2件" in json.loads(recalled.stdout)["result"]
    around = cli("messagelog_get_around", {"timestamp": "2026-03-01T10:00:00+00:00", "count": 1})
    assert around.returncode == 0 and "灯台の話をしよう" in json.loads(around.stdout)["result"]
    reopened = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert reopened.items.read_document(doc.item_id) == "一\nニ\n"
        assert reopened.items.get(item_id).slot_number == 1
    finally:
        reopened.close()
    bad = cli("memopedia_manage", {"action": "set_vividness", "page_id": "x"})
    assert bad.returncode == 2 and "vividness" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


# ---- upstream's v0.3 playbooks that call these tools ---------------------------------------------

def test_meta_autonomy_decision_reads_the_memopedia_health_report(manager: SAIVerseManager) -> None:
    path = compat_v03_path("playbooks") / "meta_autonomy_decision.json"
    manager.playbooks.store(manager.playbooks.check_file(path), replace=True)
    manager.tool_services.memopedia.create("mina", "長い話", content="あ" * 3100, category="terms")
    events = list(manager.run_playbook(manager.playbooks.get("meta_autonomy_decision"), "mina", "library",
                                       args={"input": ""}))
    assert [e["status"] for e in events if e["type"] == "pulse_end"] == ["ok"]
    [health] = [e for e in events if e["type"] == "tool_result" and e["tool"] == "memopedia_health"]
    assert "総ページ数: 1" in health["result"] and "長い話 (3100字)" in health["result"]


# ---- the pulse journal: a change made before a failure stays and is remembered -------------------

def test_a_memopedia_delete_before_a_failure_is_kept_and_remembered(manager: SAIVerseManager) -> None:
    from saiverse.pulse._open import EFFECT_TAGS, STOPPED_TAGS
    from sea.playbook import parse_playbook

    page = manager.tool_services.memopedia.create("mina", "古いメモ", content="もう要らない", category="terms")
    pb = parse_playbook({"name": "tidy_then_fail", "nodes": [
        {"id": "del", "type": "tool", "action": "memopedia_manage",
         "args_input": {"action": {"$literal": "delete"}, "page_id": {"$literal": page.page_id}}, "next": "break"},
        {"id": "break", "type": "tool", "action": "item_view", "args_input": {"item_id": {"$literal": "no-such"}},
         "next": None}]})
    events = list(manager.run_playbook(pb, "mina", "library"))
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "error"
    assert [p.title for p in manager.tool_services.memopedia.pages("mina") if not p.is_root] == []
    memory = list(reversed(manager.memory.list_messages("mina", limit=20)))
    effect = next(m for m in memory if set(EFFECT_TAGS) <= set(m["tags"]))
    assert "「古いメモ」を削除しました" in effect["content"]
    assert set(STOPPED_TAGS) <= set(memory[-1]["tags"])
