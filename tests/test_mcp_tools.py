"""MCP tools against a real MCP server (tests/support/mcp_server.py, the SDK's FastMCP) over stdio and streamable HTTP.

A persona's servers live in settings.json; their tools reach its playbooks as `<server>__<tool>`; a
server that hangs or crashes is named in a `mcp_unavailable` notice and the pulse goes on without it.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chat import ToolCall
from saiverse.manager import SAIVerseManager
from saiverse.mcp_tools import read_servers, save_servers
from saiverse.settings import SettingsError, SettingsStore, load_settings
from sea.playbook import parse_playbook
from tests.support.mcp_entries import SERVER, stdio
from tests.support.models import ScriptedModel
from tools.mcp_client import close_all
from tools.registry import ToolArgumentError, ToolError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    """The file the test server appends each call to."""
    return tmp_path / "mcp-calls.log"


@pytest.fixture
def http_url(tmp_path: Path, calls: Path) -> Iterator[str]:
    """A FastMCP server over streamable HTTP on a free loopback port, in a subprocess."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(SERVER), "http", str(port)], env={**os.environ, "MCP_TEST_LOG": str(calls)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the test MCP server did not start") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        close_all()  # the kept session ends politely while its server still runs
        proc.terminate()
        proc.wait(10)


def test_config_is_checked_and_nothing_is_written_when_refused(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True, exist_ok=True)
    bad = [
        ([{"name": "a b", "command": ["x"]}], "name must be"),
        ([{"name": "a", "command": ["x"], "url": "http://h/mcp"}], "exactly one of command"),
        ([{"name": "a", "command": "python server.py"}], "command must be a non-empty list"),
        ([{"name": "a", "url": "ftp://h"}], "url must be an http"),
        ([{"name": "a", "command": ["x"]}, {"name": "a", "url": "http://h/mcp"}], "two servers are named 'a'"),
        ([{"name": "a", "command": ["x"], "port": 3}], "unknown field port"),
    ]
    for raw, words in bad:
        with pytest.raises(SettingsError, match=words):
            save_servers(saiverse_home, "mina", raw)
    assert not (saiverse_home / "settings.json").exists()


def test_servers_survive_a_settings_tab_save_and_the_file_stays_private(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True, exist_ok=True)
    save_servers(saiverse_home, "mina", [stdio("calc", MCP_TEST_SECRET="s3cr3t-value")])
    store = SettingsStore(load_settings())
    store.save({"default_model": "offline"})
    data = json.loads((saiverse_home / "settings.json").read_text(encoding="utf-8"))
    assert data["default_model"] == "offline"
    assert data["mcp_servers"]["mina"][0]["env"] == {"MCP_TEST_SECRET": "s3cr3t-value"}
    assert stat.S_IMODE((saiverse_home / "settings.json").stat().st_mode) == 0o600
    servers = read_servers(saiverse_home)["mina"]
    assert "s3cr3t-value" not in servers[0].describe()  # how a server is shown never carries env values
    save_servers(saiverse_home, "mina", [])
    assert "mcp_servers" not in json.loads((saiverse_home / "settings.json").read_text(encoding="utf-8"))


