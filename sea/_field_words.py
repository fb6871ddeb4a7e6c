"""pydantic's field errors of a playbook in the language in force (words/_playbooks.py): pydantic words them
in English only, so sea/playbook.py asks here for each error's words by its type."""

from __future__ import annotations

import json
from typing import Any

from words import current, say

_PYDANTIC_WORDS = {"missing": "pd_missing", "string_type": "pd_string", "int_type": "pd_int", "int_parsing": "pd_int",
                   "int_from_float": "pd_int", "float_type": "pd_float", "float_parsing": "pd_float",
                   "bool_type": "pd_bool", "bool_parsing": "pd_bool", "list_type": "pd_list", "dict_type": "pd_dict",
                   "model_type": "pd_dict", "model_attributes_type": "pd_dict"}
"""pydantic's error types a playbook meets, and the words for each (words/_playbooks.py)."""


def field_words(err: Any, field: str) -> str:
    """One pydantic field error in the language in force: pydantic's own text is English only."""
    kind, given = err["type"], _shown(err.get("input"))
    if kind == "extra_forbidden":
        return say("pb_unknown_field")
    if kind == "value_error":  # our validators' words (`_identifier`), worded when raised
        return str(err["msg"]).removeprefix("Value error, ")
    if kind == "literal_error":
        choices = str((err.get("ctx") or {}).get("expected", ""))
        if field == "type":
            return say("pb_unknown_type", value=err.get("input"), choices=choices)
        return say("pd_literal", value=given, choices=choices)
    if kind in _PYDANTIC_WORDS:
        return say(_PYDANTIC_WORDS[kind], value=given)
    return str(err["msg"]) if current() == "en" else say("pd_other", value=given)


def _shown(value: Any) -> str:
    """A value as the message shows it: JSON, cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
