"""A persona's MCP tools offered by the router like her built-in tools (issue 35).

Each MCP tool the persona has (`<server>__<tool>`, saiverse/mcp_tools.py) becomes a router-callable
playbook of the same name, for her pulses only: its description is the tool's, its parameters are the
tool's JSON-schema properties (listed to the router with their types and descriptions, so it chooses the
arguments), it calls the tool once and keeps the result as a `<system>` note. The meta playbook's own
`sub_speak` then answers — once — with the result in view.

The playbooks are made once per tool list (`for_specs` keeps them by the specs' JSON), so the router's
prepared schema (sea/router.py, which holds the playbooks it was given) sees the same objects every pulse.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from sea.playbook import Playbook, parse_playbook

MAX_KEPT = 64
"""Tool lists whose playbooks are kept (one per persona's set of servers; older ones are dropped)."""

_KEPT: dict[str, list[Playbook]] = {}
_LOCK = threading.Lock()


def _keywords(name: str) -> list[str]:
    """What a request may say to mean the tool: its full name, the server's, the tool's, and its words."""
    server, _, tool = name.partition("__")
    words = [w for w in re.split(r"[_\-]+", tool) if len(w) >= 3 and w != server]
    return list(dict.fromkeys([name, tool, tool.replace("_", " "), *words]))


def _param_line(key: str, prop: dict[str, Any], required: bool) -> str:
    kind = prop.get("type", "any")
    said = str(prop.get("description") or prop.get("title") or "").strip()
    return f"{key} ({kind}{', 必須' if required else ''}){': ' + said if said else ''}"


def tool_playbook(spec: dict[str, Any]) -> Playbook:
    """The router-callable playbook for one MCP tool spec (name, description, parameters)."""
    name = str(spec["name"])
    schema = spec.get("parameters") or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    args = "、".join(_param_line(k, v if isinstance(v, dict) else {}, k in required) for k, v in props.items())
    description = f"{str(spec.get('description') or name).strip()} (MCP ツール {name}。引数: {args or 'なし'})"
    return parse_playbook({
        "name": name,
        "display_name": f"{name.partition('__')[2]} (MCP {name.partition('__')[0]})",
        "description": description[:1000],
        "input_schema": [{"name": "input", "description": "ユーザーの発言"},
                         *({"name": k, "description": _param_line(k, v if isinstance(v, dict) else {}, k in required)}
                           for k, v in props.items() if k != "input" and not k.startswith("_"))],
        "router_callable": True,
        "keywords": _keywords(name),
        "nodes": [
            {"id": "call", "type": "tool", "action": name,
             "args_input": {k: k for k in props if k != "input" and not k.startswith("_")},
             "output_key": "tool_result", "next": "keep"},
            {"id": "keep", "type": "memorize", "role": "user", "tags": ["mcp", "playbook_result"],
             "action": f"<system>\nMCP ツール {name} の実行結果\n{{tool_result}}\n\n"
                       "※この結果はユーザーには見えていません。\n</system>", "next": None},
        ],
        "start_node": "call",
    }, source=f"MCP tool {name}")


def for_specs(specs: list[dict[str, Any]]) -> list[Playbook]:
    """The playbooks of these tool specs (the same objects for the same specs)."""
    if not specs:
        return []
    key = json.dumps(specs, sort_keys=True, ensure_ascii=False, default=str)
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is not None:
            return kept
    made = []
    for spec in specs:
        try:
            made.append(tool_playbook(spec))
        except Exception:  # noqa: BLE001 - a tool whose schema makes no playbook is left to explicit playbooks
            continue
    with _LOCK:
        if len(_KEPT) >= MAX_KEPT:
            _KEPT.pop(next(iter(_KEPT)))
        return _KEPT.setdefault(key, made)
