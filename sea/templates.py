"""`{name}` templates of playbook text: filling them, and finding which variables they read.

An exact `"{key}"` keeps the value's type (dict, list, number); inside longer text non-strings are
rendered as JSON. A variable that is not set is an error, never an empty string.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sea.bounds import MAX_VALUE_CHARS, StateTooLarge
from sea.playbook import PlaybookError

TEMPLATE = re.compile(r"\{([A-Za-z][\w.]*)\}")
"""A placeholder: `{name}` or `{name.field}`; JSON braces (`{"a": 1}`) never match."""


def lookup(name: str, variables: dict[str, Any], *, playbook: str = "", node: str = "") -> Any:
    """The value of a dotted variable path; raises PlaybookError when any part is missing."""
    cur: Any = variables
    for part in name.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            raise PlaybookError(f"template variable {{{name}}} is not set", playbook=playbook, node=node)
    return cur


def render(template: Any, variables: dict[str, Any], *, playbook: str = "", node: str = "",
           keep: frozenset[str] = frozenset()) -> Any:
    """Fill placeholders in a string (recursively inside dicts and lists). A placeholder whose
    variable is in `keep` and not set is text, left as written (prompt examples such as `{item_id}`)."""
    if isinstance(template, dict):
        return {k: render(v, variables, playbook=playbook, node=node, keep=keep) for k, v in template.items()}
    if isinstance(template, list):
        return [render(v, variables, playbook=playbook, node=node, keep=keep) for v in template]
    if not isinstance(template, str):
        return template
    whole = TEMPLATE.fullmatch(template.strip())
    if whole and whole.group(1).split(".")[0] not in keep:
        return lookup(whole.group(1), variables, playbook=playbook, node=node)

    grown = [len(template)]

    def sub(m: re.Match[str]) -> str:
        if m.group(1).split(".")[0] in keep and m.group(1).split(".")[0] not in variables:
            return m.group(0)
        val = lookup(m.group(1), variables, playbook=playbook, node=node)
        text = val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)
        grown[0] += len(text)
        if grown[0] > MAX_VALUE_CHARS:  # stop while filling, not after building a huge text
            raise StateTooLarge(f"filling the template would make more than {MAX_VALUE_CHARS:,} characters",
                                playbook=playbook, node=node)
        return text

    return TEMPLATE.sub(sub, template)


def referenced(template: Any) -> set[str]:
    """Top-level variable names a template (or nested structure of templates) reads."""
    if isinstance(template, dict):
        return set().union(*(referenced(v) for v in template.values())) if template else set()
    if isinstance(template, list):
        return set().union(*(referenced(v) for v in template)) if template else set()
    if not isinstance(template, str):
        return set()
    return {m.group(1).split(".")[0] for m in TEMPLATE.finditer(template)}


def as_text(value: Any) -> str:
    """How a value is shown to a model or a person."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
