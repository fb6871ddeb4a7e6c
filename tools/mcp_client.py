"""Talking to Model Context Protocol servers through the official `mcp` SDK, one bounded exchange at a time.

A server is a stdio command (argv list, optional extra env) or a streamable-HTTP URL (`McpServer`). Each
server gets one live session (`_Connection`), opened on first use and kept for the next exchanges (a
stdio server keeps running; it is closed after `IDLE_CLOSE` seconds unused and at exit). Every exchange —
list the tools, or call one — is bounded by one deadline that covers starting, the handshake and the
request: a server that hangs costs at most the timeout and its connection (and process) is closed, a
server that crashes fails that exchange only, and a kept server that went away while idle is started
afresh once. The SDK is async; its coroutines run on one background event loop thread shared by the
process (`_background_loop`), so callers (pulse threads, the CLI) stay synchronous.
Errors come back as `McpUnavailable` (the server could not be reached or did not answer in
time) or `McpToolFailed` (the server ran the tool and reported an error). Values of `env` are never
put in a message: they are often API keys (docs/ARCHITECTURE.md, "MCP tools").
"""

from __future__ import annotations

import asyncio
import atexit
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

RELAY = Path(__file__).with_name("mcp_relay.py")
RELAY_LIMIT = 16 * 1024 * 1024
"""Bytes one message of a stdio server may have (tools/mcp_relay.py); saiverse/mcp_tools.py cuts a
result further to what a prompt may take."""
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
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """Extra environment of a stdio server (values are secret: never shown or logged, not in repr)."""
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
            atexit.register(close_all)
        return _loop


def close_all(wait: float = 5.0) -> None:
    """Close every live connection (stdio servers' processes end), waiting up to `wait` seconds — also
    for connections closed earlier whose server is still being stopped (a hung one takes the SDK ~4 s:
    stdin closed, 2 s, then SIGTERM and SIGKILL); then any server process of ours still there is killed
    (`_kill_leftovers`). Issue 34: a hung server outlived the CLI command that started it."""
    loop = _loop
    if loop is not None and not loop.is_closed() and loop.is_running():
        async def close() -> None:
            tasks = [conn.task for conn in list(_pool.values())] + list(_closing)
            for conn in list(_pool.values()):
                conn.close()
            if tasks:
                await asyncio.wait(tasks, timeout=wait)

        try:
            asyncio.run_coroutine_threadsafe(close(), loop).result(wait + 1)
        except (TimeoutError, RuntimeError):
            pass
    _kill_leftovers()


def _kill_leftovers() -> None:
    """Kill the stdio servers this process started that still run (children of ours whose command line
    is one we started), with whatever they started: psutil, so it holds on every system."""
    if not _started:
        return
    import psutil

    try:
        children = psutil.Process().children()
    except psutil.Error:
        return
    for child in children:
        try:
            if tuple(child.cmdline()) not in _started:
                continue
            for proc in [*child.children(recursive=True), child]:
                proc.kill()
        except psutil.Error:
            continue  # gone meanwhile


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
        """Run `op(session)` on the server's live connection (opened when there is none), within the timeout.

        A timeout or a broken transport closes the connection (a stdio server's process is stopped with
        it); the next exchange opens a fresh one. An error the tool reports leaves the connection open."""
        _close_idle()
        conn = _pool.get(server)
        if conn is not None and not conn.task.done():
            try:
                return await self._on(conn, op)
            except McpUnavailable:
                # A kept connection whose server went away while idle: the request could not even be
                # written, so it never ran; start the server afresh, once. Anything else is reported.
                if not isinstance(conn.last_error, (anyio.ClosedResourceError, anyio.BrokenResourceError)):
                    raise
        conn = _pool[server] = _Connection(server, self._transport(server, _errlog()))
        return await self._on(conn, op)

    async def _on(self, conn: _Connection, op: Any) -> Any:
        server = conn.server
        conn.last_used = time.monotonic()
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(self.timeout):
                await asyncio.shield(conn.ready)
                conn.requests.put_nowait((op, answer))
                return await asyncio.shield(answer)
        except McpToolFailed:
            raise
        except TimeoutError as exc:
            conn.close()
            raise McpUnavailable(f"did not answer within {self.timeout:g} s") from exc
        except Exception as exc:  # noqa: BLE001 - every transport failure names the server
            conn.close()
            inner = conn.last_error = _first_error(exc)
            if isinstance(inner, McpToolFailed):
                raise inner from None
            if isinstance(inner, TimeoutError):
                raise McpUnavailable(f"did not answer within {self.timeout:g} s") from exc
            detail = str(inner) or type(inner).__name__
            tail = conn.stderr_tail()
            if tail:
                detail += f" (stderr: {tail})"
            raise McpUnavailable(_redact(detail, server)) from None

    def _transport(self, server: McpServer, errlog: Any) -> Any:
        if server.command:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            # Through tools/mcp_relay.py: an answer over RELAY_LIMIT bytes is dropped there and said so,
            # instead of taking the SDK's reader longer than the timeout (issue 34).
            argv = (sys.executable, str(RELAY), str(RELAY_LIMIT), "--", *server.command)
            params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=dict(server.env) or None)
            _started.add(argv)
            return _Transport(stdio_client(params, errlog=errlog), errlog)
        from contextlib import asynccontextmanager

        import httpx
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        @asynccontextmanager
        async def http() -> Any:
            async with create_mcp_http_client(timeout=httpx.Timeout(self.timeout)) as client, \
                    streamable_http_client(server.url, http_client=client) as (read, write, _):
                yield read, write

        return _Transport(http(), errlog)


