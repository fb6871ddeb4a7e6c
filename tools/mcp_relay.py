"""Between the app and a stdio MCP server: every message passed on as it is, but none longer than a cap.

Run as `python tools/mcp_relay.py LIMIT -- COMMAND…` (tools/mcp_client.py starts stdio servers so).
The SDK's stdio reader joins a message's chunks by copying all it has at every chunk, so a 50 MB
answer took longer than the timeout to read and was reported as "did not answer" (issue 34). Here a
line from the server longer than LIMIT bytes is not passed on: it is read to its end and dropped,
and the caller gets, for the same request id, an error result saying how large it was instead (an
error: the SDK checks a result against the tool's output schema, and an error is exempt). Everything
else — the app's messages to the server, the server's stderr, its exit status — goes through
untouched. The server runs in the relay's process group, so stopping the group stops both.
Standard library only: it runs before and apart from the app.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
"""The request id near the start of a JSON-RPC answer (a result comes after it, or it is found early)."""


def _too_large(head: bytes, size: int, limit: int) -> bytes:
    """The answer sent in place of a line over `limit` bytes: a tool result saying so."""
    found = _ID.search(head[:4096])
    ident = json.loads(found.group(1)) if found else None
    text = (f"[結果が大きすぎるため受け取りませんでした: {size:,} バイト以上 (上限 {limit:,} バイト)。"
            f" The result was dropped: at least {size:,} bytes, over the {limit:,}-byte cap.]")
    answer = {"jsonrpc": "2.0", "id": ident,
              "result": {"content": [{"type": "text", "text": text}], "isError": True}}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"


def _to_server(child: subprocess.Popen[bytes]) -> None:
    assert child.stdin is not None
    try:
        for line in sys.stdin.buffer:
            child.stdin.write(line)
            child.stdin.flush()
    except (BrokenPipeError, OSError):
        pass
    finally:
        try:
            child.stdin.close()
        except OSError:
            pass


def main(argv: list[str]) -> int:
    limit = int(argv[0])
    command = argv[argv.index("--") + 1:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    threading.Thread(target=_to_server, args=(child,), daemon=True).start()
    assert child.stdout is not None
    out = sys.stdout.buffer
    line = bytearray()
    head, dropped = b"", 0
    while chunk := child.stdout.read1(1 << 16):
        while chunk:
            end = chunk.find(b"\n")
            part, chunk = (chunk, b"") if end < 0 else (chunk[:end + 1], chunk[end + 1:])
            if dropped:
                dropped += len(part)
            elif len(line) + len(part) > limit:
                head, dropped = (bytes(line[:4096]) + part[:4096])[:4096], len(line) + len(part)
                line.clear()
            else:
                line += part
            if part.endswith(b"\n"):
                if dropped:
                    out.write(_too_large(head, dropped, limit))
                    dropped = 0
                else:
                    out.write(bytes(line))
                    line.clear()
                out.flush()
    return child.wait()


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    # Not sys.exit: the thread reading stdin holds its lock, and an interpreter shutting down around it
    # writes "Fatal Python error … <no Python frame>" to stderr — over the server's own last words.
    os._exit(status if status >= 0 else 128 - status)
