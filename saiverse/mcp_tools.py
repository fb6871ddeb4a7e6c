"""Per-persona MCP servers: their configuration in settings.json and their tools offered like builtin ones.

`settings.json` in the data home holds, beside the 設定 tab's values, `"mcp_servers": {persona_id:
[{"name", "command": [argv...], "env": {...}} | {"name", "url"}]}`. A server's tools are offered to that
persona's playbooks as `<server>__<tool>` (upstream's naming) with the server's own JSON schema; arguments
are checked against that schema before any call. A server that fails or hangs is named once in a
`notice` event (kind `mcp_unavailable`) and in the log, then left out for `RETRY_AFTER` seconds, so a
pulse carries on without it (docs/ARCHITECTURE.md, "MCP tools").
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

from saiverse.llm.offline import estimate_tokens
from saiverse.locks import item_lock
from saiverse.settings import SAVED_SETTINGS_FILE, SettingsError, _raw_saved, _write_private_json
from tools import ToolArgumentError, ToolError
from tools.mcp_client import SERVER_NAME, McpClient, McpServer, McpTool, McpToolFailed, McpUnavailable

log = logging.getLogger(__name__)

CONFIG_KEY = "mcp_servers"
"""The settings.json key of the per-persona MCP servers."""
SEPARATOR = "__"
"""Between the server's name and its tool's name in what a playbook calls."""
ALL = "mcp__*"
"""In `available_tools`: every MCP tool of the persona running the playbook (`<server>__*`: one server's)."""
RETRY_AFTER = 60.0
"""Seconds a server that failed is left out before it is tried again."""
LIST_TTL = 300.0
TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
"""A tool name a server may offer: a plain identifier. `a/../b`, `*` (the wildcard of `<server>__*`) or
300 characters are refused (issue 34), so a name never means more than the one tool."""
MAX_RESULT_BYTES = 64 * 1024
MAX_RESULT_TOKENS = 8000
"""What one tool result may bring into a prompt (issue 34: 5 MB passed whole); more is cut and says so."""
"""Seconds a server's tool list is reused before it is asked again."""

Notify = Callable[[dict[str, Any]], None]


def parse_servers(raw: Any, where: str = CONFIG_KEY) -> list[McpServer]:
    """A persona's server list from JSON; SettingsError naming the entry and field when it cannot be used."""
    if not isinstance(raw, list):
        raise SettingsError(f"{where} must be a list of servers, got {type(raw).__name__}")
    servers: list[McpServer] = []
    for i, entry in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(entry, dict):
            raise SettingsError(f"{at} must be an object with name and command or url")
        unknown = sorted(set(entry) - {"name", "command", "env", "url"})
        if unknown:
            raise SettingsError(f"{at}: unknown field {', '.join(unknown)} (name, command, env, url)")
        name = entry.get("name")
        if not isinstance(name, str) or not SERVER_NAME.match(name) or SEPARATOR in name:
            raise SettingsError(f"{at}.name must be 1-40 letters, digits, - or _ (no '__'), got {name!r}")
        if name in {s.name for s in servers}:
            raise SettingsError(f"{at}: two servers are named {name!r}")
        command, url, env = entry.get("command"), entry.get("url"), entry.get("env") or {}
        if (command is None) == (url is None):
            raise SettingsError(f"{at} ({name}) needs exactly one of command (stdio) and url (HTTP)")
        if command is not None and (not isinstance(command, list) or not command
                                    or not all(isinstance(a, str) and a for a in command)):
            raise SettingsError(f"{at}.command must be a non-empty list of strings (argv), e.g. "
                                '["python", "server.py"]')
        if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
            raise SettingsError(f"{at}.url must be an http:// or https:// URL")
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise SettingsError(f"{at}.env must map names to strings")
        if env and url is not None:
            raise SettingsError(f"{at}.env applies to a stdio command only")
        servers.append(McpServer(name=name, command=tuple(command or ()), url=url or "",
                                 env=tuple(sorted(env.items()))))
    return servers


def server_json(server: McpServer) -> dict[str, Any]:
    """A server as settings.json holds it."""
    if server.command:
        out: dict[str, Any] = {"name": server.name, "command": list(server.command)}
        if server.env:
            out["env"] = dict(server.env)
        return out
    return {"name": server.name, "url": server.url}


def read_servers(home: Path) -> dict[str, list[McpServer]]:
    """persona id → its servers; a persona whose entry cannot be used is logged and left without servers."""
    table = _raw_saved(home).get(CONFIG_KEY)
    if not isinstance(table, dict):
        return {}
    out: dict[str, list[McpServer]] = {}
    for persona_id, raw in table.items():
        try:
            out[str(persona_id)] = parse_servers(raw, f"{CONFIG_KEY}.{persona_id}")
        except SettingsError as exc:
            log.warning("MCP servers of %s ignored: %s", persona_id, exc)
    return out


def save_servers(home: Path, persona_id: str, raw: Any) -> list[McpServer]:
    """Replace one persona's servers in settings.json (validated first; nothing written when refused)."""
    servers = parse_servers(raw, f"{CONFIG_KEY}.{persona_id}")
    with item_lock(home, SAVED_SETTINGS_FILE):  # the same lock as SettingsStore.save: no write is lost
        data = _raw_saved(home)
        table = data.get(CONFIG_KEY) if isinstance(data.get(CONFIG_KEY), dict) else {}
        if servers:
            table[persona_id] = [server_json(s) for s in servers]
        else:
            table.pop(persona_id, None)
        data[CONFIG_KEY] = table
        if not table:
            data.pop(CONFIG_KEY)
        _write_private_json(home / SAVED_SETTINGS_FILE, data)
    return servers


MASK = "****"
"""What an env value is shown as (the UI); saving it back keeps the stored value."""


def shown_json(servers: list[McpServer]) -> list[dict[str, Any]]:
    """Servers as the ペルソナ tab shows them: env values masked."""
    out = [server_json(s) for s in servers]
    for entry in out:
        if "env" in entry:
            entry["env"] = dict.fromkeys(entry["env"], MASK)
    return out


def unmask(raw: Any, stored: list[McpServer]) -> Any:
    """`raw` with each masked env value replaced by the stored value of the same server and variable."""
    if not isinstance(raw, list):
        return raw
    old = {s.name: dict(s.env) for s in stored}
    out = []
    for entry in raw:
        if isinstance(entry, dict) and isinstance(entry.get("env"), dict):
            kept = old.get(entry.get("name"), {})  # type: ignore[call-overload]
            entry = {**entry, "env": {k: kept.get(k, v) if v == MASK else v for k, v in entry["env"].items()}}
        out.append(entry)
    return out


class McpTools:
    """The MCP tools of each persona: listed (cached), offered as specs, and called with checked arguments."""

    def __init__(self, home: Path, timeout: Callable[[], float]) -> None:
        self.home = home
        self._timeout = timeout
        self._lock = threading.Lock()
        self._lists: dict[McpServer, tuple[float, list[McpTool]]] = {}
        self._refused: dict[McpServer, dict[str, str]] = {}
        """Tools a server offered that are not taken, with why (`_refusal`)."""
        self._failed: dict[McpServer, float] = {}

    def servers(self, persona_id: str) -> list[McpServer]:
        """The persona's configured servers (settings.json is read each time: edits apply at once)."""
        return read_servers(self.home).get(persona_id, [])

    def owns(self, persona_id: str, name: str) -> bool:
        """Whether `name` is shaped like one of the persona's MCP tools (`<server>__<tool>`)."""
        server = name.split(SEPARATOR, 1)[0]
        return SEPARATOR in name and any(s.name == server for s in self.servers(persona_id))

    def tools(self, persona_id: str, notify: Notify | None = None) -> dict[str, tuple[McpServer, McpTool]]:
        """Every reachable tool of the persona's servers by its offered name; failing servers are named and skipped."""
        out: dict[str, tuple[McpServer, McpTool]] = {}
        for server in self.servers(persona_id):
            for tool in self._list(server, persona_id, notify):
                out[f"{server.name}{SEPARATOR}{tool.name}"] = (server, tool)
        return out

    def specs(self, persona_id: str, names: list[str], notify: Notify | None = None) -> list[dict[str, Any]]:
        """Specs (name, description, parameters) of those `names` that are this persona's MCP tools.

        `<server>__*` stands for every tool of that server and `mcp__*` (ALL) for every tool of every
        server of the persona, so a playbook can offer what the persona has without listing it."""
        servers = {s.name for s in self.servers(persona_id)}
        wanted = [n for n in names if n == ALL or (SEPARATOR in n and n.split(SEPARATOR, 1)[0] in servers)]
        if not wanted:
            return []
        asked = {n.split(SEPARATOR, 1)[0] for n in wanted}
        tools = {f"{server.name}{SEPARATOR}{tool.name}": (server, tool)
                 for server in self.servers(persona_id) if ALL in wanted or server.name in asked
                 for tool in self._list(server, persona_id, notify)}
        out: dict[str, dict[str, Any]] = {}
        for name in wanted:
            if name == ALL or name.endswith(SEPARATOR + "*"):
                prefix = "" if name == ALL else name[:-1]
                out.update((k, _spec(k, *v)) for k, v in tools.items() if k.startswith(prefix) and k not in out)
            elif name in tools and name not in out:
                out[name] = _spec(name, *tools[name])
        return list(out.values())

    def playbooks(self, persona_id: str) -> list[Any]:
        """One router-callable playbook per MCP tool of the persona (saiverse/mcp_playbooks.py); none when she
        has no servers (nothing is started for her)."""
        if not self.servers(persona_id):
            return []
        from saiverse.mcp_playbooks import for_specs

        return for_specs(self.specs(persona_id, [ALL]))

    def call(self, persona_id: str, name: str, args: dict[str, Any], notify: Notify | None = None) -> Any:
        """Run one MCP tool as the persona: arguments checked against its schema, then one bounded call."""
        server_name, _, tool_name = name.partition(SEPARATOR)
        server = next((s for s in self.servers(persona_id) if s.name == server_name), None)
        if server is None:
            raise ToolError(f"unknown tool {name!r}: {persona_id} has no MCP server {server_name!r}")
        tool = next((t for t in self._list(server, persona_id, notify) if t.name == tool_name), None)
        if tool is None:
            why = self._refused.get(server, {}).get(tool_name)
            if why:
                raise ToolError(f"tool {name[:120]!r} is refused: {why}")
            if server in self._failed:
                raise ToolError(f"tool {name!r} is not available now: MCP server {server_name!r} did not answer "
                                f"or failed (it is tried again {RETRY_AFTER:g} s after)")
            raise ToolError(f"unknown tool {name!r}: MCP server {server_name!r} offers no tool {tool_name!r}")
        if not isinstance(args, dict):
            raise ToolArgumentError(f"tool {name!r}: arguments must be an object, got {type(args).__name__}")
        _check_args(name, tool.input_schema, args)
        client = McpClient(self._timeout())
        try:
            return capped(name, client.call_tool(server, tool_name, args))
        except McpToolFailed as exc:
            raise ToolError(f"tool {name!r} failed: {exc}") from None
        except McpUnavailable as exc:
            self._mark_failed(server, persona_id, str(exc), notify)
            raise ToolError(f"tool {name!r} is not available now: MCP server {server_name!r} {exc}") from None

    # ---- listing with a cache and a back-off ---------------------------------------------------------
    def _list(self, server: McpServer, persona_id: str, notify: Notify | None) -> list[McpTool]:
        now = time.monotonic()
        with self._lock:
            failed_at = self._failed.get(server)
            if failed_at is not None and now - failed_at < RETRY_AFTER:
                return []
            cached = self._lists.get(server)
            if cached is not None and now - cached[0] < LIST_TTL:
                return cached[1]
        try:
            tools = McpClient(self._timeout()).list_tools(server)
        except McpUnavailable as exc:
            self._mark_failed(server, persona_id, str(exc), notify)
            return []
        refused = {t.name: why for t in tools if (why := _refusal(t))}
        if refused:
            log.warning("MCP server %s of %s: %d tools refused (%s)", server.name, persona_id, len(refused),
                        "; ".join(f"{n[:40]!r}: {why}" for n, why in list(refused.items())[:3]))
        tools = [t for t in tools if t.name not in refused]
        with self._lock:
            self._failed.pop(server, None)
            self._lists[server] = (time.monotonic(), tools)
            self._refused[server] = refused
        return tools

    def _mark_failed(self, server: McpServer, persona_id: str, why: str, notify: Notify | None) -> None:
        with self._lock:
            self._failed[server] = time.monotonic()
            self._lists.pop(server, None)
        text = (f"MCP サーバー {server.name} を使えません（{server.transport}）: {why}。"
                "このパルスはそのツールなしで続けます。")
        log.warning("MCP server %s of %s unavailable (%s): %s", server.name, persona_id, server.describe(), why)
        if notify is not None:
            notify({"type": "notice", "kind": "mcp_unavailable", "server": server.name, "text": text})

    def status(self, persona_id: str, *, fresh: bool = False) -> list[dict[str, Any]]:
        """Each server of the persona: how it is reached and its tools, or why it cannot be used now.
        `fresh` asks every server again (no cache, no back-off): the 確認 button and the CLI."""
        if fresh:
            with self._lock:
                for server in self.servers(persona_id):
                    self._failed.pop(server, None)
                    self._lists.pop(server, None)
        rows = []
        for server in self.servers(persona_id):
            problems: list[str] = []
            tools = self._list(server, persona_id, lambda ev, seen=problems: seen.append(ev["text"]))
            rows.append({"name": server.name, "transport": server.transport, "reach": server.describe(),
                         "tools": [f"{server.name}{SEPARATOR}{t.name}" for t in tools],
                         "error": problems[0] if problems else ("" if server not in self._failed else "unavailable")})
        return rows


def _spec(name: str, server: McpServer, tool: McpTool) -> dict[str, Any]:
    schema = {k: v for k, v in tool.input_schema.items() if not k.startswith("$") and k != "title"}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    description = tool.description.strip() or f"{tool.name} ({server.name} MCP server)"
    return {"name": name, "description": description, "parameters": schema}


def _check_args(name: str, schema: dict[str, Any], args: dict[str, Any]) -> None:
    """ToolArgumentError naming the argument when `args` do not fit the tool's JSON schema."""
    try:
        jsonschema.validate(args, schema or {"type": "object"})
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path)
        at = f"argument {where!r}: " if where else ""
        raise ToolArgumentError(f"tool {name!r}: {at}{exc.message}") from None
    except jsonschema.SchemaError as exc:
        raise ToolError(f"tool {name!r}: its server gave an unusable argument schema ({exc.message})") from None
    except Exception as exc:  # referencing's errors: a $ref that cannot be resolved here (never fetched)
        if not type(exc).__module__.startswith(("referencing", "jsonschema")):
            raise
        raise ToolError(f"tool {name!r}: its argument schema has a reference that cannot be followed") from None


