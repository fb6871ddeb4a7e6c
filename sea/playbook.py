"""Pydantic models of the SAIVerse playbook format (README, "Playbooks") and loading with clear errors.

Why pydantic: the format is JSON written by people and by personas; pydantic gives field-level
errors we can turn into messages that name the playbook, the node and the field.

The format is upstream SAIVerse's (maha0525/SAIVerse) plus a few fields of our own (`keywords`,
`x-enum-source`, `error_next`, ...). Upstream fields are accepted and kept as written; what each
one means here, or why it is ignored, is in `sea/compat.py`. A field neither format knows is an
error, so a typo never passes silently.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from portable import O_BINARY, O_NONBLOCK
from sea._field_words import field_words
from sea.lines import LineRole, Scope, UnknownField, split_unknown
from words import say

NodeType = Literal[
    "llm", "tool", "tool_call", "speak", "think", "memorize", "say", "pass", "set", "subplay", "exec",
    "stelis_start", "stelis_end",
]
"""Every node type of the format."""

Operator = Literal["eq", "ne", "gt", "gte", "lt", "lte", "contains"]
"""Comparison operators of `conditional_next` (`contains`: the value contains the case)."""

MAX_PLAYBOOK_BYTES = 1_000_000
"""A playbook file (or text) larger than this is refused before it is parsed."""

MAX_NODES = 1_000
"""Most nodes one playbook may have (the largest upstream playbook has a few dozen); larger work is
split into playbooks that call each other."""

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
"""A playbook name: an identifier (letters, digits, `_`), so it can never be a path."""


class PlaybookError(ValueError):
    """A playbook that cannot be loaded or run; the message names playbook, node and field."""

    def __init__(self, message: str, *, playbook: str = "", node: str = "", field: str = "") -> None:
        where = " / ".join(p for p in (
            say("pb_playbook", name=playbook) if playbook else "",
            say("pb_node", name=node) if node else "",
            say("pb_field", name=field) if field else "",
        ) if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.playbook, self.node, self.field = playbook, node, field


class InputParam(BaseModel):
    """One parameter of a playbook's signature (`input_schema`)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    required: bool = False
    default: Any = None
    # upstream (sea/compat.py says what each does here)
    param_type: str | None = None
    """`string`, `number`, `boolean` or `enum`: passed values are converted (or refused) accordingly."""
    enum_values: list[Any] | None = None
    """The allowed values of an `enum` parameter."""
    enum_source: str | None = None
    """Upstream UI: where a dropdown's choices come from (kept, not used here)."""
    user_configurable: bool | None = None
    """Upstream UI: show the parameter in the run form (kept, not used here)."""
    ui_widget: str | None = None
    """Upstream UI: which widget edits the parameter (kept, not used here)."""
    source: str | None = None
    """Old upstream: a parent state key to read the value from (kept, not used here)."""


class ConditionalNext(BaseModel):
    """Branching on a state field: `cases` maps values to node ids; `default` otherwise.

    As upstream, a case written `"default"` is the fallback too (`cases: {"x": "a", "default": "b"}`).
    """

    model_config = ConfigDict(extra="forbid")
    field: str
    operator: Operator = "eq"
    cases: dict[str, str | None] = Field(default_factory=dict)
    default: str | None = None

    @field_validator("operator", mode="before")
    @classmethod
    def _operator_default(cls, value: Any) -> Any:
        return "eq" if value is None else value

    def branches(self) -> dict[str, str | None]:
        """The value cases, without the upstream `"default"` key."""
        return {k: v for k, v in self.cases.items() if k != "default"}

    def fallback(self) -> str | None:
        """Where to go when no case matches (`default`, else the `"default"` case; None ends)."""
        return self.default if "default" in self.model_fields_set else self.cases.get("default")


class MemorizeOption(BaseModel):
    """`memorize` option of an llm node: store its output with these tags."""

    model_config = ConfigDict(extra="forbid")
    tags: list[str] = Field(default_factory=list)
    role: Literal["user", "assistant", "system"] = "assistant"
    line_role: LineRole | None = None
    """Upstream v0.3: the line the stored message belongs to (default: the line the node runs on)."""
    scope: Scope | None = None
    """Upstream v0.3: `committed` (default), `discardable` or `volatile` (sea/lines.py)."""


