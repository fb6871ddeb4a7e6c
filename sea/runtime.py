"""The SEA runtime: compiles a playbook to a LangGraph graph and runs it, emitting events.

One path only: every node type — subplay and exec included — runs on the LangGraph compilation
(no fallback executor). A called playbook runs as its own compiled graph inside the calling node;
one of a single node that routes nowhere runs that node as part of the caller's step (its own graph
would be START → node → END: a second Pregel run for nothing). Likewise nodes that always follow
each other (no `conditional_next`, no `error_next` before the last) share one graph node, each still
its own `_step` (`_chain`); the UI's drawing (`drawing`) keeps one graph node per playbook node.
Events go to an `emit` callback the moment a node produces them, from nested playbooks too.
System variables (`_` namespace: persona, pulse, ports, cancellation, usage, trace) travel in the
run config as a `RunContext`, never in the playbook's own variables, so nodes cannot overwrite them.
"""

from __future__ import annotations

import hashlib
import os
import threading
from typing import TYPE_CHECKING, Any, TypedDict

from chat import LLMError
from sea.bounds import MAX_GRAPH_STEPS, TooManySteps, check_state, check_steps
from sea.calls import MAX_DEPTH, bind_args, run_exec, run_subplay, runtime_vars
from sea.events import event
from sea.llm_node import run_llm
from sea.nodes import Emit, PulseCancelled, RunContext, branch_value, close_stelis, run_simple
from sea.playbook import ConditionalNext, Node, Playbook, PlaybookError
from sea.ports import CancellationToken, PersonaContext, RuntimePorts

if TYPE_CHECKING:  # LangGraph itself is imported on the first compile: start-up does not wait for it
    from langchain_core.runnables import RunnableConfig

__all__ = [
    "MAX_DEPTH", "PulseCancelled", "RunContext", "bind_args", "compile_playbook", "drawing", "run_meta_user",
    "run_playbook",
]


class PlaybookState(TypedDict, total=False):
    """LangGraph state of one playbook run."""

    vars: dict[str, Any]
    """The playbook's own variables: parameters, `last`, outputs of nodes."""
    failed: str | None
    """Error message of the node that just failed (routes to its `error_next`)."""


def _make_node_fn(pb: Playbook, node: Node) -> Any:
    def fn(state: PlaybookState, config: RunnableConfig) -> PlaybookState:
        return _step(pb, node, state, config["configurable"]["sea"], config["configurable"]["sea_emit"])

    return fn


def _step(pb: Playbook, node: Node, state: PlaybookState, ctx: RunContext, emit: Emit) -> PlaybookState:
    """One node of `pb` on `state`: the state update LangGraph applies (a graph node's whole body)."""
    ctx.check_cancel()
    ctx.trace.append(f"{pb.name}.{node.id}")
    check_steps(len(ctx.trace), playbook=pb.name, node=node.id)
    vars_ = dict(state.get("vars") or {})
    try:
        if node.type == "subplay":
            updates = run_subplay(ctx, node, vars_, emit, _invoke)
        elif node.type == "exec":
            updates = run_exec(ctx, node, vars_, emit, _invoke)
        elif node.type == "llm":
            updates = run_llm(ctx, pb, node, vars_, emit)
        else:
            updates = run_simple(ctx, pb, node, vars_, emit)
    except PulseCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - error_next catches whatever the node raised
        if not node.error_next:
            raise
        kind = getattr(exc, "kind", None)
        if kind:  # a tool or playbook that is not here: an error the user should see, then error_next
            emit(event("error", kind=kind, message=str(exc), **ctx.base(node)))
        else:
            emit(event("notice", kind="node_error", text=str(exc), **ctx.base(node)))
        vars_["last_error"] = str(exc)
        return {"vars": vars_, "failed": str(exc)}
    # Validation refuses every other '_' write; an upstream `output_key` such as `_wait_result` is dropped.
    changed = {k: v for k, v in updates.items() if not k.startswith("_")}
    vars_.update(changed)
    # Outside the try: a state past its bound ends the run, error_next cannot loop on it.
    check_state(vars_, playbook=pb.name, node=node.id, changed=changed)
    return {"vars": vars_, "failed": None}


def _compare(value: Any, operator: str, case: str) -> bool:
    if value is None:
        value = ""  # upstream: a field that is not there compares as empty
    if operator == "contains":
        if isinstance(value, dict):
            return case in value
        if isinstance(value, list | tuple):
            return any(str(v) == case for v in value)
        return case in str(value)
    if operator in ("eq", "ne"):
        # Booleans match `true` / `True` alike (our playbooks write the one, upstream's the other).
        same = str(value).lower() == case.lower() if isinstance(value, bool) else str(value) == case
        return same == (operator == "eq")
    try:
        left, right = float(value), float(case)
    except (TypeError, ValueError):
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}[operator]


