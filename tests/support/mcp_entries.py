"""A persona's settings.json entry for the test MCP server (tests/support/mcp_server.py), started over stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("mcp_server.py")


def stdio(name: str, mode: str = "stdio", **env: str) -> dict[str, Any]:
    """The server entry `name`, running tests/support/mcp_server.py in `mode` with `env` added."""
    entry: dict[str, Any] = {"name": name, "command": [sys.executable, str(SERVER), mode]}
    if env:
        entry["env"] = env
    return entry
