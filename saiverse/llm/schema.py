"""JSON-schema helpers shared by the providers: parse, validate, make strict, pick enum options.

Only the subset of JSON Schema that playbooks and tools use is handled (type, enum, const,
properties, required, items, min/max items/length/value, anyOf/oneOf, local `$ref`). Providers use
`validate` to decide whether a model answered valid JSON; the offline model uses `score_options`
to route by keyword.

Keywords for enum options come from, in order of weight:
- the option's own name (`memory_research` also matches "memory research");
- `x-keywords`, an extension this project defines on a string property with an `enum`:
  `{"x-keywords": {"option": ["keyword", ...]}}` — lets a playbook author say which words select
  which option, for the offline model (online providers ignore unknown `x-` keys); the router fills
  it from each playbook's own `keywords` (sea/router.py), so playbook JSON is the only source;
- a playbook listing in the prompt — the JSON list `list_available_playbooks` returns, as upstream's
  router prompt shows it: each entry's `keywords` and `display_name` select it, its description
  describes it;
- `x-targets` (`{"option": ["word", ...]}`, sea/router.py `with_targets`): an option that acts on
  something is chosen only when the request contains one of its words (an item's name, 「この絵」);
  without one it has no evidence at all, whatever its keywords say;
- text describing the option: in the property's `description`, a `oneOf` entry's `description`,
  or catalogue lines in the prompt (`- item_view_playbook: アイテムを閲覧する`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from saiverse.llm.catalogue import _name_starts, catalogue, catalogue_of_parts  # noqa: F401 - re-exported

_LISTING_RE = re.compile(r'\[\s*\{\s*"name"\s*:')
_WORD_RE = re.compile(r"[\u4e00-\u9fff\u3005]{2,}|[\u30a0-\u30ff\u30fc]{2,}|[A-Za-z0-9]{3,}")


EXTENSIONS = ("x-keywords", "x-targets", "x-acts-on")
"""This project's schema keys for routing; providers that reject unknown keys drop them."""


class SchemaError(ValueError):
    """A schema this module cannot use (e.g. a `$ref` that points nowhere)."""


def parse_json_text(text: str) -> Any:
    """Parse a model's JSON answer, tolerating a Markdown code fence around it.

    Raises `ValueError` (json.JSONDecodeError) when the text is not JSON.
    """
    stripped = text.strip()
    # Local models often wrap JSON in ```json fences even when asked not to.
    fence = re.match(r"^```[A-Za-z]*\s*\n(.*)\n```$", stripped, re.S)
    if fence:
        stripped = fence.group(1).strip()
    return json.loads(stripped)


def resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (`#/$defs/X`, `#/definitions/X`) to the schema it names."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise SchemaError(f"only local $ref is supported, got {ref!r}")
        node: Any = root
        for part in ref[2:].split("/"):
            if not isinstance(node, dict) or part not in node:
                raise SchemaError(f"$ref {ref!r} points nowhere")
            node = node[part]
        schema = node
        seen += 1
        if seen > 32:
            raise SchemaError(f"$ref {ref!r} loops")
    return schema


def schema_type(schema: dict[str, Any]) -> str | None:
    """The effective type of a schema: its `type` (first non-null), or one implied by its keys."""
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), typ[0] if typ else None)
    if typ:
        return str(typ)
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    if "enum" in schema and schema["enum"]:
        return _json_type(schema["enum"][0])
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_ok(value: Any, typ: str) -> bool:
    actual = _json_type(value)
    if typ == "number":
        return actual in ("number", "integer")
    if typ == "integer" and actual == "number":
        return float(value).is_integer()
    return actual == typ


