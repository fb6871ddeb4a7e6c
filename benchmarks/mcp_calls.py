"""MCP tool calls: the first call (start + handshake) and calls on the kept session, stdio and HTTP.

    python benchmarks/mcp_calls.py [--calls 50]

Runs the tests' FastMCP server (tests/support/mcp_server.py) over stdio and over streamable HTTP on a free
loopback port, and times `McpClient.call_tool("add")` as a persona's tool call makes it. The last line
is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.mcp_client import McpClient, McpServer, close_all  # noqa: E402

SERVER = ROOT / "tests" / "support" / "mcp_server.py"


def measure(server: McpServer, calls: int) -> dict[str, float]:
    client = McpClient(60)
    started = time.perf_counter()
    client.call_tool(server, "add", {"a": 1, "b": 2})
    first = time.perf_counter() - started
    times = []
    for i in range(calls):
        t = time.perf_counter()
        assert client.call_tool(server, "add", {"a": i, "b": 1}) == i + 1
        times.append(time.perf_counter() - t)
    times.sort()
    return {"first_s": round(first, 3), "p50_ms": round(statistics.median(times) * 1000, 2),
            "p95_ms": round(times[int(len(times) * 0.95) - 1] * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    calls = parser.parse_args().calls
    figures = {"stdio": measure(McpServer("b", command=(sys.executable, str(SERVER))), calls)}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(SERVER), "http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        figures["http"] = measure(McpServer("h", url=f"http://127.0.0.1:{port}/mcp"), calls)
    finally:
        close_all()
        proc.terminate()
        proc.wait(10)
    for kind, f in figures.items():
        print(f"{kind}: first call {f['first_s']} s, then p50 {f['p50_ms']} ms, p95 {f['p95_ms']} ms")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