def _remote_ref(schema: Any) -> str | None:
    """The first reference in `schema` (`$ref`, `$dynamicRef`, `$recursiveRef`) that points outside it
    (anything but `#…`), or None."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef", "$recursiveRef"):
                ref = node.get(key)
                if isinstance(ref, str) and not ref.startswith("#"):
                    return ref
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _refusal(tool: McpTool) -> str | None:
    """Why a tool a server offers is not taken (None: it is)."""
    if not TOOL_NAME.match(tool.name):
        return "its name is not a plain identifier (letters, digits, _ and -, up to 64, not starting with a digit)"
    ref = _remote_ref(tool.input_schema)
    if ref is not None:
        return f"its argument schema refers to {ref[:80]!r} outside itself (only #… references are followed)"
    return None


def capped(name: str, value: Any) -> Any:
    """A tool result within MAX_RESULT_BYTES and MAX_RESULT_TOKENS: a larger one becomes its beginning as
    text with a line saying it was cut and how large it was."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    size, tokens = len(text.encode("utf-8")), estimate_tokens(text)
    if size <= MAX_RESULT_BYTES and tokens <= MAX_RESULT_TOKENS:
        return value
    kept = text.encode("utf-8")[:MAX_RESULT_BYTES].decode("utf-8", errors="ignore")
    while estimate_tokens(kept) > MAX_RESULT_TOKENS:
        kept = kept[: len(kept) * 9 // 10]
    log.warning("MCP tool %s returned %d bytes (~%d tokens): cut to %d bytes", name[:120], size, tokens,
                len(kept.encode("utf-8")))
    return (f"{kept}\n[結果を切り詰めました: ツール {name[:120]} の結果は {size:,} バイト (約 {tokens:,} トークン) で、"
            f"上限 ({MAX_RESULT_BYTES:,} バイト / {MAX_RESULT_TOKENS:,} トークン) を超えたため先頭だけです。"
            f" The result was cut: {size:,} bytes.]")
