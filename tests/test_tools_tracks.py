"""Upstream v0.3's track_* and note_* tools, called with upstream's argument names: the rules of tracks
(one running, persistent ones never finished) and notes (opened on tracks), on a real home; and a
playbook written for upstream calls them unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from tests.support.compat import compat_v03_path
from tests.support.threads import together
from tools import TOOL_REGISTRY, ToolArgumentError, ToolError


def call(m: SAIVerseManager, name: str, **args: Any) -> Any:
    return json.loads(m.run_tool(name, "mina", None, args))


def test_one_track_runs_at_a_time_and_persistent_ones_never_finish(manager: SAIVerseManager) -> None:
    talk = call(manager, "track_create", track_type="user_conversation", title="会話", is_persistent=True,
                output_target="building:current", activate=True)
    assert talk["status"] == "running" and talk["is_persistent"]
    work = call(manager, "track_create", track_type="autonomous", title="本の整理", intent="棚を並べ替える",
                metadata='{"shelf": 3}')
    assert work["status"] == "unstarted" and work["metadata"] == {"shelf": 3}
    assert call(manager, "track_activate", track_id=work["track_id"])["status"] == "running"
    listed = call(manager, "track_list")
    assert [t["status"] for t in listed] == ["running", "pending"]  # activating sent the other to pending
    assert [t["track_id"] for t in call(manager, "track_list", statuses=["pending"])] == [talk["track_id"]]
    with pytest.raises(ToolError, match="持続するトラック"):
        call(manager, "track_complete", track_id=talk["track_id"])
    assert call(manager, "track_parameter_set", track_id=work["track_id"], parameter_name="progress",
                value=0.5)["metadata"] == {"shelf": 3, "parameters": {"progress": 0.5}}
    done = call(manager, "track_complete", track_id=work["track_id"])
    assert done["status"] == "completed" and done["completed_at"]
    with pytest.raises(ToolError, match="completed"):
        call(manager, "track_activate", track_id=work["track_id"])
    with pytest.raises(ToolError, match="実行中ではありません"):
        call(manager, "track_pause", track_id=talk["track_id"])
    with pytest.raises(ToolError, match="'nope' はありません"):
        call(manager, "track_abort", track_id="nope")
    with pytest.raises(ToolError, match="JSON"):
        call(manager, "track_create", track_type="autonomous", metadata="[1, 2]")


def test_notes_open_on_the_running_track_and_stay_when_closed(manager: SAIVerseManager) -> None:
    with pytest.raises(ToolArgumentError, match="note_type"):
        call(manager, "note_create", title="x", note_type="diary")
    note = call(manager, "note_create", title="ユーザー", note_type="person", description="ユーザーとの関係")
    with pytest.raises(ToolError, match="実行中のトラックがありません"):
        call(manager, "note_open", note_id=note["note_id"])
    track = call(manager, "track_create", track_type="social", title="おしゃべり", activate=True)
    opened = call(manager, "note_open", note_id=note["note_id"])
    assert opened["track_id"] == track["track_id"] and [n["title"] for n in opened["open_notes"]] == ["ユーザー"]
    assert [n["title"] for n in call(manager, "note_search", query="ユーザ", note_type="person")] == ["ユーザー"]
    assert call(manager, "note_search", note_type="project") == []
    closed = call(manager, "note_close", note_id=note["note_id"], track_id=track["track_id"])
    assert closed["open_notes"] == [] and len(call(manager, "note_search")) == 1
    with pytest.raises(ToolError, match="開かれていません"):
        call(manager, "note_close", note_id=note["note_id"])


def test_concurrent_activations_leave_exactly_one_running(manager: SAIVerseManager) -> None:
    ids = [call(manager, "track_create", track_type="autonomous", title=f"作業{i}")["track_id"] for i in range(6)]
    _results, errors = together(lambda track_id: call(manager, "track_activate", track_id=track_id), ids)
    assert not errors
    assert [t["status"] for t in call(manager, "track_list")].count("running") == 1


def test_the_tools_take_upstreams_argument_names() -> None:
    upstream = json.loads(compat_v03_path("tool-arguments.json").read_text(encoding="utf-8"))
    for name in ("track_list", "track_create", "track_activate", "track_pause", "track_complete", "track_abort",
                 "track_parameter_set", "note_create", "note_open", "note_close", "note_search"):
        ours = TOOL_REGISTRY[name].parameters
        assert set(ours.get("properties", {})) == set(upstream[name].get("properties", {})), name
        assert set(ours.get("required", [])) == set(upstream[name].get("required", [])), name
