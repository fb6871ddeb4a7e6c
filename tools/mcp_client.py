"""Talking to Model Context Protocol servers through the official `mcp` SDK, one bounded exchange at a time.

A server is a stdio command (argv list, optional extra env) or a streamable-HTTP URL (`McpServer`). Every
exchange — list the tools, or call one — opens a session, runs, and closes it, all under one deadline
(`anyio.fail_after`): a server that hangs costs at most the timeout and its process is stopped with the
session, a server that crashes fails that exchange only. The SDK is async; its coroutines run on one
background event loop thread shared by the process (`_loop`), so callers (pulse threads, the CLI) stay
synchronous. Errors come back as `McpUnavailable` (the server could not be reached or did not answer in
time) or `McpToolFailed` (the server ran the tool and reported an error). Values of `env` are never
put in a message: they are often API keys (docs/ARCHITECTURE.md, "MCP tools").
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
"""What a server may be called (its name prefixes its tools: `<server>__<tool>`)."""


class McpUnavailable(Exception):
    """The server could not be started or reached, or did not answer within the timeout."""


class McpToolFailed(Exception):
    """The server ran the tool and answered with an error (`isError`)."""


@dataclass(frozen=True)
class McpServer:
    """One configured MCP server: exactly one of `command` (stdio) and `url` (streamable HTTP)."""

    name: str
    command: tuple[str, ...] = ()
    """argv of a stdio server (the first item is the program)."""
    env: tuple[tuple[str, str], ...] = ()
    """Extra environment of a stdio server (values are secret: never shown or logged)."""
    url: str = ""
    """Endpoint of a streamable-HTTP server (`http://127.0.0.1:PORT/mcp`)."""

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def describe(self) -> str:
        """How the server is reached, without env values: `stdio: python server.py` / `http: URL`."""
        if self.command:
            keys = f" (env: {', '.join(k for k, _ in self.env)})" if self.env else ""
            return "stdio: " + " ".join(self.command) + keys
        return "http: " + self.url


@dataclass(frozen=True)
class McpTool:
    """A tool a server offers: its own name, description and JSON schema of its arguments."""

    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The process's MCP event loop, started on first use in a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="saiverse-mcp", daemon=True).start()
            _loop = loop
        return _loop


def _first_error(exc: BaseException) -> BaseException:
    """The first real error inside task-group exception groups (what actually went wrong)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _redact(text: str, server: McpServer) -> str:
    for _, value in server.env:
        if value and len(value) >= 4:
            text = text.replace(value, "****")
    return text


class McpClient:
    """Runs bounded exchanges with MCP servers (thread-safe; one shared background loop)."""

    def __init__(self, timeout: float = 20.0) -> None:
        self.timeout = timeout
        """Seconds one exchange (start, handshake and the request) may take in all."""

    def list_tools(self, server: McpServer) -> list[McpTool]:
        """The server's tools (`tools/list`); McpUnavailable when it fails or hangs."""

        async def op(session: Any) -> list[McpTool]:
            tools: list[McpTool] = []
            cursor = None
            while True:
                page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                tools += [McpTool(t.name, t.description or "", dict(t.inputSchema or {})) for t in page.tools]
                cursor = page.nextCursor
                if not cursor:
                    return tools

        return self._run(server, op)

    def call_tool(self, server: McpServer, tool: str, arguments: dict[str, Any]) -> Any:
        """Call `tool` with `arguments`; its result as a value (structured content, else text)."""

        async def op(session: Any) -> Any:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=timedelta(seconds=self.timeout))
            return _result_value(result)

        return self._run(server, op)

    # ---- one exchange -----------------------------------------------------------------------------
    def _run(self, server: McpServer, op: Any) -> Any:
        future = asyncio.run_coroutine_threadsafe(self._exchange(server, op), _background_loop())
        try:
            return future.result(self.timeout + 15)  # the inner deadline fires first; this is a backstop
        except TimeoutError as exc:
            future.cancel()
            raise McpUnavailable(f"did not answer within {self.timeout:g} s") from exc

    async def _exchange(self, server: McpServer, op: Any) -> Any:
        from mcp import ClientSession

        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
            try:
                with anyio.fail_after(self.timeout):
                    async with self._transport(server, errlog) as streams, \
                            ClientSession(streams[0], streams[1]) as session:
                        await session.initialize()
                        return await op(session)
            except McpToolFailed:
                raise
            except TimeoutError as exc:
                raise McpUnavailable(f"did not answer within {self.timeout:g} s") from exc
            except BaseException as exc:  # noqa: BLE001 - every transport failure names the server
                inner = _first_error(exc)
                if isinstance(inner, McpToolFailed):
                    raise inner from None
                if isinstance(inner, TimeoutError):
                    raise McpUnavailable(f"did not answer within {self.timeout:g} s") from exc
                if isinstance(inner, (KeyboardInterrupt, SystemExit)):
                    raise
                detail = str(inner) or type(inner).__name__
                errlog.flush()
                errlog.seek(0)
                tail = errlog.read()[-300:].strip().splitlines()
                if tail:
                    detail += f" (stderr: {tail[-1]})"
                raise McpUnavailable(_redact(detail, server)) from None

    def _transport(self, server: McpServer, errlog: Any) -> Any:
        if server.command:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            params = StdioServerParameters(command=server.command[0], args=list(server.command[1:]),
                                           env=dict(server.env) or None)
            return stdio_client(params, errlog=errlog)
        from contextlib import asynccontextmanager

        import httpx
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        @asynccontextmanager
        async def http() -> Any:
            async with create_mcp_http_client(timeout=httpx.Timeout(self.timeout)) as client, \
                    streamable_http_client(server.url, http_client=client) as (read, write, _):
                yield read, write

        return http()


def _result_value(result: Any) -> Any:
    """A CallToolResult as what a playbook gets: the structured result when there is one, else the text."""
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    others = [c.type for c in result.content if getattr(c, "type", "") != "text"]
    if result.isError:
        raise McpToolFailed(" ".join(texts).strip() or "the server reported an error")
    structured = result.structuredContent
    if isinstance(structured, dict):
        # FastMCP wraps a non-object return value as {"result": value}.
        return structured["result"] if set(structured) == {"result"} else structured
    text = "\n".join(texts)
    if others:
        text += ("\n" if text else "") + f"[{', '.join(others)} content not shown]"
    return text
