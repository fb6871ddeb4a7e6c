"""Upstream SAIVerse playbook fields: what each means here, and which are kept without effect.

Playbooks written for upstream (maha0525/SAIVerse) run unchanged. Their extra fields are parsed
by `sea/playbook.py`; this module holds their meaning:

| field | here |
|---|---|
| node `context_profile` | `router`, `worker_light`: lightweight model; `worker*`: no history, no system prompt |
| node `metadata_key` | (llm with `speak`, `say`, `memorize`) the variable's object rides on the event as `metadata` |
| node `isolate_pulse_context` | (subplay) the callee starts without this pulse's in-flight messages |
| node `execution: subagent` | (subplay, exec) the callee runs apart: it neither sees nor leaves in-flight messages |
| node `input_template` | (subplay) the callee's `input`, when `args` does not give one |
| node `label`, `stelis_config.max_depth` | (stelis_start / stelis_end) named in the notice; nesting limit |
| input `param_type`, `enum_values` | passed values are converted to the type (or refused) |
| top `dev_only` | never offered to a router (there is no developer mode here) |
| top `required_credentials` | never offered to a router (no accounts are configured here) |
| top `context_requirements.history_depth` | how much conversation history the model sees |
| node `line` | (subplay) `sub`: the callee runs on a sub-line and hands back its report (sea/lines.py) |
| `line_role`, `scope` (memorize node, llm `memorize`) | kept on the stored message; decide what prompts see |
| top `report_template` | what a finished callee hands back to its caller, filled from its variables |
| node `context_profile`, `model_type` | deprecated upstream since v0.3; honoured, and listed as deprecated |

Everything else upstream defines is kept as written (it survives import and export) and listed by
`ignored_fields` so validation can say it has no effect here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

from sea.lines import DEPRECATED_NODE_FIELDS
from sea.playbook import InputParam, Node, Playbook, PlaybookError

CONTEXT_PROFILES: dict[str, tuple[str, bool]] = {
    "conversation": ("normal", True),
    "router": ("lightweight", True),
    "worker": ("normal", False),
    "worker_light": ("lightweight", False),
}
"""Upstream context profile → (model type, whether the model sees history and the system prompt)."""

_WHY = {
    "subagent_chronicle": "no Chronicle summaries are written for sub-runs here",
    "tools": "upstream ignores it as well (tools are offered with `available_tools`)",
    "important": "every message is kept here",
    "response_schema_source": "spells are not available here",
    "generate_chronicle": "no Chronicle summaries are written for sub-threads here",
    "enum_source": "upstream UI only",
    "user_configurable": "upstream UI only",
    "ui_widget": "upstream UI only",
    "source": "arguments are passed explicitly here",
    "input_template": "the caller passes `args`",
    "can_run_as_child": "upstream line contract only",
    "description_en": "the description is shown as written",
}

_NODE_MEANING = {
    "metadata_key": ("llm", "say", "memorize"),
    "isolate_pulse_context": ("subplay",),
    "execution": ("subplay", "exec"),
    "input_template": ("subplay",),
    "line": ("subplay",),
    "line_role": ("memorize",),
    "scope": ("memorize",),
    "label": ("stelis_start", "stelis_end"),
    "stelis_config": ("stelis_start",),
}


def ignored_fields(pb: Playbook) -> list[str]:
    """Upstream fields this playbook sets that have no effect here, each with the reason."""
    out: list[str] = list(pb._unknown)
    for key in ("input_template", "can_run_as_child", "description_en"):
        if getattr(pb, key) is not None:
            out.append(f"{key} ({_WHY[key]})")
    if pb.context_requirements:
        rest = sorted(k for k in pb.context_requirements if k != "history_depth")
        if rest:
            out.append(f"context_requirements.{', '.join(rest)} (only history_depth is used here)")
    for param in pb.input_schema:
        for key in ("enum_source", "user_configurable", "ui_widget", "source"):
            if getattr(param, key) is not None:
                out.append(f"input_schema.{param.name}.{key} ({_WHY[key]})")
    for node in pb.nodes:
        where = f"node {node.id!r}"
        for key in ("subagent_chronicle", "tools", "important", "response_schema_source", "generate_chronicle"):
            if getattr(node, key) is not None:
                out.append(f"{where}: {key} ({_WHY[key]})")
        for key, types in _NODE_MEANING.items():
            value = getattr(node, key)
            if value not in (None, False) and node.type not in types:
                out.append(f"{where}: {key} (has no effect on a {node.type} node)")
        if node.type == "llm" and node.metadata_key and not node.speak:
            out.append(f"{where}: metadata_key (only a speaking llm node attaches metadata)")
        if node.context_profile and node.context_profile not in CONTEXT_PROFILES:
            out.append(f"{where}: context_profile {node.context_profile!r} (not known here; model_type is used)")
        if node.stelis_config and (node.stelis_config.window_ratio is not None or node.stelis_config.chronicle_prompt):
            out.append(f"{where}: stelis_config.window_ratio/chronicle_prompt (no Chronicle or context windows here)")
        thought = node.output_targets().get("thought")
        if thought:
            out.append(f"{where}: output_keys thought → {thought!r} (models here report no thoughts; it is set to '')")
    return out


def deprecated_fields(pb: Playbook) -> list[str]:
    """Fields upstream v0.3 deprecates that this playbook sets: honoured here, named with the replacement."""
    out: list[str] = []
    for node in pb.nodes:
        for key, why in DEPRECATED_NODE_FIELDS.items():
            if key in node.model_fields_set and getattr(node, key) is not None:
                out.append(f"node {node.id!r}: {key} ({why})")
    return out


def model_type(node: Node, *, sub_line: bool = False) -> str:
    """`normal` or `lightweight`: the context profile decides when it is a known one; on a sub-line
    (sea/lines.py) a node that does not choose uses the lightweight model, as upstream."""
    profile = CONTEXT_PROFILES.get(node.context_profile or "")
    if profile:
        return profile[0]
    if sub_line and "model_type" not in node.model_fields_set:
        return "lightweight"
    return node.model_type or "normal"


def sees_context(node: Node) -> bool:
    """False for upstream's isolated `worker` profiles: no history, no system prompt."""
    profile = CONTEXT_PROFILES.get(node.context_profile or "")
    return profile[1] if profile else True


