"""Upstream v0.3's playbook language: message lines and scopes, sub-lines, report templates, deprecated
and newer fields (sea/lines.py). The small playbooks are written here in upstream's format; the
conformance tests at the end read upstream's own v0.3 files from `../shared/compat-v03/` and skip,
saying so, where that folder is absent.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat import ChatRequest, ChatResult
from saiverse.llm.offline import OfflineModel
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from sea.compat import model_type
from sea.playbook import PlaybookError, parse_playbook
from tests.support.compat import compat_v03_path


class Recording(OfflineModel):
    """The offline model, keeping every request's message texts (what the prompt showed)."""

    def __init__(self) -> None:
        self.prompts: list[list[str]] = []

    def generate(self, request: ChatRequest) -> ChatResult:
        self.prompts.append([str(m.get("content") or "") for m in request.messages])
        return super().generate(request)

    def stream(self, request: ChatRequest) -> Iterator[str]:
        self.prompts.append([str(m.get("content") or "") for m in request.messages])
        return super().stream(request)


@pytest.fixture
def recorded(saiverse_home: Path) -> Iterator[tuple[SAIVerseManager, Recording, list[str]]]:
    model, kinds = Recording(), []

    def hook(persona: Any, kind: str) -> tuple[Recording, None]:
        kinds.append(kind)  # which model each call asked for (normal / lightweight)
        return model, None

    m = SAIVerseManager(load_settings(), models=hook)
    try:
        yield m, model, kinds
    finally:
        m.close()


def store(m: SAIVerseManager, data: dict[str, Any]) -> None:
    m.playbooks.store(m.playbooks.check_text(json.dumps(data, ensure_ascii=False)), replace=True)


def run(m: SAIVerseManager, name: str, text: str = "") -> list[dict[str, Any]]:
    events = list(m.run_playbook(m.playbooks.get(name), "mina", "library", args={"input": text}))
    assert [e["status"] for e in events if e["type"] == "pulse_end"] == ["ok"], [
        e for e in events if e["type"] == "error"]
    return events


def holds(prompt: list[str], text: str) -> bool:
    """Whether a prompt has `text` as a message of its own (a result shown as a `<system>` block counts)."""
    return any(m in (text, f"<system>\n{text}\n</system>") for m in prompt)


def stored(home: Path, content: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "saiverse.db") as conn:
        return conn.execute("SELECT LINE_ROLE, LINE_ID, SCOPE FROM saimemory WHERE CONTENT = ?", (content,)).fetchall()


LINES = {
    "name": "lines_demo", "description": "v0.3 lines", "input_schema": [{"name": "input"}],
    "nodes": [
        {"id": "scratch", "type": "memorize", "action": "作業メモ: 青い栞", "role": "user", "tags": ["internal"],
         "line_role": "sub_line", "scope": "volatile", "next": "doubt"},
        {"id": "doubt", "type": "memorize", "action": "迷い: 赤い栞", "role": "assistant", "tags": ["conversation"],
         "line_role": "meta_judgment", "scope": "discardable", "next": "aside"},
        {"id": "aside", "type": "memorize", "action": "脇道: 緑の栞", "role": "assistant", "tags": ["conversation"],
         "line_role": "sub_line", "scope": "committed", "next": "answer"},
        {"id": "answer", "type": "llm", "action": None, "speak": True,
         "memorize": {"tags": ["conversation"], "line_role": "main_line", "scope": "committed"}, "next": None}],
    "start_node": "scratch"}


def test_scopes_and_line_roles_decide_what_is_kept_and_what_prompts_see(
        recorded: tuple[SAIVerseManager, Recording, list[str]], saiverse_home: Path) -> None:
    manager, model, _ = recorded
    store(manager, LINES)
    events = run(manager, "lines_demo", "栞の話をしよう")
    [speak] = [e for e in events if e["type"] == "speak"]
    seen = model.prompts[-1]
    assert holds(seen, "作業メモ: 青い栞")  # volatile: the rest of the pulse sees it
    assert not holds(seen, "迷い: 赤い栞")  # discardable: never fed back into context
    assert holds(seen, "脇道: 緑の栞")  # a committed sub-line message of this pulse
    assert stored(saiverse_home, "作業メモ: 青い栞") == []  # volatile: never written
    assert stored(saiverse_home, "迷い: 赤い栞") == [("meta_judgment", None, "discardable")]
    assert stored(saiverse_home, "脇道: 緑の栞") == [("sub_line", None, "committed")]
    assert stored(saiverse_home, speak["text"]) == [("main_line", None, "committed")]
    # The next pulse: history holds the main line only (no sub-line, nothing discardable).
    store(manager, {"name": "ask", "description": "x", "input_schema": [{"name": "input"}],
                    "nodes": [{"id": "a", "type": "llm", "action": "{input}", "speak": True, "next": None}]})
    run(manager, "ask", "続けて")
    later = model.prompts[-1]  # whole messages: the offline answer may quote what it was told
    assert speak["text"] in later
    assert not any(holds(later, t) for t in ("脇道: 緑の栞", "迷い: 赤い栞", "作業メモ: 青い栞"))


