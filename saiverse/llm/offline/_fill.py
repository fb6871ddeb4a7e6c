"""How the offline model fills a JSON schema: always valid, and as sensible as keywords allow.

Values are chosen by type and by property name — `content`/`query` get the user's request,
`name`/`title` a short title from it, `reply`/`message` the offline reply, `*_id` an id seen in the
conversation; string enums are picked by keyword (`schema.pick_option`); `default`, `const`,
`minItems`, `minimum`/`maximum` and `minLength`/`maxLength` are honoured.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from chat.titles import asks_to_make, named_title, request_subject, request_title, without_title
from saiverse.llm.schema import listed_playbooks, pick_option, resolve, schema_type, words
from words import say

_TEXT_NAMES = ("content", "text", "query", "input", "prompt", "request", "body", "question",
               "patch", "search", "instruction", "task", "goal", "topic")
_REPLY_NAMES = ("reply", "response", "answer", "speak", "speech", "utterance", "message", "say")
_TITLE_NAMES = ("name", "title", "subject", "filename", "label", "heading")
_SUMMARY_NAMES = ("description", "summary", "abstract", "caption")
_REASON_NAMES = ("reason", "reasoning", "thought", "thinking", "explanation", "rationale", "note")
_TRUE_NAMES = ("done", "finished", "finish", "complete", "completed", "stop", "end", "satisfied",
               "is_final", "final")
_ID_RE = re.compile(
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?:[A-Za-z]+_)+[0-9A-Za-z]*\d[0-9A-Za-z]*\b"
)
_URL_RE = re.compile(r"https?://[^\s「」()<>\"']+")
_DATE_RE = re.compile(r"\b(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})日?")
_PLAYBOOK_NAMES = ("playbook", "playbook_name", "selected_playbook")


@dataclass
class FillHints:
    """What the filler knows about the conversation."""

    user_text: str
    """The request: the last genuine user message (catalogue lines removed)."""
    reply_of: Callable[[], str]
    """Makes the offline reply, for properties that hold what the persona says (`reply`)."""
    context: str
    """Every text of the request (system prompt, all messages), to find ids and option texts."""
    summary: str = ""
    """A short extractive summary of `user_text`."""
    done: frozenset[str] = frozenset()
    """Playbooks this pulse already ran (their results are in the conversation): a router does not
    choose them again, so a multi-step turn never repeats a step and ends when nothing is left."""
    context_parts: tuple[str, ...] | None = None
    """What `context` joins with newlines, when known: keyword routing then looks at each part once
    (saiverse/llm/catalogue.py, `catalogue_of_parts`); None: `context` as one text."""
    conversation: tuple[str, ...] = ()
    """What was said before the request (the user's lines and the persona's, oldest first): what a
    request to put the conversation in writing (`今日の日記を文書にまとめて`) writes down."""

    @cached_property
    def reply(self) -> str:
        """The offline reply, made on first use: a router's choice (most schemas) never asks for it."""
        return self.reply_of()


def _name_has(prop: str, names: tuple[str, ...]) -> bool:
    low = prop.lower()
    parts = re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", prop)
    return low in names or any(p.lower() in names for p in parts if p)


_GENERIC_TITLES = {"ドキュメント", "文書", "文章", "テキスト", "ファイル", "メモ", "ノート", "document", "新しい文書"}
"""What a request calls the thing it wants made; as a title it says nothing, so the topic is used."""


_MAKE = re.compile(r"(の絵|の画像|のイラスト)?を?(描いて|書いて|かいて|作って|つくって|生成して|作成して)"
                   r"(ください|下さい|ほしい|欲しい|くれる|くれない|もらえる)?(かな|な|ね|よ)?[？?。！!]*$")


def subject(text: str) -> str:
    """What a drawing or writing request is about: `海の絵を描いて` → `海` (the request verbs dropped)."""
    stripped = _MAKE.sub("", text.strip()).strip(" 　、。")
    return stripped or text.strip()


def _clause_title(text: str, limit: int) -> str:
    first = re.split(r"[。！？!?\n、,:：]", text.strip(), maxsplit=1)[0]
    first = re.sub(r"^[@＠]\S+\s*", "", first).strip(" 　「」『』\"'")
    first = re.sub(r"(の絵|の画像|のイラスト)を(描いて|かいて|作って|生成して)", "", first)
    first = re.sub(r"(ください|下さい|ね|お願い(します)?)$", "", first)
    verbs = "書いて|作って|描いて|作成して|教えて|見せて|調べて|読んで|まとめて|つけて|付けて|残して|して"
    first = re.sub(rf"(を|について)?({verbs})$", "", first).strip()
    first = re.sub(r"(について|のこと|に関して)$", "", first).strip()
    return first[:limit]