class StelisConfig(BaseModel):
    """Upstream `stelis_start` options: `max_depth` limits nesting; the rest is kept, not used."""

    model_config = ConfigDict(extra="forbid")
    window_ratio: float | None = None
    max_depth: int = 3
    chronicle_prompt: str | None = None


class Node(BaseModel):
    """One node; which optional fields apply depends on `type` (README, "Playbooks")."""

    model_config = ConfigDict(extra="forbid")
    id: str
    type: NodeType
    next: str | None = None
    conditional_next: ConditionalNext | None = None
    error_next: str | None = None
    description: str = ""
    action: str | None = None
    # llm
    response_schema: dict[str, Any] | None = None
    output_key: str | None = None
    output_mapping: dict[str, str] | None = None
    output_keys: list[str | None | dict[str, str]] | None = None
    """`[text_key, call_key]`, or upstream's `[{"text": k}, {"function_call": k}, {"thought": k}]`."""
    available_tools: list[str] | None = None
    speak: bool | None = False
    memorize: MemorizeOption | bool | None = None
    model_type: Literal["normal", "lightweight"] | None = "normal"
    context_profile: str | None = None
    """Upstream: `conversation`, `router`, `worker`, `worker_light` (model choice and context)."""
    metadata_key: str | None = None
    """Upstream: the variable whose object is attached to the spoken / stored message's event."""
    # tool / tool_call
    args_input: dict[str, Any] | None = None
    call_source: str | None = None
    # memorize
    role: Literal["user", "assistant", "system"] | None = None
    tags: list[str] | None = None
    # set
    assignments: dict[str, Any] | None = None
    # subplay / exec
    playbook: str | None = None
    playbook_source: str | None = None
    args: dict[str, Any] | None = None
    args_source: str | None = None
    propagate_output: bool | None = False
    isolate_pulse_context: bool | None = None
    """Upstream: the called playbook starts without this pulse's in-flight messages."""
    execution: Literal["inline", "subagent"] | None = None
    """Upstream: `subagent` runs the callee apart (it neither sees nor leaves in-flight messages)."""
    input_template: str | None = None
    """Old upstream subplay: the callee's `input`, as a template."""
    # stelis_start / stelis_end
    label: str | None = None
    stelis_config: StelisConfig | None = None
    generate_chronicle: bool | None = None
    # upstream fields kept but without effect here (sea/compat.py says why)
    subagent_chronicle: bool | None = None
    tools: list[str] | None = None
    important: bool | None = None
    line: Literal["main", "sub"] | None = None
    """Upstream v0.3 (subplay): `sub` runs the callee on a sub-line (sea/lines.py)."""
    line_role: LineRole | None = None
    """Upstream v0.3 (memorize): the line the stored message belongs to."""
    scope: Scope | None = None
    """Upstream v0.3 (memorize): how long the stored message lives and whether prompts see it."""
    response_schema_source: str | None = None

    def output_targets(self) -> dict[str, str]:
        """`output_keys` as kind → variable (`text`, `function_call`, `thought`), whichever form."""
        out: dict[str, str] = {}
        kinds = ("text", "function_call")
        for i, entry in enumerate(self.output_keys or []):
            if isinstance(entry, dict):
                out.update({k: v for k, v in entry.items() if v})
            elif entry and i < len(kinds):
                out[kinds[i]] = entry
        return out

    def written_keys(self) -> list[str]:
        """Every variable `output_keys` names, in either form."""
        keys: list[str] = []
        for entry in self.output_keys or []:
            if isinstance(entry, dict):
                keys += [v for v in entry.values() if v]
            elif entry:
                keys.append(entry)
        return keys


