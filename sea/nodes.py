"""Node effects, exactly as the node table in the README ("Playbooks"): what each node type writes where.

| type     | SAIMemory               | building / UI | outputs          |
|----------|-------------------------|---------------|------------------|
| llm      | only with `memorize`    | only `speak`  | only `speak`     |
| speak    | conversation + pulse    | yes           | yes              |
| think    | internal + pulse        | no            | no (bug fixed)   |
| memorize | role/tags + pulse       | no            | not in meta      |
| say      | no                      | yes           | yes              |

llm nodes live in `sea/llm_node.py`, subplay / exec in `sea/calls.py`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from chat import Message
from sea.bounds import StateTooLarge
from sea.events import event
from sea.expr import ExpressionError, ExpressionTooLarge, evaluate
from sea.playbook import Node, Playbook, PlaybookError
from sea.ports import CancellationToken, PersonaContext, RuntimePorts
from sea.templates import as_text, render
from sea.validate import DEFAULT_CALL_SOURCE, literal_arg, needs_tool
from tools.registry import ToolOutput

Emit = Callable[[dict[str, Any]], None]

MISSING = object()
"""What `path_value` returns for a path that leads nowhere."""


class PulseCancelled(Exception):
    """The pulse's cancellation token was set."""


class ToolMissing(PlaybookError):
    """A tool node names a tool this install does not have."""

    kind = "tool_unavailable"


@dataclass
class StelisFrame:
    """An open Stelis session: in-flight messages after `mark` and memory tagged `tag` belong to it."""

    owner: int
    """`id()` of the RunContext that opened it (only that run truncates its messages)."""
    mark: int
    tag: str
    label: str


@dataclass
class Threads:
    """Stelis sessions of one pulse, shared by every playbook the pulse runs."""

    open: list[StelisFrame] = field(default_factory=list)
    closed: set[str] = field(default_factory=set)
    """Tags of finished sessions: their messages are no longer shown to the model."""


@dataclass
class RunContext:
    """The `_` system namespace of one playbook run; children get a derived copy."""

    persona: PersonaContext
    building_id: str
    pulse_id: str
    ports: RuntimePorts
    playbook: str
    pulse_type: str = "user"
    cancel: CancellationToken = field(default_factory=CancellationToken)
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    trace: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    depth: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    """The pulse's metadata object (the `metadata` runtime variable)."""
    threads: Threads = field(default_factory=Threads)
    answered: list[str] = field(default_factory=list)
    """Names of the models that answered in this pulse, in order (shared with called playbooks)."""
    spent: list[tuple[str, int, int]] = field(default_factory=list)
    """(model, input tokens, output tokens) of every model call of this pulse (shared with called playbooks):
    what it cost, by model (saiverse/costs.py)."""
    line_id: str | None = None
    """The sub-line this run is on (a `subplay` with `line: "sub"`); None on the main line (sea/lines.py)."""
    invoke: Callable[[Playbook, RunContext, dict[str, Any], Emit], dict[str, Any]] | None = None
    """(callee, child context, variables, emit) → the callee's final variables: how this run runs a called
    playbook to its end (sea/runtime.py sets it; children inherit it). A tool's `run_playbook` uses it
    (sea/tool_playbook.py), which therefore needs nothing of the runtime."""

    @property
    def is_meta(self) -> bool:
        return self.playbook.startswith("meta_")

    def child(self, playbook: str, *, isolated: bool = False, sub_line: bool = False) -> RunContext:
        """System variables are inherited by a called playbook; its outputs are its own.
        `isolated`: it starts without the in-flight messages (upstream `isolate_pulse_context`);
        `sub_line`: it runs on a new sub-line (sea/lines.py)."""
        return RunContext(
            persona=self.persona, building_id=self.building_id, pulse_id=self.pulse_id,
            ports=self.ports, playbook=playbook, pulse_type=self.pulse_type, cancel=self.cancel,
            usage=self.usage, trace=self.trace, messages=[] if isolated else list(self.messages),
            depth=self.depth + 1, metadata=self.metadata, threads=self.threads, answered=self.answered,
            spent=self.spent,
            line_id=str(uuid.uuid4()) if sub_line else self.line_id, invoke=self.invoke,
        )

    def check_cancel(self) -> None:
        if self.cancel.cancelled:
            raise PulseCancelled("pulse cancelled")

    def remember(self, role: str, text: str, tags: list[str], *, line_role: str | None = None,
                 scope: str | None = None) -> None:
        """Store a SAIMemory message of this pulse (tagged with the open Stelis session, if any), on
        this run's line unless `line_role` says otherwise, `committed` unless `scope` does."""
        extra = [f.tag for f in self.threads.open[-1:]]
        line = {"line_role": line_role or ("sub_line" if self.line_id else "main_line"), "line_id": self.line_id,
                "scope": scope or "committed"}
        self.ports.remember(self.persona["persona_id"], role, text, list(dict.fromkeys(tags + extra)),
                            self.pulse_id, line=line)

    def base(self, node: Node) -> dict[str, Any]:
        return {
            "pulse_id": self.pulse_id, "persona_id": self.persona["persona_id"],
            "persona_name": self.persona.get("name"), "building_id": self.building_id,
            "playbook": self.playbook, "node": node.id,
        }