_KIND = re.compile(r"(日記|詩|物語|手紙|メモ|レポート|感想文|報告書|一覧)(に|を|として)(まとめ|書|作|残)")


def short_title(text: str, limit: int = 20) -> str:
    """A title from the first clause of `text`: no quotes or trailing punctuation, ≤ `limit`. A
    generic first clause (`ドキュメントを作成して: 図書館の猫について…`) gives way to the topic after it."""
    if named := named_title(text, limit):
        return named  # `「星の夜」というタイトルで`: the request names it
    title = _clause_title(text, limit)
    kind = _KIND.search(text)
    if kind and kind.group(1) not in title:
        return kind.group(1)  # `昨日のことを思い出して、日記にまとめて`: the document is a 日記
    if asks_to_make(text) and (made := request_title(text, limit)):
        return made  # `ソラ、海の絵を描いて、夕方の景色で`: the thing asked for, described (chat/titles.py)
    if title.lower() in _GENERIC_TITLES or not title:
        body = payload(text)
        if body != text:
            title = _clause_title(body, limit) or title
    return title or say("offline_untitled")


_FROM_TALK = re.compile(r"まとめ|日記|振り返|記録|書き留め|残して")
"""A request to put what was said in writing, when it carries no text of its own."""
_PAYLOAD_NAMES = ("content", "text", "body", "patch", "prompt")
_QUOTED = re.compile(r"「([^「」]{2,})」")


def payload(text: str) -> str:
    """What a request carries, for content-like fields: the part after the first colon
    (`日記を書いて: 今日は…`), else the first 「quoted」 part, else the whole request — never the words
    that name its title (`「星の夜」というタイトルで`)."""
    text = without_title(text)
    for sep in ("：", ":"):
        head, found, tail = text.partition(sep)
        if found and tail.strip() and len(head) <= 40:
            return tail.strip()
    quoted = _QUOTED.search(text)
    return quoted.group(1).strip() if quoted else text


def _pick_id(hints: FillHints) -> str:
    ids = list(dict.fromkeys(_ID_RE.findall(hints.context)))
    if not ids:
        return ""
    # Prefer the id whose line shares the most words with the request.
    lines = hints.context.splitlines()
    # Lines that carry ids are the catalogue, not the request.
    req = set(words("\n".join(ln for ln in hints.user_text.splitlines() if not _ID_RE.search(ln))))

    def score(ident: str) -> int:
        line = next((ln for ln in lines if ident in ln), "")
        return len(req & set(words(line)))

    return max(ids, key=lambda i: (score(i), -ids.index(i)))


def _date(hints: FillHints) -> str:
    """A date the request names (YYYY-MM-DD), else empty: date filters are optional."""
    m = _DATE_RE.search(hints.user_text)
    return f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}" if m else ""


def _listed_playbook(hints: FillHints) -> str | None:
    """A playbook chosen by keyword from the JSON list in the prompt (upstream's router has no enum)."""
    listed = list(listed_playbooks(hints.context))
    if not listed:
        return None
    fallback = "basic_chat" if "basic_chat" in listed else listed[0]
    return str(pick_option(listed, hints.user_text, context=hints.context, context_parts=hints.context_parts,
                           default=fallback, exclude=hints.done))


def _string(prop: str, schema: dict[str, Any], hints: FillHints) -> str:
    fmt = schema.get("format")
    if prop.lower() in _PLAYBOOK_NAMES and (chosen := _listed_playbook(hints)) is not None:
        value = chosen
    elif fmt == "date-time":
        value = "1970-01-01T00:00:00Z"  # deterministic: the offline model never reads the clock
    elif fmt == "date":
        value = "1970-01-01"
    elif prop.lower() == "date" or prop.lower().endswith("_date"):
        value = _date(hints)
    elif fmt in ("uri", "url") or _name_has(prop, ("url", "uri", "link")):
        match = _URL_RE.search(hints.user_text)
        value = match.group(0) if match else ("https://example.invalid/" if fmt else "")
    elif prop.lower() == "id" or prop.lower().endswith("_id") or prop.endswith("Id"):
        value = _pick_id(hints)
    elif _name_has(prop, _REPLY_NAMES):
        value = hints.reply
    elif _name_has(prop, _TITLE_NAMES):
        value = short_title(hints.user_text)
    elif _name_has(prop, _SUMMARY_NAMES):
        value = hints.summary or short_title(hints.user_text, 100)
    elif _name_has(prop, _REASON_NAMES):
        value = say("offline_reason")
    elif prop.lower() == "prompt":
        value = request_subject(hints.user_text) if asks_to_make(hints.user_text) else subject(payload(hints.user_text))
    elif _name_has(prop, _PAYLOAD_NAMES):
        value = payload(hints.user_text)
        if value == without_title(hints.user_text) and hints.conversation and _FROM_TALK.search(value):
            value = "\n".join(hints.conversation)  # `今日の日記をまとめて`: what was said is the body
    elif _name_has(prop, _TEXT_NAMES):
        value = hints.user_text
    else:
        value = hints.user_text
    min_len = int(schema.get("minLength", 0))
    if len(value) < min_len:
        value = value or say("short_offline")
        value += "…" * (min_len - len(value))
    if "maxLength" in schema:
        value = value[: int(schema["maxLength"])]
    return value