CHILD = {
    "name": "sub_worker", "description": "a sub-line worker", "input_schema": [{"name": "topic"}],
    "report_template": "調べた結果: {found.title} ({topic})",
    "output_schema": ["found"],
    "nodes": [
        {"id": "note", "type": "memorize", "action": "下調べ: {topic}", "role": "assistant", "tags": ["conversation"],
         "next": "look"},
        {"id": "look", "type": "llm", "action": "{topic} を調べて", "next": "keep",
         "response_schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
         "output_key": "found"},
        {"id": "keep", "type": "set", "assignments": {"done": True}, "next": None}],
    "start_node": "note"}
PARENT = {
    "name": "main_caller", "description": "calls a sub-line", "input_schema": [{"name": "input"}],
    "nodes": [
        {"id": "work", "type": "subplay", "playbook": "sub_worker", "line": "sub", "args": {"topic": "{input}"},
         "next": "tell"},
        {"id": "tell", "type": "llm", "action": "報告: {report_to_parent}", "speak": True, "next": None}],
    "start_node": "work"}


def test_a_sub_line_runs_light_keeps_its_messages_and_hands_back_its_report(
        recorded: tuple[SAIVerseManager, Recording, list[str]], saiverse_home: Path) -> None:
    manager, model, kinds = recorded
    store(manager, CHILD)
    store(manager, PARENT)
    events = run(manager, "main_caller", "月の満ち欠け")
    assert kinds[:1] == ["lightweight"] and kinds[-1] == "normal"  # the sub-line's node, then the caller's
    [(role, line_id, scope)] = stored(saiverse_home, "下調べ: 月の満ち欠け")
    assert role == "sub_line" and line_id and scope == "committed"
    assert not holds(model.prompts[-1], "下調べ: 月の満ち欠け")  # the sub-line's own message stays with it
    report = next(p for p in model.prompts[-1] if "調べた結果:" in p and p.startswith("<system>"))
    assert "(月の満ち欠け)" in report and "{found.title}" not in report
    assert any(e["type"] == "speak" for e in events)


def test_report_template_leaves_an_unset_placeholder_as_written(manager: SAIVerseManager) -> None:
    store(manager, {**CHILD, "name": "plain_worker", "report_template": "結果 {missing.key} / {topic}"})
    store(manager, {**PARENT, "name": "plain_caller", "nodes": [
        {**PARENT["nodes"][0], "playbook": "plain_worker", "line": "main", "output_key": "got", "next": "say"},
        {"id": "say", "type": "say", "action": "{last}", "next": None}]})
    [said] = [e for e in run(manager, "plain_caller", "星") if e["type"] == "say"]
    assert said["text"] == "結果 {missing.key} / 星"


def test_deprecated_fields_are_honoured_and_listed(manager: SAIVerseManager) -> None:
    store(manager, {"name": "old_style", "description": "x", "input_schema": [{"name": "input"}], "nodes": [
        {"id": "a", "type": "llm", "action": "{input}", "context_profile": "worker_light", "model_type": "lightweight",
         "next": None}]})
    report = manager.playbooks.validate(manager.playbooks.get("old_style"))
    assert [d.split(" (")[0] for d in report.deprecated] == ["node 'a': context_profile", "node 'a': model_type"]
    assert all("still honoured" in d for d in report.deprecated) and report.ignored == []
    node = manager.playbooks.get("old_style").nodes[0]
    assert model_type(node) == "lightweight" and model_type(node, sub_line=True) == "lightweight"
    plain = parse_playbook({"name": "p", "nodes": [{"id": "a", "type": "llm", "action": "x", "next": None}]})
    assert model_type(plain.nodes[0]) == "normal" and model_type(plain.nodes[0], sub_line=True) == "lightweight"


BASE = {"name": "newer", "description": "x", "input_schema": [{"name": "input"}],
        "nodes": [{"id": "a", "type": "memorize", "action": "{input}", "next": None}]}