def text_of(ctx: RunContext, node: Node, vars_: dict[str, Any], keep: frozenset[str] = frozenset()) -> str:
    """`action` rendered, or `last` when action is null (speak, say, think, memorize)."""
    if node.action is None:
        if "last" not in vars_:
            raise PlaybookError("uses {last} (action is null) but no earlier node produced it",
                                playbook=ctx.playbook, node=node.id, field="action")
        return as_text(vars_["last"])
    return as_text(render(node.action, vars_, playbook=ctx.playbook, node=node.id, keep=keep))


def metadata_of(node: Node, vars_: dict[str, Any]) -> dict[str, Any] | None:
    """The object named by upstream's `metadata_key`, when it is a non-empty object."""
    if not node.metadata_key:
        return None
    value = path_value(vars_, node.metadata_key)
    return value if isinstance(value, dict) and value else None


def answering_model(ctx: RunContext) -> str:
    """The model that answered last in this pulse, else the persona's normal model (`model` of events)."""
    return ctx.answered[-1] if ctx.answered else ctx.ports.model_for(ctx.persona, "normal")[0].name


def speak(ctx: RunContext, node: Node, text: str, emit: Emit, *, tags: list[str] | None = None,
          metadata: dict[str, Any] | None = None, line_role: str | None = None, scope: str | None = None,
          cut: str | None = None) -> None:
    """Say `text` in the building and remember it; `cut`: it stopped before its end (can be continued)."""
    persona = ctx.persona
    ctx.remember("assistant", text, list(dict.fromkeys(["conversation", *(tags or [])])), line_role=line_role,
                 scope=scope)
    hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id, cut=cut)
    ctx.outputs.append(text)
    emit(event("speak", text=text, avatar=persona.get("avatar"), history_id=hid, metadata=metadata,
               model=answering_model(ctx), cut=cut, **ctx.base(node)))


def path_value(vars_: Any, path: str) -> Any:
    """The value at a dotted path; `MISSING` when a part is absent (or None on the way)."""
    cur: Any = vars_
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return MISSING
    return cur


def branch_value(path: str, vars_: dict[str, Any]) -> Any:
    """A `conditional_next` field; one that is not set is None and compares as empty (upstream's rule)."""
    value = path_value(vars_, path)
    return None if value is MISSING else value


def tool_args(ctx: RunContext, node: Node, vars_: dict[str, Any], declared: set[str] | None,
              emit: Emit) -> dict[str, Any]:
    """`args_input` resolved: state paths are read (a missing field below a set variable leaves the
    argument out, so the tool's default applies); `{"$literal": V}` and non-string values are used
    as written. Arguments the tool does not take here are left out with a notice."""
    args: dict[str, Any] = {}
    for key, spec in (node.args_input or {}).items():
        is_literal, value = literal_arg(spec)
        if is_literal:
            args[key] = value
            continue
        root = spec.split(".")[0]
        if root not in vars_:
            raise PlaybookError(f"args_input.{key} reads {{{root}}}, which is not set",
                                playbook=ctx.playbook, node=node.id, field=f"args_input.{key}")
        found = path_value(vars_, spec)
        if found is not MISSING and found is not None:
            args[key] = found
    if declared is not None:
        dropped = sorted(k for k in args if k not in declared)
        if dropped:
            emit(event("notice", kind="args_dropped", **ctx.base(node),
                       text=f"{node.action} が受け取らない引数を外しました: {', '.join(dropped)}"))
            args = {k: v for k, v in args.items() if k in declared}
    return args


