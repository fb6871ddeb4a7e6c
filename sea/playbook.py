"""Pydantic models of the SAIVerse playbook format (README, "Playbooks") and loading with clear errors.

Why pydantic: the format is JSON written by people and by personas; pydantic gives field-level
errors we can turn into messages that name the playbook, the node and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

NodeType = Literal[
    "llm", "tool", "tool_call", "speak", "think", "memorize", "say", "pass", "set", "subplay", "exec"
]
"""Every node type of the format."""

Operator = Literal["eq", "ne", "gt", "gte", "lt", "lte"]
"""Comparison operators of `conditional_next`."""


class PlaybookError(ValueError):
    """A playbook that cannot be loaded or run; the message names playbook, node and field."""

    def __init__(self, message: str, *, playbook: str = "", node: str = "", field: str = "") -> None:
        where = " / ".join(p for p in (
            f"playbook {playbook!r}" if playbook else "",
            f"node {node!r}" if node else "",
            f"field {field!r}" if field else "",
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


class ConditionalNext(BaseModel):
    """Branching on a state field: `cases` maps values to node ids; `default` otherwise."""

    model_config = ConfigDict(extra="forbid")
    field: str
    operator: Operator = "eq"
    cases: dict[str, str | None] = Field(default_factory=dict)
    default: str | None = None


class MemorizeOption(BaseModel):
    """`memorize` option of an llm node: store its output with these tags."""

    model_config = ConfigDict(extra="forbid")
    tags: list[str] = Field(default_factory=list)
    role: Literal["user", "assistant", "system"] = "assistant"


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
    output_keys: list[str] | None = None
    available_tools: list[str] | None = None
    speak: bool = False
    memorize: MemorizeOption | bool | None = None
    model_type: Literal["normal", "lightweight"] = "normal"
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
    propagate_output: bool = False


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
    nodes: list[Node]
    start_node: str | None = None

    def node(self, node_id: str) -> Node:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise PlaybookError("no such node", playbook=self.name, node=node_id)

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
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
    elif err["type"] == "literal_error" and field == "type":
        msg = f"unknown node type {err.get('input')!r} ({msg})"
    return PlaybookError(msg, playbook=name, node=node_id, field=field)


def parse_playbook(data: dict[str, Any] | str, *, source: str = "") -> Playbook:
    """Parse and structurally check a playbook; raises PlaybookError with a precise message."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PlaybookError(
                f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                playbook=source,
            ) from exc
    if not isinstance(data, dict):
        raise PlaybookError("a playbook must be a JSON object", playbook=source)
    name = str(data.get("name") or source or "?")
    try:
        pb = Playbook.model_validate(data)
    except ValidationError as exc:
        raise _pydantic_message(name, exc, data) from exc
    check_structure(pb)
    return pb


def check_structure(pb: Playbook) -> None:
    """Graph-level checks: ids unique, every edge points at a node, every node reachable."""
    if not pb.nodes:
        raise PlaybookError("has no nodes", playbook=pb.name, field="nodes")
    ids = [n.id for n in pb.nodes]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise PlaybookError(f"duplicate node id {sorted(dup)[0]!r}", playbook=pb.name, field="nodes")
    known = set(ids)
    if pb.start not in known:
        raise PlaybookError(f"start_node {pb.start!r} is not a node", playbook=pb.name, field="start_node")
    for n in pb.nodes:
        for field, target in _edges(n):
            if target is not None and target not in known:
                raise PlaybookError(f"points to missing node {target!r}", playbook=pb.name, node=n.id, field=field)
        if n.type == "subplay" and not n.playbook:
            raise PlaybookError("subplay needs `playbook`", playbook=pb.name, node=n.id, field="playbook")
    reachable: set[str] = set()
    todo = [pb.start]
    while todo:
        cur = todo.pop()
        if cur in reachable:
            continue
        reachable.add(cur)
        todo.extend(t for _, t in _edges(pb.node(cur)) if t is not None)
    for n in pb.nodes:
        if n.id not in reachable:
            raise PlaybookError("is unreachable from the start node", playbook=pb.name, node=n.id)


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
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlaybookError(f"cannot read {p}: {exc.strerror}", playbook=p.stem) from exc
    return parse_playbook(text, source=p.stem)


BUILTIN_DIR = Path(__file__).resolve().parents[1] / "playbooks"


def builtin_playbooks() -> dict[str, Playbook]:
    """Every playbook shipped in `playbooks/`, by name."""
    out: dict[str, Playbook] = {}
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        pb = load_playbook_file(path)
        out[pb.name] = pb
    return out
