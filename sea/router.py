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


_SAME: dict[tuple[int, ...], tuple[dict[str, Any], tuple[Playbook, ...], dict[str, Any]]] = {}
"""(id of the schema, ids of the playbooks) → (them, the prepared schema). A loaded playbook and its
node schemas are never changed in place (sea/runtime.py, `compile_playbook`), so the same objects
give the same result without serialising the schema; they are held, so their ids are not reused."""


def prepare_schema(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    """A copy of `schema` with every `x-enum-source: router_playbooks` filled in (cached: the same
    node schema and the same catalogue give the same result, and routers run on every pulse)."""
    key = (id(schema), *map(id, playbooks))
    same = _SAME.get(key)
    if same is not None and same[0] is schema and all(a is b for a, b in zip(same[1], playbooks, strict=True)):
        return same[2]
    out = _prepare(schema, playbooks)
    if len(_SAME) > 256:
        _SAME.clear()
    _SAME[key] = (schema, tuple(playbooks), out)
    return out


def _prepare(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
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