_CALLING: ContextVar[tuple[tuple[RunContext, Emit], ...]] = ContextVar("sea_calling_tool", default=())
"""The runs currently inside a tool call, innermost last (tools do not see the run that called them)."""


@contextmanager
def calling_tool(ctx: RunContext, emit: Emit) -> Iterator[None]:
    """Mark `ctx` as the run a tool call belongs to, while the call lasts."""
    token = _CALLING.set((*_CALLING.get(), (ctx, emit)))
    try:
        yield
    finally:
        _CALLING.reset(token)


def calling_run() -> tuple[RunContext, Emit] | None:
    """The run (and its event sink) whose tool call is running now, innermost; None outside a tool call."""
    stack = _CALLING.get()
    return stack[-1] if stack else None


def run_tool(ctx: RunContext, node: Node, name: str, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    emit(event("tool_call", tool=name, args=args, **ctx.base(node)))
    ids = {"pulse_id": ctx.pulse_id, "persona_id": ctx.persona["persona_id"]}
    # Events a tool produces (items made, a production run's data-* parts) stream out as they happen.
    with calling_tool(ctx, emit):  # a tool may run a playbook as this run's child (sea/tool_playbook.py)
        result = ctx.ports.call_tool(name, args, ctx.persona, ctx.building_id, ctx.pulse_id,
                                     lambda ev: emit({**ev, **ids}))
    if isinstance(result, ToolOutput):
        # Pictures a tool showed are given to the next model call as images (vision).
        if result.images:
            ctx.messages.append(Message(role="user", content=f"[{name} の結果の画像]", images=list(result.images)))
        result = result.value
    emit(event("tool_result", tool=name, result=result, **ctx.base(node)))
    out: dict[str, Any] = {"last": as_text(result)}
    keys = node.written_keys()
    if keys and isinstance(result, (list, tuple)):
        out.update({k: v for k, v in zip(keys, result, strict=False) if k})
    if node.output_key:
        out[node.output_key] = result
    return out


def _tool_node(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    name = node.action or ""
    specs = ctx.ports.tool_specs([name], ctx.persona, lambda ev: emit({**ev, **ctx.base(node)}))
    if not specs:
        raise ToolMissing(needs_tool(name), playbook=ctx.playbook, node=node.id, field="action")
    props = (specs[0].get("parameters") or {}).get("properties")
    declared = set(props) | set(specs[0].get("aliases") or []) if isinstance(props, dict) else None
    return run_tool(ctx, node, name, tool_args(ctx, node, vars_, declared, emit), emit)


def _tool_call_node(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    source = node.call_source or DEFAULT_CALL_SOURCE
    call = path_value(vars_, source)
    if call is MISSING or not call:
        return {}
    if isinstance(call, str):
        try:
            call = json.loads(call)
        except json.JSONDecodeError as exc:
            raise PlaybookError("call_source does not hold a tool call", playbook=ctx.playbook,
                                node=node.id, field="call_source") from exc
    if not isinstance(call, dict) or not call.get("name"):
        raise PlaybookError("call_source does not hold a tool call", playbook=ctx.playbook,
                            node=node.id, field="call_source")
    name = str(call["name"])
    if not ctx.ports.tool_specs([name], ctx.persona, lambda ev: emit({**ev, **ctx.base(node)})):
        raise ToolMissing(needs_tool(name), playbook=ctx.playbook, node=node.id, field="call_source")
    arguments = call.get("arguments", call.get("args")) or {}
    return run_tool(ctx, node, name, dict(arguments), emit)


def _stelis(ctx: RunContext, node: Node, emit: Emit) -> dict[str, Any]:
    """Upstream Stelis threads, here a sub-context of the pulse: what happens between start and end
    (in-flight messages, memory written meanwhile) is hidden from the model once the session ends."""
    threads = ctx.threads
    label = node.label or "Stelis"
    if node.type == "stelis_start":
        limit = node.stelis_config.max_depth if node.stelis_config else 3
        if len(threads.open) >= limit:
            raise PlaybookError(f"Stelis sessions would nest deeper than max_depth {limit}",
                                playbook=ctx.playbook, node=node.id, field="stelis_config.max_depth")
        threads.open.append(StelisFrame(id(ctx), len(ctx.messages), f"stelis:{uuid.uuid4().hex[:12]}", label))
        emit(event("notice", kind="stelis_start", text=f"「{label}」を始めます。", **ctx.base(node)))
        return {}
    if not threads.open:
        emit(event("notice", kind="stelis_end", text="終える Stelis セッションがありません。", **ctx.base(node)))
        return {}
    close_stelis(ctx, threads.open[-1])
    emit(event("notice", kind="stelis_end", text=f"「{label}」を終えました。", **ctx.base(node)))
    return {}


def close_stelis(ctx: RunContext, frame: StelisFrame) -> None:
    """End a session: its messages leave the model's view."""
    ctx.threads.open.remove(frame)
    ctx.threads.closed.add(frame.tag)
    if frame.owner == id(ctx):
        del ctx.messages[frame.mark:]


def _set_node(ctx: RunContext, node: Node, vars_: dict[str, Any]) -> dict[str, Any]:
    updates: dict[str, Any] = {}
    scope = dict(vars_)
    for key, expr in (node.assignments or {}).items():
        try:
            value = evaluate(expr, scope) if isinstance(expr, str) and expr.startswith("=") else render(
                expr, scope, playbook=ctx.playbook, node=node.id)
        except ExpressionTooLarge as exc:
            raise StateTooLarge(str(exc), playbook=ctx.playbook, node=node.id, field=f"assignments.{key}") from exc
        except ExpressionError as exc:
            raise PlaybookError(str(exc), playbook=ctx.playbook, node=node.id, field=f"assignments.{key}") from exc
        updates[key] = scope[key] = value
    # Upstream: setting `executed_playbooks_init` starts an empty `executed_playbooks` list.
    if scope.get("executed_playbooks_init") and not isinstance(vars_.get("executed_playbooks"), list):
        updates["executed_playbooks"] = []
    return updates


def run_simple(ctx: RunContext, pb: Playbook, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Every node type except llm, subplay and exec."""
    persona = ctx.persona
    keep = pb.text_placeholders
    if node.type == "speak":
        speak(ctx, node, text_of(ctx, node, vars_, keep), emit)
        return {}
    if node.type == "say":
        text = text_of(ctx, node, vars_, keep)
        hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id)
        ctx.outputs.append(text)
        emit(event("say", text=text, avatar=persona.get("avatar"), history_id=hid,
                   metadata=metadata_of(node, vars_), **ctx.base(node)))
        return {}
    if node.type == "think":
        # An internal note: memory only, never outputs (upstream's think also reached the outputs; here it never does).
        text = text_of(ctx, node, vars_, keep)
        ctx.remember("assistant", text, ["internal"])
        emit(event("think", text=text, **ctx.base(node)))
        return {}
    if node.type == "memorize":
        text = text_of(ctx, node, vars_, keep)
        tags = list(node.tags or [])
        ctx.remember(node.role or "assistant", text, tags, line_role=node.line_role, scope=node.scope)
        if not ctx.is_meta:
            ctx.outputs.append(text)
        emit(event("memorize", text=text, tags=tags, metadata=metadata_of(node, vars_), **ctx.base(node)))
        return {"last": text}
    if node.type == "pass":
        return {}
    if node.type == "set":
        return _set_node(ctx, node, vars_)
    if node.type == "tool":
        return _tool_node(ctx, node, vars_, emit)
    if node.type == "tool_call":
        return _tool_call_node(ctx, node, vars_, emit)
    if node.type in ("stelis_start", "stelis_end"):
        return _stelis(ctx, node, emit)
    raise PlaybookError(f"node type {node.type!r} needs the compiler", playbook=pb.name, node=node.id)