def _router(pb: Playbook, node: Node) -> tuple[Any, dict[str, str]]:
    from langgraph.graph import END

    cond: ConditionalNext | None = node.conditional_next

    def route(state: PlaybookState) -> str:
        if state.get("failed"):
            return node.error_next or END
        if cond is None:
            return node.next or END
        value = branch_value(cond.field, state.get("vars") or {})
        for case, target in cond.branches().items():
            if _compare(value, cond.operator, case):
                return target or END
        return cond.fallback() or END

    targets = {t for t in [node.next, node.error_next, *(cond.cases.values() if cond else []),
                           cond.default if cond else None] if t}
    return route, {t: t for t in targets} | {END: END}


EXECUTOR_WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""The size a `ThreadPoolExecutor` takes by default, worked out once: LangGraph makes an executor for
every run (`max_concurrency` sizes it) and, without a size, each asked `os.cpu_count()` — a read of
/sys, ~10 µs a run. A playbook step runs one node, so nothing here ever uses more than one worker."""

_GRAPH_CACHE: dict[str, Any] = {}
_BY_IDENTITY: dict[int, tuple[Playbook, Any]] = {}
"""id(playbook) → (that playbook, its graph): a pulse finds its graph without serialising the
playbook. The playbook is held so its id cannot be reused by another object while cached."""
IDENTITY_CACHE_SIZE = 512
_CACHE_LOCK = threading.Lock()


def compile_playbook(pb: Playbook) -> Any:
    """LangGraph compilation of a playbook, cached per playbook version.

    Looked up by identity first: a loaded playbook is never changed in place (the catalogue and
    editors make a new object, e.g. `model_copy(update=...)`), so the same object is the same
    version. A new object falls back to its content hash, so equal playbooks share one graph.
    """
    hit = _BY_IDENTITY.get(id(pb))
    if hit is not None and hit[0] is pb:
        return hit[1]
    compiled = _compile_by_content(pb)
    with _CACHE_LOCK:  # pulses of several personas compile at once
        if len(_BY_IDENTITY) >= IDENTITY_CACHE_SIZE:
            _BY_IDENTITY.pop(next(iter(_BY_IDENTITY)))  # the oldest entry; a miss only costs a hash again
        _BY_IDENTITY[id(pb)] = (pb, compiled)
    return compiled


def _compile_by_content(pb: Playbook) -> Any:
    key = hashlib.sha256(pb.model_dump_json().encode()).hexdigest()
    cached = _GRAPH_CACHE.get(key)
    if cached is not None:
        return cached
    compiled = _build(pb, fold=True)
    _GRAPH_CACHE[key] = compiled
    return compiled


def drawing(pb: Playbook) -> Any:
    """The playbook's graph node for node, edge for edge (no run of nodes in one step): what the UI draws."""
    return _build(pb, fold=False)


def _chain(pb: Playbook, node: Node) -> list[Node]:
    """`node` and the nodes that always follow it, as far as the path never branches.

    Running such a run of nodes as Pregel steps of their own costs a LangGraph step each for nothing:
    the graph node of `node` runs them one after the other (each its own `_step`: the same trace
    entry, cancellation check, step count, state bound and errors), and leaves by the edges of the last.
    A node with `error_next` or `conditional_next` may go elsewhere, so it ends the run (it can be its
    last node); so does a node met twice (a loop goes round through the graph's edges, as before).
    """
    by_id = {n.id: n for n in pb.nodes}
    chain = [node]
    while True:
        last = chain[-1]
        if last.conditional_next is not None or last.error_next is not None or not last.next:
            return chain
        after = by_id.get(last.next)
        if after is None or any(n.id == after.id for n in chain):
            return chain
        chain.append(after)


def _make_chain_fn(pb: Playbook, chain: list[Node]) -> Any:
    def fn(state: PlaybookState, config: RunnableConfig) -> PlaybookState:
        ctx, emit = config["configurable"]["sea"], config["configurable"]["sea_emit"]
        for node in chain:
            state = _step(pb, node, state, ctx, emit)
        return state

    return fn


def _build(pb: Playbook, *, fold: bool) -> Any:
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(PlaybookState)
    routes: dict[str, Node] = {}  # node id → the node whose edges leave its graph node
    for node in pb.nodes:
        chain = _chain(pb, node) if fold else [node]
        graph.add_node(node.id, _make_chain_fn(pb, chain) if len(chain) > 1 else _make_node_fn(pb, node))
        routes[node.id] = chain[-1]
    graph.add_edge(START, pb.start)
    for node in pb.nodes:
        leaving = routes[node.id]
        if leaving.conditional_next is None and leaving.error_next is None:
            graph.add_edge(node.id, leaving.next or END)
        else:
            route, path_map = _router(pb, leaving)
            graph.add_conditional_edges(node.id, route, path_map)
    return graph.compile(name=pb.name)


def _lone_node(pb: Playbook) -> Node | None:
    """The node of a one-node playbook that neither routes on nor catches errors, else None."""
    if len(pb.nodes) != 1:
        return None
    node = pb.nodes[0]
    if node.next or node.error_next or node.conditional_next is not None or pb.start != node.id:
        return None
    return node