def _number(prop: str, schema: dict[str, Any], integer: bool) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], int | float):
        low = schema["exclusiveMinimum"] + (1 if integer else 1e-6)
    if "exclusiveMaximum" in schema and isinstance(schema["exclusiveMaximum"], int | float):
        high = schema["exclusiveMaximum"] - (1 if integer else 1e-6)
    value: float = 0
    if low is not None:
        value = low
    if high is not None and value > high:
        value = high
    if integer:
        import math
        value = math.ceil(value) if low is not None else int(value)
    return int(value) if integer else float(value)


def _array(prop: str, schema: dict[str, Any], hints: FillHints, root: dict[str, Any],
           depth: int) -> list[Any]:
    lo = int(schema.get("minItems", 0))
    hi = schema.get("maxItems")
    count = max(lo, 1)
    if hi is not None:
        count = min(count, int(hi))
    item_schema = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    item_schema = resolve(item_schema, root)
    if schema_type(item_schema) == "string" and "enum" not in item_schema and \
            _name_has(prop, ("keywords", "keyword", "tags", "tag", "words", "terms")):
        found = list(dict.fromkeys(words(hints.user_text)))[: max(count, 3)] or [short_title(hints.user_text)]
        if hi is not None:
            found = found[: int(hi)]
        while len(found) < lo:
            found.append(found[-1] if found else say("short_offline"))
        return found
    return [fill(item_schema, hints, root=root, prop=prop, depth=depth + 1) for _ in range(count)]


def fill(schema: dict[str, Any], hints: FillHints, *, root: dict[str, Any] | None = None,
         prop: str = "", depth: int = 0) -> Any:
    """A value valid for `schema`, chosen from `hints`; `prop` is the property name, if any."""
    root = root if root is not None else schema
    schema = resolve(schema, root)
    if depth > 12:  # recursive schemas: stop where nothing is required
        return None if schema_type(schema) in (None, "null") else {}
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema and schema[key]:
            consts = [s.get("const") for s in schema[key] if isinstance(s, dict) and "const" in s]
            if consts and len(consts) == len(schema[key]):
                return pick_option(consts, hints.user_text, schema=schema, context=hints.context,
                                   context_parts=hints.context_parts, default=schema.get("default"))
            subs = [resolve(s, root) for s in schema[key]]
            chosen = next((s for s in subs if schema_type(s) not in (None, "null")), subs[0])
            return fill(chosen, hints, root=root, prop=prop, depth=depth)
    if "enum" in schema:
        routing = "x-keywords" in schema or prop.lower() in _PLAYBOOK_NAMES
        return pick_option(list(schema["enum"]), hints.user_text, schema=schema, context=hints.context,
                           context_parts=hints.context_parts,
                           default=schema.get("default"), exclude=hints.done if routing else frozenset())
    typ = schema_type(schema)
    if "default" in schema and typ not in ("object", "array"):
        return schema["default"]
    if typ == "object":
        props = schema.get("properties", {})
        out: dict[str, Any] = {}
        for name, sub in props.items():
            out[name] = fill(sub, hints, root=root, prop=name, depth=depth + 1)
        return out
    if typ == "array":
        if "default" in schema and isinstance(schema["default"], list) and \
                len(schema["default"]) >= schema.get("minItems", 0):
            return schema["default"]
        return _array(prop, schema, hints, root, depth)
    if typ == "boolean":
        return _name_has(prop, _TRUE_NAMES)
    if typ == "integer":
        return _number(prop, schema, True)
    if typ == "number":
        return _number(prop, schema, False)
    if typ == "null":
        return None
    return _string(prop, schema, hints)
