"""The SEA runtime: compiles a playbook to a LangGraph graph and runs it, emitting events.

One path only: every node type — subplay and exec included — runs on the LangGraph compilation
(no fallback executor). A called playbook runs as its own compiled graph inside the calling node.
Events go to an `emit` callback the moment a node produces them, from nested playbooks too.
System variables (`_` namespace: persona, pulse, ports, cancellation, usage, trace) travel in the
run config as a `RunContext`, never in the playbook's own variables, so nodes cannot overwrite them.
"""

from __future__ import annotations

import hashlib
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from chat import LLMError
from sea.events import event
from sea.nodes import Emit, PulseCancelled, RunContext, run_simple
from sea.playbook import ConditionalNext, Node, Playbook, PlaybookError
from sea.ports import CancellationToken, PersonaContext, RuntimePorts
from sea.templates import as_text, lookup, render
from sea.validate import check_args, output_names

MAX_DEPTH = 8
"""How deep playbooks may call playbooks (a cycle of exec/subplay ends here, clearly)."""

__all__ = ["PulseCancelled", "RunContext", "bind_args", "compile_playbook", "run_meta_user", "run_playbook"]


class PlaybookState(TypedDict, total=False):
    """LangGraph state of one playbook run."""

    vars: dict[str, Any]
    """The playbook's own variables: parameters, `last`, outputs of nodes."""
    failed: str | None
    """Error message of the node that just failed (routes to its `error_next`)."""


def bind_args(pb: Playbook, args: dict[str, Any] | None) -> dict[str, Any]:
    """Function-call semantics: `input_schema` is the signature, `args` the arguments."""
    args = dict(args or {})
    check_args(pb, args)
    out: dict[str, Any] = {}
    for p in pb.input_schema:
        if p.name in args:
            out[p.name] = args[p.name]
        elif p.default is not None:
            out[p.name] = p.default
        elif not p.required:
            out[p.name] = ""
    return out


