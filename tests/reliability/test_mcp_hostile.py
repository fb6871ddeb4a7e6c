"""Hostile and broken MCP servers (issue 34), real servers over stdio (tests/support/mcp_server.py, the SDK's FastMCP):

- a server that hangs is stopped with the CLI command that started it (it was adopted by init);
- a tool result larger than a prompt should take is cut to MAX_RESULT_BYTES / MAX_RESULT_TOKENS and
  says so (5 MB passed whole);
- a tool whose schema refers to a remote `$ref` is refused in one line (the CLI exited 1 with
  `_WrappedReferencingError`); names that are not plain identifiers (`a/../b`, `*`, 300 characters)
  are refused, so `<server>__*` only ever means the wildcard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.mcp_tools import MAX_RESULT_BYTES, save_servers
from tests.support.mcp_entries import SERVER, stdio
from tools.registry import ToolError

ROOT = Path(__file__).resolve().parents[2]


def _running(marker: str) -> list[int]:
    """Processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_hung_server_ends_with_the_command_that_started_it(saiverse_home: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    save_servers(saiverse_home, "mina", [{"name": "sleepy", "command": [sys.executable, str(SERVER), "hang", marker]}])
    env = {**os.environ, "SAIVERSE_MCP_TIMEOUT": "2"}
    for argv in (["mcp", "--persona", "mina", "--json"], ["tool", "--persona", "mina", "sleepy__add", "--args", "{}"]):
        done = subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                              timeout=120, env=env, cwd=ROOT)
        assert "Traceback" not in done.stderr, done.stderr
        time.sleep(0.5)
        assert _running(marker) == [], f"{argv}: the hung server outlived the command"


def test_a_huge_result_is_cut_and_says_so(make_manager: Callable[..., SAIVerseManager], saiverse_home: Path) -> None:
    m = make_manager()
    save_servers(saiverse_home, "mina", [stdio("calc")])
    small = m.run_tool("calc__big", "mina", None, {"size": 999})
    assert len(small.encode()) == 999 and "切り詰め" not in small
    result = m.run_tool("calc__big", "mina", None, {"size": 3_999_999})
    assert "結果を切り詰めました" in result and "3,999,999 バイト" in result
    assert len(result.encode()) < MAX_RESULT_BYTES + 1000


def test_a_50_mb_result_is_refused_quickly_not_a_timeout(make_manager: Callable[..., SAIVerseManager],
                                                         saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_MCP_TIMEOUT", "8")
    m = make_manager()
    save_servers(saiverse_home, "mina", [stdio("calc")])
    started = time.monotonic()
    with pytest.raises(ToolError, match="結果が大きすぎるため受け取りませんでした: [0-9,]+ バイト以上 \\(上限 16,777,216 バイト\\)") as refused:
        m.run_tool("calc__big", "mina", None, {"size": 50_000_001})
    assert "did not answer" not in str(refused.value) and time.monotonic() - started < 60
    assert m.run_tool("calc__add", "mina", None, {"a": 2, "b": 3}) == 5  # the session goes on


def test_remote_refs_and_odd_names_are_refused(make_manager: Callable[..., SAIVerseManager], saiverse_home: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    m = make_manager()
    save_servers(saiverse_home, "mina", [{"name": "odd", "command": [sys.executable, str(SERVER), "odd"]}])
    offered = {s["name"] for s in m._tool_specs(["odd__*"], "mina")}
    assert offered and all(n.startswith("odd__") for n in offered)
    assert not offered & {"odd__a/../b", "odd__*", "odd__" + "x" * 300, "odd__remote"}
    assert "odd__add" in offered and "odd__shout" in offered
    with pytest.raises(ToolError, match="refers to 'http://127.0.0.1:9/schema.json' outside itself"):
        m.run_tool("odd__remote", "mina", None, {"a": 1})
    for odd in ("a/../b", "*", "x" * 300):
        with pytest.raises(ToolError, match="not a plain identifier"):
            m.run_tool(f"odd__{odd}", "mina", None, {"a": 1, "b": 2})
    assert m.run_tool("odd__add", "mina", None, {"a": 1, "b": 2}) == 3
    refusals = [r for r in caplog.records if "tools refused" in r.getMessage()]
    assert len(refusals) == 1  # one line for the server, however many tools


def test_the_cli_names_a_remote_ref_in_one_line(saiverse_home: Path) -> None:
    save_servers(saiverse_home, "mina", [{"name": "odd", "command": [sys.executable, str(SERVER), "odd"]}])
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "tool", "--persona", "mina", "odd__remote",
                           "--args", json.dumps({"a": 1})], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SAIVERSE_RAISE_ERRORS": ""}, cwd=ROOT)
    assert "Traceback" not in done.stderr and "_WrappedReferencingError" not in done.stderr + done.stdout
    said = done.stdout + done.stderr
    assert "outside itself" in said, said
