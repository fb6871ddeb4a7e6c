"""The SEA runtime: compiles a playbook to a LangGraph graph and runs it, yielding events.

One path only: every playbook runs on its LangGraph compilation (no fallback executor). System
variables (`_`-prefixed: persona, pulse id, cancellation token, ports) travel in the run config,
never in the playbook's own variables, so nodes cannot overwrite them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph

from saiverse.llm.base import ChatRequest, LLMError, Message
from sea.events import Event, event
from sea.playbook import Node, Playbook, PlaybookError
from sea.ports import CancellationToken, PersonaContext, RuntimePorts

_TEMPLATE = re.compile(r"\{([A-Za-z][\w.]*)\}")


class PulseCancelled(Exception):
    """The pulse's cancellation token was set."""


class PlaybookState(TypedDict, total=False):
    """LangGraph state of one playbook run: the playbook's own variables."""

    vars: dict[str, Any]


@dataclass
class RunContext:
    """System side of a run (the `_` namespace): who, where, which pulse, and the world's ports."""

    persona: PersonaContext
    building_id: str
    pulse_id: str
    ports: RuntimePorts
    playbook: str
    cancel: CancellationToken = field(default_factory=CancellationToken)
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    trace: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


def render(template: str, variables: dict[str, Any], *, playbook: str = "", node: str = "") -> Any:
    """Fill `{name}` placeholders; an exact `"{name}"` keeps the value's type. Missing → error."""

    def lookup(name: str) -> Any:
        cur: Any = variables
        for part in name.split("."):
            if isinstance(cur, dict) and part in cur:
                cur = cur[part]
            else:
                raise PlaybookError(f"template variable {{{name}}} is not set", playbook=playbook, node=node)
        return cur

    whole = _TEMPLATE.fullmatch(template.strip()) if template else None
    if whole:
        return lookup(whole.group(1))

    def sub(m: re.Match[str]) -> str:
        val = lookup(m.group(1))
        return val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)

    return _TEMPLATE.sub(sub, template)


def _ctx(config: dict[str, Any]) -> RunContext:
    return config["configurable"]["sea"]


def _check_cancel(ctx: RunContext) -> None:
    if ctx.cancel.cancelled:
        raise PulseCancelled("pulse cancelled")


def _text_of(node: Node, vars_: dict[str, Any], pb: str) -> str:
    if node.action is None:
        val = vars_.get("last", "")
    else:
        val = render(node.action, vars_, playbook=pb, node=node.id)
    return val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)


def _base(ctx: RunContext, node: Node) -> dict[str, Any]:
    return {
        "pulse_id": ctx.pulse_id,
        "persona_id": ctx.persona["persona_id"],
        "persona_name": ctx.persona.get("name"),
        "building_id": ctx.building_id,
        "playbook": ctx.playbook,
        "node": node.id,
    }


def _speak(ctx: RunContext, node: Node, text: str, emit: Any) -> None:
    persona = ctx.persona
    ctx.ports.remember(persona["persona_id"], "assistant", text, ["conversation"], ctx.pulse_id)
    hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id)
    ctx.outputs.append(text)
    emit(event("speak", text=text, avatar=persona.get("avatar"), history_id=hid, **_base(ctx, node)))


def _llm(ctx: RunContext, pb: Playbook, node: Node, vars_: dict[str, Any], emit: Any) -> dict[str, Any]:
    persona = ctx.persona
    model, notice = ctx.ports.model_for(persona, node.model_type)
    if notice:
        emit(event("notice", text=notice, kind="model_fallback", **_base(ctx, node)))
    messages: list[Message] = [
        Message(role="user" if m["role"] == "user" else "assistant", content=m["content"])
        for m in ctx.ports.recent_messages(persona["persona_id"], ctx.pulse_id)
        if m["role"] in ("user", "assistant")
    ]
    if node.action is not None:
        messages.append(Message(role="user", content=str(render(node.action, vars_, playbook=pb.name, node=node.id))))
    request = ChatRequest(
        messages=messages,
        system=ctx.ports.system_prompt(persona, ctx.building_id),
        response_schema=node.response_schema,
        persona_name=persona.get("name"),
    )
    updates: dict[str, Any] = {}
    if node.speak and not node.response_schema:
        parts: list[str] = []
        for chunk in model.stream(request):
            _check_cancel(ctx)
            parts.append(chunk)
            emit(event("speak_chunk", delta=chunk, **_base(ctx, node)))
        text = "".join(parts)
        _speak(ctx, node, text, emit)
    else:
        result = model.generate(request)
        for k in ("input_tokens", "output_tokens"):
            ctx.usage[k] += int(result.usage.get(k, 0) or 0)
        text = result.text
        if node.response_schema is not None:
            data = result.data
            if node.output_key:
                updates[node.output_key] = data
            for src, dest in (node.output_mapping or {}).items():
                if isinstance(data, dict) and src in data:
                    updates[dest] = data[src]
        if node.speak:
            _speak(ctx, node, text, emit)
    updates["last"] = text
    if node.memorize:
        opt = node.memorize if not isinstance(node.memorize, bool) else None
        tags = list(opt.tags) if opt else []
        ctx.ports.remember(persona["persona_id"], opt.role if opt else "assistant", text, tags, ctx.pulse_id)
    return updates


