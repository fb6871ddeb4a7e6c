"""A real MCP server for the tests, written with the SDK's own server API (FastMCP).

`python tests/mcp_server.py stdio` serves over stdio; `python tests/mcp_server.py http PORT` serves
streamable HTTP on 127.0.0.1:PORT at /mcp; `hang` starts and never answers; `crash` exits at once.
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


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "hang":
        time.sleep(3600)
    elif mode == "crash":
        print("boom: this server cannot start", file=sys.stderr)
        sys.exit(3)
    elif mode == "http":
        server.settings.port = int(sys.argv[2])
        server.run(transport="streamable-http")
    else:
        server.run(transport="stdio")
