"""Router support: the list of router-callable playbooks injected into a schema at run time.

A `response_schema` property written as `{"type": "string", "x-enum-source": "router_playbooks"}`
becomes an `enum` of the router-callable playbook names, with `x-keywords` (names, display names,
declared keywords) so the offline model can choose by keyword and an online model sees each
playbook's description.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sea.playbook import Playbook

ENUM_SOURCE = "x-enum-source"


def catalogue(playbooks: Sequence[Playbook]) -> str:
    """One line per playbook: name, display name and description (for the router's prompt)."""
    return "\n".join(
        f"- {pb.name}: {pb.display_name or pb.name} — {pb.description}".rstrip(" —") for pb in playbooks
    )


def prepare_schema(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    """A copy of `schema` with every `x-enum-source: router_playbooks` filled in."""
    if ENUM_SOURCE not in str(schema):
        return schema
    out = copy.deepcopy(schema)

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
