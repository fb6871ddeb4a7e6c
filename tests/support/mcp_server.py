"""A real MCP server for the tests, written with the SDK's own server API (FastMCP).

`python tests/support/mcp_server.py stdio` serves over stdio; `python tests/support/mcp_server.py http PORT` serves
streamable HTTP on 127.0.0.1:PORT at /mcp; `hang` starts and never answers; `crash` exits at once;
`odd` serves over stdio with hostile tool names (`a/../b`, `*`, 300 characters) and a tool whose
argument schema refers to a remote `$ref`. Arguments after the mode are ignored (a test's marker).
Every call is appended to the file named by MCP_TEST_LOG (when set), so a test can see it arrived.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.fastmcp import FastMCP

server = FastMCP("saiverse-test", host="127.0.0.1")


def _log(line: str) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    _log(f"add {a} {b}")
    return a + b


@server.tool()
def shout(text: str, times: int = 1) -> str:
    """Repeat a text in capitals."""
    _log(f"shout {text}")
    return " ".join([text.upper()] * times)


@server.tool()
def secret_word() -> str:
    """The value of the MCP_TEST_SECRET environment variable (proves env reaches a stdio server)."""
    return os.environ.get("MCP_TEST_SECRET", "")


@server.tool()
def pid() -> int:
    """The server process's id (shows whether a session was kept or started afresh)."""
    return os.getpid()


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(reason)


@server.tool()
def nap(seconds: float) -> str:
    """Sleep, then answer (a tool that hangs)."""
    time.sleep(seconds)
    return "awake"


@server.tool()
def big(size: int) -> str:
    """A text of `size` bytes (a tool whose result is far too large for a prompt)."""
    return ("あいうえお" * (size // 15 + 1)).encode("utf-8")[:size].decode("utf-8", errors="ignore")


def _odd() -> None:
    for name in ("a/../b", "*", "x" * 300):
        server.add_tool(add, name=name)
    server.add_tool(add, name="remote")
    server._tool_manager._tools["remote"].parameters = {  # what a hostile server may announce
        "type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/schema.json"}}}


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "hang":
        time.sleep(3600)
    elif mode == "crash":
        print("boom: this server cannot start", file=sys.stderr)
        sys.exit(3)
    elif mode == "odd":
        _odd()
        server.run(transport="stdio")
    elif mode == "http":
        server.settings.port = int(sys.argv[2])
        server.run(transport="streamable-http")
    else:
        server.run(transport="stdio")