_MESSAGES = re.compile(r"^(\d+)\s*messages$")


def trim_history(history: list[Any], depth: Any) -> list[Any]:
    """Upstream `history_depth`: `full`, `0`/`none`, `'Nmessages'`, or a number of characters."""
    if depth in (None, "full"):
        return history
    if depth in (0, "0", "none"):
        return []
    if isinstance(depth, str) and (m := _MESSAGES.match(depth.strip())):
        count = int(m.group(1))
        return history[-count:] if count else []
    try:
        budget = int(depth)
    except (TypeError, ValueError):
        return history
    kept: list[Any] = []
    for msg in reversed(history):
        budget -= len(msg.get("content") or "")
        if budget < 0:
            break
        kept.append(msg)
    return list(reversed(kept))


def coerce_param(pb: Playbook, param: InputParam, value: Any) -> Any:
    """A passed value converted to the parameter's upstream `param_type`; PlaybookError if it cannot be."""
    kind = (param.param_type or "string").lower()

    def fail(why: str) -> PlaybookError:
        return PlaybookError(f"argument {param.name!r} {why} (got {value!r})", playbook=pb.name,
                             field=f"input_schema.{param.name}")

    if kind == "number" and not isinstance(value, bool):
        if isinstance(value, int | float):
            return value
        if isinstance(value, str):
            for conv in (int, float):
                try:
                    return conv(value.strip())
                except ValueError:
                    continue
        raise fail("must be a number")
    if kind == "number":
        raise fail("must be a number")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        low = str(value).strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise fail("must be true or false")
    if kind == "enum" and param.enum_values is not None and value not in param.enum_values:
        raise fail(f"must be one of {param.enum_values}")
    return value


def _entries(available: Any) -> list[dict[str, Any]]:
    if isinstance(available, str):
        try:
            available = json.loads(available)
        except json.JSONDecodeError:
            return []
    if not isinstance(available, list):
        return []
    return [e for e in available if isinstance(e, dict) and e.get("name")]


def listed_names(available: Any) -> list[str]:
    """Playbook names in a `list_available_playbooks` result (a JSON text or a list of objects)."""
    return [str(e["name"]) for e in _entries(available)]


def add_playbook_enum(schema: dict[str, Any], available: Any) -> dict[str, Any]:
    """Upstream's router rule: with `available_playbooks` set, a top-level `playbook` string property
    may only be one of the listed names (`basic_chat`, when listed, is the fallback)."""
    prop = (schema.get("properties") or {}).get("playbook")
    if not isinstance(prop, dict) or "enum" in prop:
        return schema  # asked first: a router's schema has its enum already, and the listing is JSON to parse
    names = listed_names(available)
    if not names:
        return schema
    out = copy.deepcopy(schema)
    target = out["properties"]["playbook"]
    target["enum"] = names
    acting = {str(e["name"]): str(e["acts_on"]) for e in _entries(available) if e.get("acts_on")}
    if acting:  # what each acts on, as the catalogue's own routers carry it (sea/router.py, `with_targets`)
        target["x-acts-on"] = acting
    if "basic_chat" in names and "default" not in target:
        target["default"] = "basic_chat"
    return out


def playbook_listing(playbooks: Sequence[Playbook]) -> list[dict[str, Any]]:
    """What `list_available_playbooks` shows a router: name, display name, description, keywords, and
    what it acts on when it acts on something (`acts_on`: an item, a building)."""
    return [
        {"name": pb.name, "display_name": pb.display_name or pb.name, "description": pb.description,
         "keywords": list(pb.keywords), **({"acts_on": pb.acts_on} if pb.acts_on else {})}
        for pb in sorted(playbooks, key=lambda p: p.name)
    ]


def shown_content(line: Any) -> str:
    """A playbook's result stored as a user message (upstream tags it `playbook_result` / `internal`)
    is shown to the model as a `<system>` block, so it is not taken for something the user said."""
    content = line["content"]
    tags = set(line.get("tags") or [])
    wrapped = content.lstrip().startswith("<system>")
    if line["role"] == "user" and tags & {"playbook_result", "internal"} and not wrapped:
        return f"<system>\n{content}\n</system>"
    return content