class Playbook(BaseModel):
    """A whole playbook: signature, nodes and where to start."""

    model_config = ConfigDict(extra="forbid")
    name: str
    display_name: str = ""
    description: str = ""
    scope: str = "public"
    input_schema: list[InputParam] = Field(default_factory=list)
    output_schema: list[Any] | dict[str, Any] | None = None
    router_callable: bool = False
    user_selectable: bool = False
    keywords: list[str] = Field(default_factory=list)
    acts_on: Literal["item", "building"] | None = None
    """Ours: what the playbook acts on. A router chooses it only for a request that names one (an item
    here, a building of the city) or points at one (「この絵」, 「文書を」); a sentence that merely shares a
    verb with its keywords (「星を見るのが好き」, 「また見に来るよ」) is conversation
    (sea/router.py, `with_targets`)."""
    nodes: list[Node]
    start_node: str | None = None
    # upstream top-level fields (sea/compat.py)
    dev_only: bool | None = None
    """Upstream: shown only in developer mode; here never offered to a router."""
    required_credentials: list[str] | None = None
    """Upstream: accounts a persona needs (e.g. `x`); none are configured here, so never routed to."""
    context_requirements: dict[str, Any] | None = None
    """Upstream: how much context the model sees; `history_depth` is honoured."""
    input_template: str | None = None
    report_template: str | None = None
    can_run_as_child: bool | None = None
    description_en: str | None = None
    _source: dict[str, Any] | None = PrivateAttr(default=None)
    _text_names: frozenset[str] = PrivateAttr(default=frozenset())
    _unknown: list[str] = PrivateAttr(default_factory=list)

    @property
    def text_placeholders(self) -> frozenset[str]:
        """Placeholder names in `action` texts that nothing sets: text kept as written (found by
        validation; upstream leaves unknown placeholders in prompts as they are)."""
        return self._text_names

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not NAME_RE.match(value):
            raise ValueError(say("pb_bad_name", value=value))
        return value

    def source_json(self) -> str:
        """The playbook as it was written (every field kept), or as the model holds it."""
        if self._source is not None:
            return json.dumps(self._source, ensure_ascii=False)
        return self.model_dump_json(exclude_none=True)

    def node(self, node_id: str) -> Node:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise PlaybookError(say("pb_no_such_node"), playbook=self.name, node=node_id)

    @property
    def start(self) -> str:
        return self.start_node or self.nodes[0].id


def _pydantic_message(name: str, exc: ValidationError, raw: dict[str, Any]) -> PlaybookError:
    err = exc.errors()[0]
    loc = list(err["loc"])
    node_id = ""
    if len(loc) >= 2 and loc[0] == "nodes" and isinstance(loc[1], int):
        nodes = raw.get("nodes") or []
        if loc[1] < len(nodes) and isinstance(nodes[loc[1]], dict):
            node_id = str(nodes[loc[1]].get("id", f"#{loc[1]}"))
        loc = loc[2:]
    field = ".".join(str(p) for p in loc)
    return PlaybookError(field_words(err, field), playbook=name, node=node_id, field=field)


def parse_playbook(data: dict[str, Any] | str, *, source: str = "") -> Playbook:
    """Parse and structurally check a playbook; raises PlaybookError with a precise message."""
    if isinstance(data, str):
        size = len(data.encode("utf-8"))
        if size > MAX_PLAYBOOK_BYTES:
            raise PlaybookError(say("pb_text_too_big", size=size, limit=MAX_PLAYBOOK_BYTES), playbook=source)
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PlaybookError(say("pb_not_json", line=exc.lineno, col=exc.colno, msg=exc.msg),
                                playbook=source) from exc
        except RecursionError as exc:
            raise PlaybookError(say("pb_too_deep"), playbook=source) from exc
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:  # a `\ud800` escape: text no database or model can take
            raise PlaybookError(say("pb_surrogate"), playbook=source) from exc
        except RecursionError as exc:
            raise PlaybookError(say("pb_too_deep"), playbook=source) from exc
    if not isinstance(data, dict):
        raise PlaybookError(say("pb_not_object"), playbook=source)
    name = str(data.get("name") or source or "?")
    if isinstance(data.get("nodes"), list):
        _check_node_count(len(data["nodes"]), name)  # before pydantic builds a model of each
    try:
        known, unknown = split_unknown(data, _known_fields())
    except UnknownField as exc:
        raise PlaybookError(str(exc), playbook=name, node=exc.node, field=exc.field) from exc
    try:
        pb = Playbook.model_validate(known)
    except ValidationError as exc:
        raise _pydantic_message(name, exc, data) from exc
    pb._source = data
    pb._unknown = unknown
    check_structure(pb)
    return pb


def _check_node_count(count: int, name: str) -> None:
    if count > MAX_NODES:
        raise PlaybookError(say("pb_too_many_nodes", count=count, limit=MAX_NODES), playbook=name, field="nodes")

def _known_fields() -> dict[str, frozenset[str]]:
    """Field names of each level of the format (sea.lines.split_unknown)."""
    return {"top": frozenset(Playbook.model_fields), "param": frozenset(InputParam.model_fields),
            "node": frozenset(Node.model_fields), "memorize": frozenset(MemorizeOption.model_fields),
            "conditional_next": frozenset(ConditionalNext.model_fields),
            "stelis_config": frozenset(StelisConfig.model_fields)}