def test_stdio_tool_runs_from_a_playbook_and_its_result_comes_back(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path, calls: Path) -> None:
    model = ScriptedModel()
    m = make_manager(model)
    save_servers(saiverse_home, "mina", [stdio("calc", MCP_TEST_LOG=str(calls))])
    # The model is offered the tool with the server's own schema, and calls it.
    model.enqueue("", tool_calls=[ToolCall(name="calc__shout", arguments={"text": "hello", "times": 2})])
    pb = parse_playbook({"name": "use_mcp", "nodes": [
        {"id": "sum", "type": "tool", "action": "calc__add", "args_input": {"a": {"$literal": 2}, "b": {"$literal": 40}},
         "output_key": "total", "next": "ask"},
        {"id": "ask", "type": "llm", "action": "使えるツールで叫んで", "available_tools": ["calc__shout", "calc__add"],
         "next": "act"},
        {"id": "act", "type": "tool_call", "call_source": "tool_call", "next": None},
    ]})
    events = list(m.run_playbook(pb, "mina", "library"))
    results = [e["result"] for e in events if e["type"] == "tool_result"]
    assert results == [42, "HELLO HELLO"]
    assert calls.read_text(encoding="utf-8").splitlines() == ["add 2 40", "shout hello"]
    offered = {t["name"]: t["parameters"] for t in model.history[0].tools}
    assert set(offered) == {"calc__shout", "calc__add"}
    assert offered["calc__add"]["required"] == ["a", "b"]
    assert offered["calc__add"]["properties"]["a"]["type"] == "integer"
    assert not [e for e in events if e["type"] == "error"]
    # Another persona does not have mina's servers.
    with pytest.raises(ToolError, match="unknown tool 'calc__add'"):
        m.run_tool("calc__add", "sora", None, {"a": 1, "b": 2})


def test_cli_tool_command_reaches_the_server_and_checks_arguments_first(
        saiverse_home: Path, calls: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                              timeout=120, cwd=ROOT, env={**os.environ, "SAIVERSE_RAISE_ERRORS": ""})

    assert cli("tool", "list_city_buildings", "--persona", "mina").returncode == 0  # the home is made and seeded
    save_servers(saiverse_home, "mina", [stdio("calc", MCP_TEST_LOG=str(calls), MCP_TEST_SECRET="s3cr3t-value")])
    done = cli("tool", "calc__secret_word", "--persona", "mina")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "s3cr3t-value"  # env reaches a stdio server
    bad = cli("tool", "calc__add", "--persona", "mina", "--args", '{"a": "two", "b": 1}')
    assert bad.returncode == 2
    assert "calc__add" in bad.stderr and "'two' is not of type 'integer'" in bad.stderr
    assert not calls.exists()  # refused before any call
    failed = cli("tool", "calc__fail", "--persona", "mina", "--args", '{"reason": "no paper"}')
    assert failed.returncode == 2 and "no paper" in failed.stderr


def test_http_server_tools_are_offered_and_called(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path, http_url: str, calls: Path) -> None:
    m = make_manager()
    save_servers(saiverse_home, "mina", [{"name": "web", "url": http_url}])
    specs = m._tool_specs(["web__add", "calc__add", "list_city_buildings"], "mina")
    assert [s["name"] for s in specs] == ["list_city_buildings", "web__add"]
    every = [s["name"] for s in m._tool_specs(["mcp__*"], "mina")]
    assert every == [s["name"] for s in m._tool_specs(["web__*"], "mina")]
    assert {"web__add", "web__shout", "web__nap"} <= set(every)
    assert m._tool_specs(["mcp__*"], "sora") == []
    assert specs[1]["description"] == "Add two integers."
    assert m.run_tool("web__add", "mina", None, {"a": 20, "b": 22}) == 42
    assert calls.read_text(encoding="utf-8").splitlines() == ["add 20 22"]
    with pytest.raises(ToolArgumentError, match="'b' is a required property"):
        m.run_tool("web__add", "mina", None, {"a": 1})


