"""Router support: the list of router-callable playbooks injected into a schema at run time.

A `response_schema` property written as `{"type": "string", "x-enum-source": "router_playbooks"}`
becomes an `enum` of the router-callable playbook names, with `x-keywords` (names, display names,
declared keywords) so the offline model can choose by keyword and an online model sees each
playbook's description.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from sea.playbook import Playbook

ENUM_SOURCE = "x-enum-source"


def catalogue(playbooks: Sequence[Playbook]) -> str:
    """One line per playbook: name, display name and description (for the router's prompt)."""
    return "\n".join(
        f"- {pb.name}: {pb.display_name or pb.name} — {pb.description}".rstrip(" —") for pb in playbooks
    )


_PREPARED: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}


def prepare_schema(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    """A copy of `schema` with every `x-enum-source: router_playbooks` filled in (cached: the same
    node schema and the same catalogue give the same result, and routers run on every pulse)."""
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    if ENUM_SOURCE not in text:
        return schema
    key = (text, tuple((pb.name, pb.display_name, pb.description, tuple(pb.keywords)) for pb in playbooks))
    cached = _PREPARED.get(key)
    if cached is not None:
        return cached  # shared: readers never mutate a request schema
    if len(_PREPARED) > 256:
        _PREPARED.clear()
    out = _PREPARED[key] = _fill(copy.deepcopy(schema), playbooks)
    return out


def _fill(out: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get(ENUM_SOURCE) == "router_playbooks":
                node.pop(ENUM_SOURCE)
                node["enum"] = [pb.name for pb in playbooks]
                node["x-keywords"] = {
                    pb.name: [w for w in (pb.name, pb.display_name, *pb.keywords) if w] for pb in playbooks
                }
                listing = catalogue(playbooks)
                node["description"] = (node.get("description", "") + "\n" + listing).strip()
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(out)
    return out