def _with(node: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    return {**BASE, **top, "nodes": [{**BASE["nodes"][0], **(node or {})}]}


def test_a_newer_field_safe_to_ignore_is_named_and_the_playbook_used(manager: SAIVerseManager) -> None:
    data = _with({"retry_policy": None, "hint_en": "remember it", "memorize_extra": False},
                 ui_color="#336699", license="AGPL-3.0")
    pb = manager.playbooks.check_text(json.dumps(data))
    ignored = "\n".join(manager.playbooks.validate(pb).ignored)
    for name in ("ui_color", "license", "'a': retry_policy", "'a': hint_en", "'a': memorize_extra"):
        assert name in ignored, name
    assert json.loads(pb.source_json()) == data  # kept as written: an export gives it back
    manager.playbooks.store(pb, replace=True)
    run(manager, "newer", "覚えておいて")


@pytest.mark.parametrize(("data", "words"), [
    # in the default language (words/_playbooks.py; the English: tests/test_sea_validation.py)
    (_with({"retry_policy": {"max": 3}}), ["'a'", "retry_policy", "動きを変えるかもしれない"]),
    (_with(parallel_lines=2), ["parallel_lines", "動きを変えるかもしれない"]),
    (_with({"scpoe": "volatile"}), ["scpoe", "'scope' のことですか"]),
    (_with({"scope": "forever"}), ["'a'", "scope", "committed"]),
    (_with({"line_role": "side_line"}), ["line_role", "main_line"]),
    ({**BASE, "nodes": [{"id": "a", "type": "llm", "action": "x", "memorize": {"scope": "volatile",
                                                                              "retain_days": 3}, "next": None}]},
     ["memorize.retain_days", "動きを変えるかも"]),
])
def test_a_field_that_may_change_meaning_is_refused_by_name(manager: SAIVerseManager, data: dict[str, Any],
                                                            words: list[str]) -> None:
    with pytest.raises(PlaybookError) as info:
        manager.playbooks.check_text(json.dumps(data))
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    assert manager.playbooks.get("newer") is None


# ---- conformance: upstream's own v0.3 files -------------------------------------------------------

OFFLINE_RUNS = ("basic_chat", "document_create", "memopedia_note", "meta_simple_speak", "meta_user", "sub_speak",
                "sub_think_meta", "track_autonomous", "track_external", "track_user_conversation",
                "autonomy_memory_organization", "meta_autonomy_decision")
"""v0.3 playbooks whose tools are all here and which the offline model carries to the end."""


def test_every_v03_playbook_validates_and_imports_unchanged(manager: SAIVerseManager) -> None:
    files = sorted(compat_v03_path("playbooks").glob("*.json"))
    assert len(files) >= 30
    for path in files:
        pb = manager.playbooks.check_file(path)
        manager.playbooks.store(pb, replace=True)
        assert json.loads(manager.playbooks.get(pb.name).source_json()) == json.loads(path.read_text("utf-8"))
    for path in files:
        name = json.loads(path.read_text("utf-8"))["name"]
        report = manager.playbooks.validate(manager.playbooks.get(name))
        assert not any("line_role" in i or "scope" in i or "report_template" in i for i in report.ignored), name
    restarted = SAIVerseManager(load_settings())
    try:
        assert not restarted.playbooks.broken
    finally:
        restarted.close()


def test_v03_playbooks_with_tools_here_run_offline(manager: SAIVerseManager, saiverse_home: Path) -> None:
    folder = compat_v03_path("playbooks")
    for path in sorted(folder.glob("*.json")):
        manager.playbooks.store(manager.playbooks.check_file(path), replace=True)
    # A user turn through v0.3's meta_user: document_create's record node is `sub_line` + `volatile`, so the
    # document exists and the final speak saw the result, but the result is not kept in memory.
    events = list(manager.handle_user_input("library", "ドキュメントを作成して: 図書館の猫について。三毛猫のミケは窓辺で眠る。"))
    assert [e["status"] for e in events if e["type"] == "pulse_end"] == ["ok"]
    [created] = [e for e in events if e["type"] == "item_created"]
    assert "三毛猫のミケは窓辺で眠る。" in manager.item_view(created["item"]["item_id"])["text"]
    assert "図書館の猫" in next(e["text"] for e in events if e["type"] == "speak")
    for name in OFFLINE_RUNS:
        pb = manager.playbooks.get(name)
        assert manager.playbooks.validate(pb).needs == [], name
        args = {"input": "ドキュメントを作成して: 図書館の猫について。三毛猫のミケは窓辺で眠る。"}
        events = list(manager.run_playbook(pb, "mina", "library", args=args))
        assert [e["status"] for e in events if e["type"] == "pulse_end"] == ["ok"], (name, [
            e for e in events if e["type"] == "error"])
    with sqlite3.connect(saiverse_home / "saiverse.db") as conn:
        kept = conn.execute("SELECT count(*) FROM saimemory WHERE TAGS LIKE '%playbook_result%' "
                            "AND TAGS LIKE '%document_create%'").fetchone()[0]
        assert kept == 0
        roles = {r[0] for r in conn.execute("SELECT DISTINCT LINE_ROLE FROM saimemory WHERE PULSE_ID IS NOT NULL")}
        assert "main_line" in roles
