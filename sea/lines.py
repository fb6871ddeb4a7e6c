"""Upstream v0.3 lines and message scopes, and fields newer than this format (docs/ARCHITECTURE.md, "Playbooks").

A pulse runs on a *line*: the main line (the persona's conversation) or a sub-line (a `subplay`
with `line: "sub"`, which works on a copy of the caller's messages with the lightweight model and
hands back only its report). Every SAIMemory message a playbook stores carries:

- `line_role` — `main_line`, `sub_line`, `meta_judgment` or `nested`: which line made it. A
  `memorize` value overrides the line the node runs on. Later pulses see only main-line (and
  meta-judgment) conversation as history; a sub-line's messages stay in memory, out of prompts.
- `scope` — `committed` (kept, fed back into later prompts; the default), `discardable` (kept in
  memory, never fed back into context), `volatile` (pulse scratch: seen by the rest of the pulse,
  never written — so nothing is left behind however the pulse ends).

A field this format does not know is either safe to ignore — unset (`null`, `false`, empty), or
an annotation by its name (`*_en`, `ui_*`, `x-*`, `comment`, ...) — and then reported by name while
the playbook is used, or refused: it may change what the playbook does. A name close to a known
field is always refused as a likely typo.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from words import say

LineRole = Literal["main_line", "sub_line", "meta_judgment", "nested"]
"""Which line of a pulse produced a message (upstream's `line_role`)."""
Scope = Literal["committed", "discardable", "volatile"]
"""How long a stored message lives and whether prompts see it (upstream's `scope`)."""
LINE_ROLES: tuple[str, ...] = ("main_line", "sub_line", "meta_judgment", "nested")
SCOPES: tuple[str, ...] = ("committed", "discardable", "volatile")
HISTORY_ROLES: tuple[str, ...] = ("main_line", "meta_judgment")
"""Line roles whose committed conversation later pulses see as history (no role = main line)."""

DEPRECATED_NODE_FIELDS = {
    "context_profile": "deprecated upstream since v0.3 (a subplay's `line` replaces it); still honoured here",
    "model_type": "deprecated upstream since v0.3 (a subplay's `line: sub` uses the lightweight model); "
                  "still honoured here",
}
"""Node fields upstream v0.3 deprecates: accepted, honoured as before, reported under `deprecated`."""

_ANNOTATION = re.compile(r"^(x[-_]|ui_|display_|\$)|(_en|_ja|_zh|_ko|_i18n|_note|_notes|_comment|_label)$")
_ANNOTATION_NAMES = frozenset({"comment", "comments", "note", "notes", "author", "version", "icon", "color",
                               "category", "examples", "created_at", "updated_at", "source_file", "source_hash",
                               "changelog", "license"})


def _unset(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str | list | dict) and not value)


def _verdict(key: str, value: Any, known: frozenset[str]) -> tuple[bool, str]:
    """(safe to ignore, why) for one unknown field."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
    if close:
        return False, say("pb_unknown_field_near", close=close[0])
    if _unset(value):
        return True, "unset, so it asks for nothing"
    if key in _ANNOTATION_NAMES or _ANNOTATION.search(key):
        return True, "an annotation by its name; it does not change what runs"
    return False, say("pb_unknown_field_newer")


class UnknownField(ValueError):
    """An unknown field that may change meaning; `path` is (node id or '', field path)."""

    def __init__(self, message: str, node: str, field: str) -> None:
        super().__init__(message)
        self.node, self.field = node, field


def _split(obj: Any, known: frozenset[str], node: str, prefix: str, notes: list[str]) -> Any:
    if not isinstance(obj, dict):
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in known:
            out[key] = value
            continue
        safe, why = _verdict(str(key), value, known)
        if not safe:
            raise UnknownField(why, node, f"{prefix}{key}")
        where = f"node {node!r}: " if node else ""
        notes.append(f"{where}{prefix}{key} (not known to this SAIVerse; ignored: {why})")
    return out


def split_unknown(data: dict[str, Any], known: Mapping[str, frozenset[str]]) -> tuple[dict[str, Any], list[str]]:
    """`data` without the unknown fields that are safe to ignore, and one note per field left out.

    `known` gives the field names of each level: `top`, `param`, `node`, `memorize`,
    `conditional_next`, `stelis_config`. Raises UnknownField for one that may change meaning."""
    notes: list[str] = []
    out = _split(data, known["top"], "", "", notes)
    if isinstance(out.get("input_schema"), list):
        out["input_schema"] = [
            _split(p, known["param"], "", f"input_schema.{p.get('name', i)}.", notes) if isinstance(p, dict) else p
            for i, p in enumerate(out["input_schema"])]
    if isinstance(out.get("nodes"), list):
        nodes = []
        for i, raw in enumerate(out["nodes"]):
            if not isinstance(raw, dict):
                nodes.append(raw)
                continue
            nid = str(raw.get("id", f"#{i}"))
            node = _split(raw, known["node"], nid, "", notes)
            for sub in ("memorize", "conditional_next", "stelis_config"):
                if isinstance(node.get(sub), dict):
                    node[sub] = _split(node[sub], known[sub], nid, f"{sub}.", notes)
            nodes.append(node)
        out["nodes"] = nodes
    return out, notes


def render_report(template: str, final: dict[str, Any]) -> str:
    """A playbook's `report_template` filled from its final variables: `{key}` and `{key.subkey}`;
    a placeholder whose value is not there is left as written (upstream leaves it too)."""
    def sub(m: re.Match[str]) -> str:
        cur: Any = final
        for part in m.group(1).split("."):
            if isinstance(cur, dict) and part in cur:
                cur = cur[part]
            elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
                cur = cur[int(part)]
            else:
                return m.group(0)
        if isinstance(cur, str):
            return cur
        return json.dumps(cur, ensure_ascii=False)

    return re.sub(r"\{([A-Za-z_][\w.]*)\}", sub, template)