def _run_node(ctx: RunContext, pb: Playbook, node: Node, vars_: dict[str, Any], emit: Any) -> dict[str, Any]:
    """Apply one node's effects (DESIGN §5 table); returns variable updates."""
    persona = ctx.persona
    if node.type == "llm":
        return _llm(ctx, pb, node, vars_, emit)
    if node.type == "speak":
        _speak(ctx, node, _text_of(node, vars_, pb.name), emit)
        return {}
    if node.type == "say":
        text = _text_of(node, vars_, pb.name)
        hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id)
        ctx.outputs.append(text)
        emit(event("say", text=text, avatar=persona.get("avatar"), history_id=hid, **_base(ctx, node)))
        return {}
    if node.type == "think":
        # Internal note: memory only, never outputs (the spec's known bug is not reproduced).
        text = _text_of(node, vars_, pb.name)
        ctx.ports.remember(persona["persona_id"], "assistant", text, ["internal"], ctx.pulse_id)
        emit(event("think", text=text, **_base(ctx, node)))
        return {}
    if node.type == "memorize":
        text = _text_of(node, vars_, pb.name)
        tags = list(node.tags or [])
        ctx.ports.remember(persona["persona_id"], node.role or "assistant", text, tags, ctx.pulse_id)
        emit(event("memorize", text=text, tags=tags, **_base(ctx, node)))
        return {}
    if node.type == "pass":
        return {}
    if node.type == "tool":
        args = {k: _resolve_arg(v, vars_, pb.name, node.id) for k, v in (node.args_input or {}).items()}
        tool = node.action or ""
        emit(event("tool_call", tool=tool, args=args, **_base(ctx, node)))
        result = ctx.ports.call_tool(tool, args, persona, ctx.building_id)
        emit(event("tool_result", tool=tool, result=result, **_base(ctx, node)))
        out: dict[str, Any] = {"last": result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)}
        if node.output_key:
            out[node.output_key] = result
        return out
    raise PlaybookError(f"node type {node.type!r} is not supported by this runtime yet", playbook=pb.name, node=node.id)


def _resolve_arg(value: Any, vars_: dict[str, Any], pb: str, node: str) -> Any:
    """`args_input` value: a state key name, or a template / literal."""
    if isinstance(value, str):
        if value in vars_:
            return vars_[value]
        if "{" in value:
            return render(value, vars_, playbook=pb, node=node)
    return value


def _make_node_fn(pb: Playbook, node: Node) -> Any:
    def fn(state: PlaybookState, config: dict[str, Any]) -> PlaybookState:
        ctx = _ctx(config)
        _check_cancel(ctx)
        ctx.trace.append(f"{pb.name}.{node.id}")
        vars_ = dict(state.get("vars") or {})
        updates = _run_node(ctx, pb, node, vars_, get_stream_writer())
        vars_.update(updates)
        return {"vars": vars_}

    return fn


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
        if node.conditional_next is None:
            graph.add_edge(node.id, node.next or END)
    compiled = graph.compile(name=pb.name)
    _GRAPH_CACHE[key] = compiled
    return compiled


def bind_args(pb: Playbook, args: dict[str, Any] | None) -> dict[str, Any]:
    """Function-call semantics: `input_schema` is the signature, `args` the arguments."""
    args = dict(args or {})
    declared = {p.name for p in pb.input_schema}
    extra = sorted(set(args) - declared)
    if extra:
        raise PlaybookError(f"does not declare argument {extra[0]!r}", playbook=pb.name, field="args")
    out: dict[str, Any] = {}
    for p in pb.input_schema:
        if p.name in args:
            out[p.name] = args[p.name]
        elif p.required:
            raise PlaybookError(f"required argument {p.name!r} was not passed", playbook=pb.name, field="args")
        else:
            out[p.name] = p.default if p.default is not None else ""
    return out


def run_playbook(
    pb: Playbook,
    *,
    persona: PersonaContext,
    building_id: str,
    pulse_id: str,
    ports: RuntimePorts,
    args: dict[str, Any] | None = None,
    cancel: CancellationToken | None = None,
) -> Iterator[Event]:
    """Run `pb` as `persona`; yields events as they happen. Errors end in an `error` event."""
    ctx = RunContext(
        persona=persona, building_id=building_id, pulse_id=pulse_id, ports=ports,
        playbook=pb.name, cancel=cancel or CancellationToken(),
    )
    base = {"pulse_id": pulse_id, "persona_id": persona["persona_id"], "playbook": pb.name}
    try:
        initial: PlaybookState = {"vars": bind_args(pb, args)}
        graph = compile_playbook(pb)
        for chunk in graph.stream(initial, config={"configurable": {"sea": ctx}}, stream_mode="custom"):
            yield chunk
    except PulseCancelled:
        yield event("error", kind="cancelled", message="パルスは中止されました。", **base)
        raise
    except PlaybookError as exc:
        yield event("error", kind="playbook", message=str(exc), **base)
        raise
    except LLMError as exc:
        yield event("error", kind=f"model_{exc.kind}", message=str(exc), **base)
        raise