def check_structure(pb: Playbook) -> None:
    """Graph-level checks: ids unique, every edge points at a node, every node reachable."""
    if not pb.nodes:
        raise PlaybookError(say("pb_no_nodes"), playbook=pb.name, field="nodes")
    _check_node_count(len(pb.nodes), pb.name)
    # Every check below is linear in the nodes (sets and a dict, never a search per node).
    by_id: dict[str, Node] = {}
    dup: set[str] = set()
    for n in pb.nodes:
        if n.id in by_id:
            dup.add(n.id)
        by_id[n.id] = n
    if dup:
        raise PlaybookError(say("pb_duplicate_id", id=sorted(dup)[0]), playbook=pb.name, field="nodes")
    known = set(by_id)
    if pb.start not in known:
        raise PlaybookError(say("pb_bad_start", start=pb.start), playbook=pb.name, field="start_node")
    for n in pb.nodes:
        for field, target in _edges(n):
            if target is not None and target not in known:
                raise PlaybookError(say("pb_missing_target", target=target), playbook=pb.name, node=n.id, field=field)
        if n.type == "subplay" and not n.playbook:
            raise PlaybookError(say("pb_subplay_needs"), playbook=pb.name, node=n.id, field="playbook")
        cond = n.conditional_next
        if cond and "default" in cond.model_fields_set and "default" in cond.cases and \
                cond.cases["default"] != cond.default:
            raise PlaybookError(say("pb_fallback_twice"), playbook=pb.name, node=n.id, field="conditional_next")
    reachable: set[str] = set()
    todo = [pb.start]
    while todo:
        cur = todo.pop()
        if cur in reachable:
            continue
        reachable.add(cur)
        todo.extend(t for _, t in _edges(by_id[cur]) if t is not None)
    for n in pb.nodes:
        if n.id not in reachable:
            raise PlaybookError(say("pb_unreachable"), playbook=pb.name, node=n.id)


def _edges(n: Node) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = [("next", n.next)]
    if n.error_next:
        out.append(("error_next", n.error_next))
    if n.conditional_next:
        out += [(f"conditional_next.cases.{k}", v) for k, v in n.conditional_next.cases.items()]
        out.append(("conditional_next.default", n.conditional_next.default))
    return out


def load_playbook_file(path: str | Path) -> Playbook:
    """Read and parse a playbook JSON file."""
    p = Path(path)
    try:
        # Opened without blocking and checked before reading: a FIFO would wait forever for a writer,
        # and /dev/zero never ends; only a regular file of at most MAX_PLAYBOOK_BYTES is read.
        fd = os.open(p, os.O_RDONLY | O_NONBLOCK | O_BINARY)
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                key = "pb_folder" if stat.S_ISDIR(info.st_mode) else "pb_not_regular"
                raise PlaybookError(say(key, path=p), playbook=p.stem)
            if info.st_size > MAX_PLAYBOOK_BYTES:
                raise PlaybookError(say("pb_too_big", name=p.name, size=info.st_size, limit=MAX_PLAYBOOK_BYTES),
                                    playbook=p.stem)
            raw = fh.read(MAX_PLAYBOOK_BYTES + 1)
        if len(raw) > MAX_PLAYBOOK_BYTES:  # it grew while being read
            raise PlaybookError(say("pb_grew", name=p.name, limit=MAX_PLAYBOOK_BYTES), playbook=p.stem)
        text = raw.decode("utf-8")
    except IsADirectoryError as exc:
        raise PlaybookError(say("pb_folder", path=p), playbook=p.stem) from exc
    except OSError as exc:
        why = say("in_no_permission") if isinstance(exc, PermissionError) else exc.strerror
        raise PlaybookError(say("pb_unreadable", path=p, why=why), playbook=p.stem) from exc
    except UnicodeDecodeError as exc:
        raise PlaybookError(say("pb_not_utf8", name=p.name), playbook=p.stem) from exc
    return parse_playbook(text, source=p.stem)


BUILTIN_DIR = Path(__file__).resolve().parents[1] / "playbooks"


def builtin_playbooks() -> dict[str, Playbook]:
    """Every playbook shipped in `playbooks/`, by name."""
    out: dict[str, Playbook] = {}
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        pb = load_playbook_file(path)
        out[pb.name] = pb
    return out