def test_hanging_and_crashing_servers_are_named_and_the_pulse_goes_on(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_MCP_TIMEOUT", "4")
    m = make_manager(ScriptedModel())
    assert m.settings.mcp_timeout == 4.0
    save_servers(saiverse_home, "mina", [stdio("sleepy", "hang"), stdio("broken", "crash", MCP_TEST_SECRET="s3cr3t-value")])
    pb = parse_playbook({"name": "offer_mcp", "nodes": [
        {"id": "ask", "type": "llm", "action": "こんにちは", "available_tools": ["sleepy__add", "broken__add",
                                                                           "list_city_buildings"], "next": "tell"},
        {"id": "tell", "type": "speak", "action": "続けます。", "next": None},
    ]})
    started = time.monotonic()
    events = list(m.run_playbook(pb, "mina", "library"))
    notices = [e for e in events if e["type"] == "notice" and e.get("kind") == "mcp_unavailable"]
    assert sorted(n["server"] for n in notices) == ["broken", "sleepy"]
    hang = next(n for n in notices if n["server"] == "sleepy")
    assert "4 s" in hang["text"] and hang["persona_id"] == "mina"
    crash = next(n for n in notices if n["server"] == "broken")
    assert "cannot start" in crash["text"]
    assert all("s3cr3t-value" not in json.dumps(e, ensure_ascii=False) for e in events)
    assert any(e["type"] == "speak" and "続けます" in e.get("text", "") for e in events), events
    assert not [e for e in events if e["type"] == "error"]
    assert time.monotonic() - started < 60
    # Within the back-off the failed servers are skipped at once, and a direct call says why.
    with pytest.raises(ToolError, match="MCP server 'sleepy' did not answer"):
        m.run_tool("sleepy__add", "mina", None, {"a": 1, "b": 2})


def test_cli_mcp_command_sets_and_checks_servers(saiverse_home: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                              timeout=120, cwd=ROOT, env={**os.environ, "SAIVERSE_RAISE_ERRORS": "",
                                                          "SAIVERSE_MCP_TIMEOUT": "30"})

    refused = cli("mcp", "--persona", "mina", "--set", '[{"name": "x y", "command": ["python"]}]')
    assert refused.returncode == 2 and "name must be" in refused.stderr
    assert read_servers(saiverse_home) == {}  # nothing written
    servers = json.dumps([stdio("calc"), stdio("broken", "crash")])
    done = cli("mcp", "--persona", "mina", "--set", servers, "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert "calc__add" in rows["calc"]["tools"] and rows["calc"]["error"] == ""
    assert rows["broken"]["tools"] == [] and "broken" in rows["broken"]["error"]
    assert read_servers(saiverse_home)["mina"][0].name == "calc"


def test_a_call_that_hangs_times_out_is_named_and_the_server_is_skipped_after(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_MCP_TIMEOUT", "15")
    m = make_manager()
    save_servers(saiverse_home, "mina", [stdio("calc")])
    heard: list[dict[str, Any]] = []
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"calc__nap.*MCP server 'calc' did not answer within 15 s"):
        m.run_tool("calc__nap", "mina", None, {"seconds": 300}, notify=heard.append)
    assert time.monotonic() - started < 60
    assert [(n["kind"], n["server"]) for n in heard] == [("mcp_unavailable", "calc")]
    assert m._tool_specs(["calc__add"], "mina") == []  # left out for a while: a pulse does not wait again


def test_concurrent_saves_of_servers_and_settings_lose_nothing(saiverse_home: Path) -> None:
    import threading

    saiverse_home.mkdir(parents=True, exist_ok=True)
    store = SettingsStore(load_settings())
    personas = [f"p{i}" for i in range(8)]

    def save(persona_id: str) -> None:
        save_servers(saiverse_home, persona_id, [{"name": "web", "url": f"http://127.0.0.1:9/{persona_id}"}])
        store.save({"default_model": "offline"})

    threads = [threading.Thread(target=save, args=(p,)) for p in personas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(read_servers(saiverse_home)) == personas
    assert json.loads((saiverse_home / "settings.json").read_text(encoding="utf-8"))["default_model"] == "offline"


def test_a_stdio_server_is_kept_between_calls_and_restarted_once_when_it_went_away(
        make_manager: Callable[..., SAIVerseManager], saiverse_home: Path) -> None:
    import signal

    m = make_manager()
    save_servers(saiverse_home, "mina", [stdio("calc")])
    first = m.run_tool("calc__pid", "mina", None, {})
    assert m.run_tool("calc__pid", "mina", None, {}) == first  # the same process answered
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(first, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    second = m.run_tool("calc__pid", "mina", None, {})  # no error: started afresh
    assert second != first