def _invoke(pb: Playbook, ctx: RunContext, variables: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Run a compiled playbook to its end in this thread; events go to `emit` as they happen.

    `invoke` runs the nodes inline; LangGraph's streaming modes would move every node to a worker
    thread and cost ~3x the time per node, while our events already flow through `emit`.
    """
    from langgraph.errors import GraphRecursionError

    lone = _lone_node(pb) if ctx.depth else None
    try:
        if lone is not None:
            # A called playbook of one node that routes nowhere (sub_router_user, sub_speak): its graph
            # would be START → node → END, so the node runs as a step of the caller's graph run instead
            # of a LangGraph run of its own — same node, same state in and out, same errors.
            final = _step(pb, lone, {"vars": variables, "failed": None}, ctx, emit)
        else:
            graph = compile_playbook(pb)
            config: RunnableConfig = {"configurable": {"sea": ctx, "sea_emit": emit},
                                      "recursion_limit": MAX_GRAPH_STEPS, "max_concurrency": EXECUTOR_WORKERS}
            # "updates": each step hands back only what its node returned — a node returns the whole
            # state (`_step`), so the last one is the run's end; "values" would copy every channel per step.
            steps = graph.invoke({"vars": variables, "failed": None}, config=config, stream_mode="updates")
            final = next(iter(steps[-1].values())) if steps else {}
    except GraphRecursionError as exc:
        last = ctx.trace[-1].rsplit(".", 1)[-1] if ctx.trace else ""
        raise TooManySteps(f"the run took more than {MAX_GRAPH_STEPS} nodes without ending; a loop that never "
                           "ends?", playbook=pb.name, node=last) from exc
    finally:
        # A Stelis session this run opened ends with it (upstream unwinds its thread stack the same way).
        for frame in [f for f in ctx.threads.open if f.owner == id(ctx)]:
            close_stelis(ctx, frame)
    return dict(final.get("vars") or variables)


def run_playbook(
    pb: Playbook, *, persona: PersonaContext, building_id: str, pulse_id: str, ports: RuntimePorts,
    emit: Emit, args: dict[str, Any] | None = None, cancel: CancellationToken | None = None,
    pulse_type: str = "user", usage: dict[str, int] | None = None, trace: list[str] | None = None,
    metadata: dict[str, Any] | None = None, input_text: str | None = None, answered: list[str] | None = None,
    spent: list[tuple[str, int, int]] | None = None,
) -> dict[str, Any]:
    """Run `pb` as `persona`, handing every event to `emit` as it happens; returns the final
    variables. A failure emits an `error` event and then raises (PulseCancelled, PlaybookError,
    LLMError, or whatever a node raised).

    `usage` and `trace` (the pulse's `_pulse_usage_accumulator` and `_activity_trace`) are filled
    in place when given."""
    ctx = RunContext(persona=persona, building_id=building_id, pulse_id=pulse_id, ports=ports,
                     playbook=pb.name, cancel=cancel or CancellationToken(), pulse_type=pulse_type,
                     metadata=dict(metadata or {}), invoke=_invoke)
    if usage is not None:
        usage.setdefault("input_tokens", 0)
        usage.setdefault("output_tokens", 0)
        ctx.usage = usage
    if trace is not None:
        ctx.trace = trace
    if answered is not None:
        ctx.answered = answered  # the caller reads which models answered (pulse_end's `model`)
    if spent is not None:
        ctx.spent = spent  # the caller records what each call cost (saiverse/costs.py)
    base = {"pulse_id": pulse_id, "persona_id": persona["persona_id"], "playbook": pb.name}
    call_args = dict(args or {})
    try:
        variables = bind_args(pb, call_args, runtime=runtime_vars(call_args.get("input", input_text), ctx.metadata))
        return _invoke(pb, ctx, variables, emit)
    except PulseCancelled:
        emit(event("error", kind="cancelled", message="パルスは中止されました。", **base))
        raise
    except PlaybookError as exc:
        emit(event("error", kind=getattr(exc, "kind", "playbook"), message=str(exc), **base))
        raise
    except LLMError as exc:
        emit(event("error", kind=f"model_{exc.kind}", message=str(exc), **base))
        raise


def run_meta_user(
    persona: PersonaContext, user_input: str, building_id: str, *, ports: RuntimePorts, emit: Emit,
    meta_playbook: str | Playbook = "meta_user", args: dict[str, Any] | None = None, pulse_id: str,
    cancel: CancellationToken | None = None, pulse_type: str = "user",
    usage: dict[str, int] | None = None, trace: list[str] | None = None, metadata: dict[str, Any] | None = None,
    answered: list[str] | None = None, spent: list[tuple[str, int, int]] | None = None,
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
                        args=call_args, cancel=cancel, pulse_type=pulse_type, usage=usage, trace=trace,
                        metadata=metadata, input_text=user_input, answered=answered, spent=spent)
