"""Every size limit holds while the input streams in, with a message naming the limit (issue 13, hole 4).

Uploads are read in chunks and never past the limit (a sparse 3 GB file is refused by its size, an
endless `/dev/zero` after the limit); the UI's attachments are cut off by Gradio's `max_file_size`;
a chat message longer than SAIVERSE_MAX_MESSAGE_CHARS is refused before anything is written; a
document has one limit (the item store's, which the tool reports); a playbook cannot grow a value,
its state or its step count without bound.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import main as cli_main
from saiverse.errors import USER_ERROR_EXIT
from saiverse.manager import SAIVerseManager
from saiverse.settings import Settings, load_settings
from saiverse.world._items import MAX_DOCUMENT_CHARS
from sea.bounds import MAX_GRAPH_STEPS, MAX_PULSE_STEPS, MAX_STATE_CHARS, MAX_VALUE_CHARS
from sea.playbook import parse_playbook
from tests.support.browser import free_port

pytestmark = pytest.mark.usefixtures("in_english")  # the checks' English words; Japanese: test_words_lang


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli_main.main(list(argv))
    return code, capsys.readouterr().err


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- uploads ------------------------------------------------------------------------------------------

def test_upload_of_an_endless_device_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    cli_main.main(["world"])  # the home exists
    started, rss = time.monotonic(), _rss_mb()
    code, err = _cli(capsys, "upload", "--building", "library", "/dev/zero")
    assert code == USER_ERROR_EXIT and len(err.strip().splitlines()) == 1, err
    assert "/dev/zero" in err and "not a regular file" in err
    assert time.monotonic() - started < 5 and _rss_mb() - rss < 100


def test_a_huge_sparse_file_is_refused_by_its_size_unread(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    big = tmp_path / "huge.png"
    with big.open("wb") as fh:
        fh.truncate(3 * 1024**3)  # 3 GB of holes: reading it would take seconds and gigabytes
    cli_main.main(["world"])
    started = time.monotonic()
    code, err = _cli(capsys, "upload", "--building", "library", str(big))
    assert code == USER_ERROR_EXIT and "3072.0 MB" in err and "limit is 20.0 MB" in err, err
    assert time.monotonic() - started < 2


def test_ui_attachments_are_cut_off_at_max_file_size(saiverse_home: Path) -> None:
    from ui.app import build_app, launch_kwargs

    port = free_port()
    settings = Settings(home=saiverse_home, database_url=f"sqlite:///{saiverse_home / 'saiverse.db'}", port=port,
                        max_upload_bytes=256 * 1024)
    saiverse_home.mkdir(parents=True, exist_ok=True)
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    try:
        kwargs = launch_kwargs(settings, port=port)
        assert kwargs["max_file_size"] == 256 * 1024
        app.launch(**kwargs, prevent_thread_lock=True)
        url = f"http://127.0.0.1:{port}/gradio_api/upload"
        big = httpx.post(url, files={"files": ("big.png", b"\x89PNG" + b"\0" * (1024 * 1024))}, timeout=30)
        assert big.status_code == 413 and "maximum allowed size" in big.text
        small = httpx.post(url, files={"files": ("small.png", b"\x89PNG" + b"\0" * 1024)}, timeout=30)
        assert small.status_code == 200
    finally:
        app.close()
        manager.close()


# ---- chat messages ------------------------------------------------------------------------------------

def test_a_chat_message_past_the_limit_is_refused_before_anything_is_written(manager: SAIVerseManager) -> None:
    limit = manager.settings.max_message_chars
    assert limit == 20_000
    history = len(manager.history("library"))
    started = time.monotonic()
    events = list(manager.handle_user_input("library", "あ" * 2_000_000))
    assert time.monotonic() - started < 1
    assert [e["type"] for e in events] == ["error"] and events[0]["kind"] == "bad_request"
    assert "2,000,000" in events[0]["message"] and "20,000" in events[0]["message"]
    assert len(manager.history("library")) == history and manager.memory.count("mina") == 0
    ok = list(manager.handle_user_input("library", "あ" * limit, persona_id="mina"))
    assert ok[-1]["type"] == "pulse_end"


def test_the_message_limit_is_a_setting_and_the_cli_refuses_with_exit_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_MAX_MESSAGE_CHARS", "10")
    assert load_settings().max_message_chars == 10
    code, err = _cli(capsys, "chat", "--persona", "mina", "0123456789ab")
    assert code == USER_ERROR_EXIT and "12 characters" in err and "the limit is 10" in err, err
    code, err = _cli(capsys, "history", "--building", "library", "--json")
    assert code == 0


# ---- documents ----------------------------------------------------------------------------------------

def test_document_size_has_one_limit_and_the_tool_reports_the_stores_message(manager: SAIVerseManager) -> None:
    from tools import ToolError

    with pytest.raises(ToolError, match=f"{MAX_DOCUMENT_CHARS:,}"):
        manager.run_tool("document_create", "mina", "library",
                         {"name": "大きな本", "description": "d", "content": "x" * (MAX_DOCUMENT_CHARS + 1)})
    with pytest.raises(ValueError, match=f"{MAX_DOCUMENT_CHARS:,}"):
        doc = next(i for i in manager.items.list_owned("building", "library") if i.type == "document")
        manager.save_document(doc.item_id, "x" * (MAX_DOCUMENT_CHARS + 1))
    assert not [i for i in manager.items.list_owned("building", "library") if i.name == "大きな本"]
    made = manager.run_tool("document_create", "mina", "library",
                            {"name": "ちょうどの本", "description": "d", "content": "x" * MAX_DOCUMENT_CHARS})
    assert "ちょうどの本" in made


# ---- playbooks ----------------------------------------------------------------------------------------

def _run(m: SAIVerseManager, pb: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
    started = time.monotonic()
    events = list(m.run_playbook(parse_playbook(pb), "mina", "library"))
    return events, time.monotonic() - started


def _doubling(assignment: str) -> dict[str, Any]:
    return {"name": "grow", "nodes": [
        {"id": "init", "type": "set", "assignments": {"s": "x"}, "next": "grow"},
        {"id": "grow", "type": "set", "assignments": {"s": assignment}, "next": "again"},
        {"id": "again", "type": "pass", "conditional_next": {"field": "s", "operator": "eq", "cases": {"": "end"},
                                                            "default": "grow"}},
        {"id": "end", "type": "say", "action": "done", "next": None}], "start_node": "init"}


@pytest.mark.parametrize("assignment", ["={s} + {s}", "{s}{s}", "={s} * 3"])
def test_a_string_doubled_in_a_loop_stops_at_the_value_bound(manager: SAIVerseManager, assignment: str) -> None:
    rss = _rss_mb()
    events, took = _run(manager, _doubling(assignment))
    error = next(e for e in events if e["type"] == "error")
    assert error["kind"] == "state_too_large", error
    assert f"{MAX_VALUE_CHARS:,}" in error["message"] and "'grow'" in error["message"], error
    assert events[-1]["status"] == "error" and took < 5 and _rss_mb() - rss < 200


def test_the_whole_state_is_bounded(manager: SAIVerseManager) -> None:
    """Values each under the bound: their sum stops the run."""
    copies = {f"d{n}": "{c}" for n in range(9)}
    events, _ = _run(manager, {"name": "hoard", "nodes": [
        {"id": "init", "type": "set", "assignments": {"c": "='x' * 9000"}, "next": "big"},
        {"id": "big", "type": "set", "assignments": {"c": "={c} * 100"}, "next": "keep"},
        {"id": "keep", "type": "set", "assignments": copies, "next": "end"},
        {"id": "end", "type": "say", "action": "done", "next": None}], "start_node": "init"})
    error = next(e for e in events if e["type"] == "error")
    assert error["kind"] == "state_too_large" and f"{MAX_STATE_CHARS:,}" in error["message"], error
    assert "'keep'" in error["message"] and events[-1]["status"] == "error"


def test_a_loop_that_never_ends_stops_with_a_message(manager: SAIVerseManager) -> None:
    events, took = _run(manager, {"name": "spin", "nodes": [
        {"id": "a", "type": "pass", "next": "b"}, {"id": "b", "type": "pass", "next": "a"}], "start_node": "a"})
    error = next(e for e in events if e["type"] == "error")
    assert error["kind"] == "too_many_steps" and f"more than {MAX_GRAPH_STEPS} nodes" in error["message"]
    assert "'spin'" in error["message"] and took < 5


def test_the_pulse_step_bound_counts_called_playbooks(manager: SAIVerseManager) -> None:
    manager.playbooks.store(parse_playbook({"name": "busy_child", "nodes": [
        {"id": "init", "type": "set", "assignments": {"n": 0}, "next": "step"},
        {"id": "step", "type": "set", "assignments": {"n": "={n} + 1"}, "next": "loop"},
        {"id": "loop", "type": "pass", "conditional_next": {"field": "n", "operator": "gte", "cases": {"60": None},
                                                           "default": "step"}}], "start_node": "init"}))
    events, _ = _run(manager, {"name": "busy_parent", "nodes": [
        {"id": "call", "type": "subplay", "playbook": "busy_child", "next": "again"},
        {"id": "again", "type": "pass", "next": "call"}], "start_node": "call"})
    error = next(e for e in events if e["type"] == "error")
    assert error["kind"] == "too_many_steps" and f"more than {MAX_PULSE_STEPS:,} nodes" in error["message"]


def test_bounds_leave_normal_playbooks_alone(make_manager: Callable[..., SAIVerseManager]) -> None:
    m = make_manager()
    events = list(m.handle_user_input("library", "猫の本を探して", persona_id="mina"))
    assert events[-1]["status"] == "ok"