def validate(data: Any, schema: dict[str, Any], root: dict[str, Any] | None = None,
             path: str = "$") -> list[str]:
    """Check `data` against `schema`; returns the problems found (empty list: valid)."""
    root = root if root is not None else schema
    schema = resolve(schema, root)
    errors: list[str] = []
    for key in ("anyOf", "oneOf"):
        if key in schema:
            if not any(not validate(data, sub, root, path) for sub in schema[key]):
                errors.append(f"{path}: matches none of {key}")
            return errors
    typ = schema.get("type")
    types = typ if isinstance(typ, list) else [typ] if typ else []
    if types and not any(_type_ok(data, t) for t in types):
        return [f"{path}: expected {'/'.join(types)}, got {_json_type(data)}"]
    if "enum" in schema and data not in schema["enum"]:
        errors.append(f"{path}: {data!r} is not one of {schema['enum']}")
    if "const" in schema and data != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    if isinstance(data, dict):
        props = schema.get("properties", {})
        errors += [f"{path}: missing {k!r}" for k in schema.get("required", []) if k not in data]
        for key, value in data.items():
            if key in props:
                errors += validate(value, props[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected property {key!r}")
    elif isinstance(data, list):
        if len(data) < schema.get("minItems", 0):
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(data) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(data):
                errors += validate(item, schema["items"], root, f"{path}[{i}]")
    elif isinstance(data, str):
        if len(data) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(data) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']}")
    elif isinstance(data, int | float) and not isinstance(data, bool):
        if "minimum" in schema and data < schema["minimum"]:
            errors.append(f"{path}: below minimum {schema['minimum']}")
        if "maximum" in schema and data > schema["maximum"]:
            errors.append(f"{path}: above maximum {schema['maximum']}")
    return errors


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy fit for OpenAI `strict: true`: closed objects, every property listed in `required`.

    Strict mode demands both; a property that was optional becomes nullable instead, and
    `drop_added_nulls` removes those nulls from the answer again.
    """
    out = copy.deepcopy(schema)
    for key in (*EXTENSIONS, "default"):
        out.pop(key, None)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in EXTENSIONS:
                node.pop(key, None)
            props = node.get("properties")
            if isinstance(props, dict):
                required = set(node.get("required", []))
                for name, sub in props.items():
                    if name not in required and isinstance(sub, dict) and "type" in sub:
                        t = sub["type"]
                        sub["type"] = (t + ["null"] if "null" not in t else t) if isinstance(t, list) \
                            else [t, "null"]
                        if "enum" in sub and None not in sub["enum"]:
                            sub["enum"] = [*sub["enum"], None]
                node["required"] = list(props)
                node.setdefault("additionalProperties", False)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def drop_added_nulls(data: Any, schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """Remove `null` values of optional properties (undoes `strict_schema`'s nullable widening)."""
    root = root if root is not None else schema
    schema = resolve(schema, root)
    if isinstance(data, dict):
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        return {
            k: drop_added_nulls(v, props[k], root) if k in props else v
            for k, v in data.items() if not (v is None and k in props and k not in required)
        }
    if isinstance(data, list) and isinstance(schema.get("items"), dict):
        return [drop_added_nulls(v, schema["items"], root) for v in data]
    return data


def words(text: str) -> list[str]:
    """Content words of a text: runs of kanji, katakana or ASCII letters (a tokenizer-free cut)."""
    return _WORD_RE.findall(text)


def _stem(keyword: str) -> str:
    """`確認する` → `確認`, `書き換える` → `書き換`: the part that survives conjugation."""
    stem = re.sub(r"[\u3041-\u309f]+$", "", keyword)
    # A one-character stem (`向かって` → `向`) matches inside unrelated words (`日向`).
    return stem if len(stem) >= 2 and stem != keyword else ""


def _option_aliases(option: str) -> list[str]:
    alias = option.replace("_playbook", "").replace("_", " ").replace("-", " ").strip()
    return [a for a in {option, alias} if a]


# What scoring needs of a keyword, an option's name or its description does not depend on the
# request: worked out once per text (pure functions of their argument, so never stale), not once
# per option per model call (a router call scores ~10 options of ~8 keywords each).
@lru_cache(maxsize=4096)
def _keyword_forms(keyword: str) -> tuple[str, str, tuple[str, ...]]:
    """(lowered keyword, its stem, its other content words lowered) as `_evidence` matches them."""
    return (keyword.lower(), _stem(keyword),
            tuple(w.lower() for w in words(keyword) if len(w) >= 2 and w != keyword))


@lru_cache(maxsize=1024)
def _aliases_lower(option: str) -> tuple[str, ...]:
    return tuple(a.lower() for a in _option_aliases(option))


@lru_cache(maxsize=1024)
def _description_words(described: str) -> tuple[tuple[str, int], ...]:
    """Distinct content words of a description, lowered, each with its weight (3+ characters: 2)."""
    return tuple((w.lower(), 2 if len(w) >= 3 else 1) for w in set(words(described)))


@lru_cache(maxsize=1024)
def _makes(option: str, described: str) -> bool:
    return bool(_MAKES.search(f"{option} {described}"))


def strip_catalogue(options: list[str], text: str) -> str:
    """The text without the lines that list the options (they name every option, so they would
    make every option match); kept as is when fewer than two options are named."""
    lowered = text.lower()
    if sum(1 for o in options if o.lower() in lowered) < 2:
        return text
    opts = [o.lower() for o in options]
    keep = [ln for ln in text.splitlines() if not any(o in ln.lower() for o in opts)]
    return "\n".join(keep)


def listed_playbooks(text: str) -> dict[str, dict[str, Any]]:
    """Entries of JSON playbook lists in `text` (`[{"name": ..., "keywords": [...], ...}, ...]`), by name."""
    found: dict[str, dict[str, Any]] = {}
    decoder = json.JSONDecoder()
    for match in _LISTING_RE.finditer(text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        for entry in value if isinstance(value, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                kws = entry.get("keywords")
                found[entry["name"]] = {
                    "display_name": str(entry.get("display_name") or ""),
                    "description": str(entry.get("description") or ""),
                    "keywords": [str(k) for k in kws] if isinstance(kws, list) else [],
                }
    return found


_MAKES = re.compile(r"create|generate|edit|write|production|作る|作成|書く|描く|生成|編集|制作|書き換")


def _evidence(options: list[str], query: str, schema: dict[str, Any], context: str,
              context_parts: Sequence[str] | None = None) -> dict[str, tuple[int, int, bool]]:
    """(score, keyword score, makes something) of each option: the keyword score counts only the option's
    name and keywords (a whole keyword 4, its stem 3, a content word of it 2), never description words."""
    extra: dict[str, list[str]] = {o: [] for o in options}
    mapping = schema.get("x-keywords")
    if isinstance(mapping, dict):
        for option, kws in mapping.items():
            if option in extra and isinstance(kws, list):
                extra[option] = [str(k) for k in kws] + extra[option]
    # `context_parts`: the strings `context` joins at newlines (the same answer, seen parts not searched again).
    described = catalogue(options, f"{schema.get('description', '')}\n{context}") if context_parts is None else \
        catalogue_of_parts(options, (str(schema.get("description", "")), *context_parts))
    for name, entry in listed_playbooks(context).items():
        if name in extra:
            extra[name] += [k for k in (entry.get("display_name"), *entry.get("keywords", [])) if k]
            described[name] = " ".join((described.get(name, ""), entry["display_name"], entry["description"])).strip()
    for entry in schema.get("oneOf", []) + schema.get("anyOf", []):
        if isinstance(entry, dict) and entry.get("const") in extra:
            described[entry["const"]] = described.get(entry["const"], "") + " " + \
                str(entry.get("description", "")) + " " + str(entry.get("title", ""))
    q = query.lower()
    targets = schema.get("x-targets")
    targets = targets if isinstance(targets, dict) else {}
    out: dict[str, tuple[int, int]] = {}
    for option in options:
        wanted = targets.get(option)
        if isinstance(wanted, list) and not any(str(w).lower() in q for w in wanted if w):
            out[option] = (0, 0, False)  # acts on an item, and the request names or points at none
            continue
        keyword = sum(8 for a in _aliases_lower(option) if a in q)
        partial = 0
        for kw in extra[option]:
            low, stem, parts = _keyword_forms(kw)
            if low in q:
                keyword += 4
            elif stem and stem in q:
                keyword += 3
            elif any(map(q.__contains__, parts)):
                partial = 2  # `日記にまとめて` shares `日記` with the keyword `日記を書` (counted once)
        keyword = keyword or partial
        # A shared description word is weak evidence, a short one (画像, 作品) weaker still.
        text_of = described.get(option, "")
        weak = 0
        for w, weight in _description_words(text_of):
            if w in q:
                weak += weight
        out[option] = (keyword + weak, keyword, _makes(option, text_of))
    return out


def score_options(options: list[str], query: str, *, schema: dict[str, Any] | None = None,
                  context: str = "") -> dict[str, int]:
    """Keyword score of each option against `query` (higher is better; 0 means no evidence).

    `schema` is the enum's property schema (its `description`, `x-keywords`, `oneOf` entries);
    `context` is other text that may describe the options (system prompt, the full prompt).
    """
    return {o: ev[0] for o, ev in _evidence(options, query, schema or {}, context).items()}


_QUESTION = re.compile(r"[？?]\s*$|(何|なに|どこ|だれ|誰|いつ|どう|どれ|なぜ|どうして|どんな|いくつ|教えて)")


def is_question(text: str) -> bool:
    """Whether a request asks something (ends with ？, or asks 何/どこ/いつ/教えて…)."""
    return bool(_QUESTION.search(text.strip()))


def pick_option(options: list[Any], query: str, *, schema: dict[str, Any] | None = None,
                context: str = "", default: Any = None, exclude: frozenset[str] = frozenset(),
                context_parts: Sequence[str] | None = None) -> Any:
    """The best-scoring option; ties go to the earlier option; too little evidence → `default` or first.

    A question goes to an option that makes something (a document, a picture, an edit) only by that
    option's own keywords: description words alone do not turn "図書館の一番古い本は？" into a document.
    Options in `exclude` (steps already done) are not chosen. `context_parts`, when given, are what
    `context` joins with newlines (`"\\n".join(context_parts) == context`).
    """
    if not options:
        return default
    strings = [o for o in options if isinstance(o, str) and o not in exclude]
    if strings:
        evidence = _evidence(strings, strip_catalogue(strings, query), schema or {}, context, context_parts)
        asking = is_question(query)
        scores = {o: (kw if asking and makes else score) for o, (score, kw, makes) in evidence.items()}
        best = max(strings, key=lambda o: (scores[o], -strings.index(o)))
        # One shared description word (score 1) is too little evidence to override the default.
        if scores[best] >= 2:
            return best
    return default if default in options else options[0]