@dataclass
class _Transport:
    cm: Any
    """The SDK's transport context manager, entered by the connection's own task."""
    errlog: Any
    """Where a stdio server's stderr goes (read back when it fails)."""


_closing: set[asyncio.Task[None]] = set()
"""Connection tasks closed but not yet finished (their server being stopped); `close_all` waits for them."""
_started: set[tuple[str, ...]] = set()
"""Command lines of the stdio servers this process started (`_kill_leftovers` looks for them)."""
IDLE_CLOSE = 300.0
"""Seconds a connection may stay unused before it is closed (a stdio server's process ends with it)."""
_pool: dict[McpServer, _Connection] = {}
"""Live connections by server; touched only on the MCP loop thread."""


def _errlog() -> Any:
    return tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")


def _close_idle() -> None:
    now = time.monotonic()
    for conn in list(_pool.values()):
        if conn.task.done() or now - conn.last_used > IDLE_CLOSE:
            conn.close()


class _Connection:
    """One open session with a server, held by one task on the MCP loop that runs requests in turn."""

    def __init__(self, server: McpServer, transport: Any) -> None:
        self.server = server
        self.errlog = transport.errlog
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.requests: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.last_used = time.monotonic()
        self.tail = ""
        self.last_error: BaseException | None = None
        """What broke the connection (set by the exchange that saw it)."""
        self.task = asyncio.ensure_future(self._serve(transport.cm))

    async def _serve(self, transport: Any) -> None:
        from mcp import ClientSession

        pending: asyncio.Future[Any] | None = None
        try:
            async with transport as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                self.ready.set_result(None)
                while True:
                    op, pending = await self.requests.get()
                    try:
                        result = await op(session)
                    except McpToolFailed as exc:
                        _settle(pending, exc=exc)
                    except Exception as exc:  # noqa: BLE001 - the caller closes the connection and names it
                        _settle(pending, exc=exc)
                        return
                    else:
                        _settle(pending, result=result)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits; cancellation ends the task
            self.tail = self.stderr_tail()  # before the log is closed below
            failure = exc if isinstance(exc, Exception) else McpUnavailable("the connection was closed")
            _settle(self.ready, exc=failure)
            if pending is not None:
                _settle(pending, exc=failure)
            while not self.requests.empty():
                _settle(self.requests.get_nowait()[1], exc=failure)
            if not isinstance(exc, Exception):
                raise
        finally:
            if _pool.get(self.server) is self:
                del _pool[self.server]
            self.errlog.close()

    def close(self) -> None:
        """End the connection (cancelling its task stops a stdio server's process)."""
        if _pool.get(self.server) is self:
            del _pool[self.server]
        if not self.task.done():
            _closing.add(self.task)
            self.task.add_done_callback(_closing.discard)
        self.task.cancel()

    def stderr_tail(self) -> str:
        """The last line the server wrote to stderr (a crash usually says why there)."""
        try:
            if self.errlog.closed:
                return self.tail
            self.errlog.flush()
            self.errlog.seek(0)
            lines = self.errlog.read()[-300:].strip().splitlines()
        except (OSError, ValueError):
            return ""
        return lines[-1] if lines else ""


def _settle(future: asyncio.Future[Any], *, result: Any = None, exc: BaseException | None = None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
        future.exception()  # marks it retrieved: a waiter that gave up (timeout) must not make asyncio log it
    else:
        future.set_result(result)


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