def _call_playbook(ctx: RunContext, node: Node, callee: Playbook, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """subplay / exec: run `callee` as a function call; returns the caller's variable updates."""
    if ctx.depth + 1 > MAX_DEPTH:
        raise PlaybookError(f"playbooks call each other more than {MAX_DEPTH} levels deep",
                            playbook=ctx.playbook, node=node.id)
    child = ctx.child(callee.name)
    final = _invoke(callee, child, bind_args(callee, args), emit)
    result = "\n".join(child.outputs) if child.outputs else as_text(final.get("last", ""))
    if node.propagate_output or (node.type == "exec" and ctx.is_meta):
        ctx.outputs.extend(child.outputs)
    updates: dict[str, Any] = {"last": result}
    returned = {name: final[name] for name in output_names(callee) if name in final}
    if node.output_key:
        updates[node.output_key] = returned if returned else result
    for src, dest in (node.output_mapping or {}).items():
        if src not in returned:
            raise PlaybookError(f"playbook {callee.name!r} did not return {src!r}",
                                playbook=ctx.playbook, node=node.id, field="output_mapping")
        updates[dest] = returned[src]
    return updates


def _run_call(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    ports = ctx.ports
    if node.type == "subplay":
        callee = ports.playbook(node.playbook or "")
        if callee is None:
            raise PlaybookError(f"subplay target {node.playbook!r} does not exist",
                                playbook=ctx.playbook, node=node.id, field="playbook")
        args = render(node.args or {}, vars_, playbook=ctx.playbook, node=node.id)
        return _call_playbook(ctx, node, callee, args, emit)
    # exec: the target is chosen at run time (usually by a router), so it is checked here, clearly.
    name = lookup(node.playbook_source, vars_, playbook=ctx.playbook, node=node.id) \
        if node.playbook_source else node.playbook
    callee = ports.playbook(str(name or ""))
    if callee is None:
        raise PlaybookError(f"exec target {name!r} (from {node.playbook_source!r}) is not a known playbook",
                            playbook=ctx.playbook, node=node.id, field="playbook_source")
    args: dict[str, Any] = {}
    if node.args_source:
        dynamic = lookup(node.args_source, vars_, playbook=ctx.playbook, node=node.id) or {}
        if not isinstance(dynamic, dict):
            raise PlaybookError(f"args_source {node.args_source!r} must hold an object",
                                playbook=ctx.playbook, node=node.id, field="args_source")
        declared = {p.name for p in callee.input_schema}
        dropped = sorted(set(dynamic) - declared)
        if dropped:
            emit(event("notice", kind="args_dropped", **ctx.base(node),
                       text=f"{callee.name} が宣言していない引数を無視しました: {', '.join(dropped)}"))
        args.update({k: v for k, v in dynamic.items() if k in declared})
    static = render(node.args or {}, vars_, playbook=ctx.playbook, node=node.id)
    declared = {p.name for p in callee.input_schema}
    args.update({k: v for k, v in static.items() if k in declared and (k not in args or args[k] in ("", None))})
    return _call_playbook(ctx, node, callee, args, emit)


def _make_node_fn(pb: Playbook, node: Node) -> Any:
    def fn(state: PlaybookState, config: RunnableConfig) -> PlaybookState:
        ctx: RunContext = config["configurable"]["sea"]
        emit: Emit = config["configurable"]["sea_emit"]
        ctx.check_cancel()
        ctx.trace.append(f"{pb.name}.{node.id}")
        vars_ = dict(state.get("vars") or {})
        try:
            if node.type in ("subplay", "exec"):
                updates = _run_call(ctx, node, vars_, emit)
            else:
                updates = run_simple(ctx, pb, node, vars_, emit)
        except PulseCancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - error_next catches whatever the node raised
            if not node.error_next:
                raise
            emit(event("notice", kind="node_error", text=str(exc), **ctx.base(node)))
            vars_["last_error"] = str(exc)
            return {"vars": vars_, "failed": str(exc)}
        vars_.update(updates)
        return {"vars": vars_, "failed": None}

    return fn


def _compare(value: Any, operator: str, case: str) -> bool:
    if operator in ("eq", "ne"):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return (text == case) == (operator == "eq")
    try:
        left, right = float(value), float(case)
    except (TypeError, ValueError):
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}[operator]


def _router(pb: Playbook, node: Node) -> tuple[Any, dict[str, str]]:
    cond: ConditionalNext | None = node.conditional_next

    def route(state: PlaybookState) -> str:
        if state.get("failed"):
            return node.error_next or END
        if cond is None:
            return node.next or END
        value = lookup(cond.field, state.get("vars") or {}, playbook=pb.name, node=node.id)
        for case, target in cond.cases.items():
            if _compare(value, cond.operator, case):
                return target or END
        return cond.default or END

    targets = {t for t in [node.next, node.error_next, *(cond.cases.values() if cond else []),
                           cond.default if cond else None] if t}
    return route, {t: t for t in targets} | {END: END}


_GRAPH_CACHE: dict[str, Any] = {}


def compile_playbook(pb: Playbook) -> Any:
    """LangGraph compilation of a playbook, cached per playbook version (content hash)."""
    key = hashlib.sha256(pb.model_dump_json().encode()).hexdigest()
    cached = _GRAPH_CACHE.get(key)
    if cached is not None:
        return cached
    graph = StateGraph(PlaybookState)
    for node in pb.nodes:
        graph.add_node(node.id, _make_node_fn(pb, node))
    graph.add_edge(START, pb.start)
    for node in pb.nodes:
        if node.conditional_next is None and node.error_next is None:
            graph.add_edge(node.id, node.next or END)
        else:
            route, path_map = _router(pb, node)
            graph.add_conditional_edges(node.id, route, path_map)
    compiled = graph.compile(name=pb.name)
    _GRAPH_CACHE[key] = compiled
    return compiled


def _invoke(pb: Playbook, ctx: RunContext, variables: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Run a compiled playbook to its end in this thread; events go to `emit` as they happen.

    `invoke` runs the nodes inline; LangGraph's streaming modes would move every node to a worker
    thread and cost ~3x the time per node, while our events already flow through `emit`.
    """
    graph = compile_playbook(pb)
    config: RunnableConfig = {"configurable": {"sea": ctx, "sea_emit": emit}, "recursion_limit": 200}
    final = graph.invoke({"vars": variables, "failed": None}, config=config)
    return dict(final.get("vars") or variables)


def run_playbook(
    pb: Playbook, *, persona: PersonaContext, building_id: str, pulse_id: str, ports: RuntimePorts,
    emit: Emit, args: dict[str, Any] | None = None, cancel: CancellationToken | None = None,
    pulse_type: str = "user", usage: dict[str, int] | None = None, trace: list[str] | None = None,
) -> dict[str, Any]:
    """Run `pb` as `persona`, handing every event to `emit` as it happens; returns the final
    variables. A failure emits an `error` event and then raises (PulseCancelled, PlaybookError,
    LLMError, or whatever a node raised).

    `usage` and `trace` (the pulse's `_pulse_usage_accumulator` and `_activity_trace`) are filled
    in place when given."""
    ctx = RunContext(persona=persona, building_id=building_id, pulse_id=pulse_id, ports=ports,
                     playbook=pb.name, cancel=cancel or CancellationToken(), pulse_type=pulse_type)
    if usage is not None:
        usage.setdefault("input_tokens", 0)
        usage.setdefault("output_tokens", 0)
        ctx.usage = usage
    if trace is not None:
        ctx.trace = trace
    base = {"pulse_id": pulse_id, "persona_id": persona["persona_id"], "playbook": pb.name}
    try:
        return _invoke(pb, ctx, bind_args(pb, args), emit)
    except PulseCancelled:
        emit(event("error", kind="cancelled", message="パルスは中止されました。", **base))
        raise
    except PlaybookError as exc:
        emit(event("error", kind="playbook", message=str(exc), **base))
        raise
    except LLMError as exc:
        emit(event("error", kind=f"model_{exc.kind}", message=str(exc), **base))
        raise


def run_meta_user(
    persona: PersonaContext, user_input: str, building_id: str, *, ports: RuntimePorts, emit: Emit,
    meta_playbook: str | Playbook = "meta_user", args: dict[str, Any] | None = None, pulse_id: str,
    cancel: CancellationToken | None = None, pulse_type: str = "user",
    usage: dict[str, int] | None = None, trace: list[str] | None = None,
) -> dict[str, Any]:
    """Run a meta playbook for a user turn. `user_input` is passed as the `input` argument when the
    meta playbook declares one and the caller did not pass it (it is not a system variable)."""
    pb = ports.playbook(meta_playbook) if isinstance(meta_playbook, str) else meta_playbook
    if pb is None:
        raise PlaybookError(f"meta playbook {meta_playbook!r} does not exist", field="meta_playbook")
    call_args = dict(args or {})
    if any(p.name == "input" for p in pb.input_schema) and "input" not in call_args:
        call_args["input"] = user_input
    return run_playbook(pb, persona=persona, building_id=building_id, pulse_id=pulse_id, ports=ports, emit=emit,
                        args=call_args, cancel=cancel, pulse_type=pulse_type, usage=usage, trace=trace)
