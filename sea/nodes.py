"""Node effects, exactly as DESIGN §5's table: what each node type writes where.

| type     | SAIMemory               | building / UI | outputs          |
|----------|-------------------------|---------------|------------------|
| llm      | only with `memorize`    | only `speak`  | only `speak`     |
| speak    | conversation + pulse    | yes           | yes              |
| think    | internal + pulse        | no            | no (bug fixed)   |
| memorize | role/tags + pulse       | no            | not in meta      |
| say      | no                      | yes           | yes              |
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chat import ChatRequest, Message, ToolSpec
from sea.events import event
from sea.expr import ExpressionError, evaluate
from sea.playbook import Node, Playbook, PlaybookError
from sea.ports import CancellationToken, PersonaContext, RuntimePorts
from sea.router import prepare_schema
from sea.templates import as_text, render
from tools.registry import ToolOutput

Emit = Callable[[dict[str, Any]], None]


class PulseCancelled(Exception):
    """The pulse's cancellation token was set."""


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

    @property
    def is_meta(self) -> bool:
        return self.playbook.startswith("meta_")

    def child(self, playbook: str) -> RunContext:
        """System variables are inherited by a called playbook; its outputs are its own."""
        return RunContext(
            persona=self.persona, building_id=self.building_id, pulse_id=self.pulse_id,
            ports=self.ports, playbook=playbook, pulse_type=self.pulse_type, cancel=self.cancel,
            usage=self.usage, trace=self.trace, messages=list(self.messages), depth=self.depth + 1,
        )

    def check_cancel(self) -> None:
        if self.cancel.cancelled:
            raise PulseCancelled("pulse cancelled")

    def base(self, node: Node) -> dict[str, Any]:
        return {
            "pulse_id": self.pulse_id, "persona_id": self.persona["persona_id"],
            "persona_name": self.persona.get("name"), "building_id": self.building_id,
            "playbook": self.playbook, "node": node.id,
        }


def text_of(ctx: RunContext, node: Node, vars_: dict[str, Any]) -> str:
    """`action` rendered, or `last` when action is null (speak, say, think, memorize)."""
    if node.action is None:
        if "last" not in vars_:
            raise PlaybookError("uses {last} (action is null) but no earlier node produced it",
                                playbook=ctx.playbook, node=node.id, field="action")
        return as_text(vars_["last"])
    return as_text(render(node.action, vars_, playbook=ctx.playbook, node=node.id))


def speak(ctx: RunContext, node: Node, text: str, emit: Emit) -> None:
    persona = ctx.persona
    ctx.ports.remember(persona["persona_id"], "assistant", text, ["conversation"], ctx.pulse_id)
    hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id)
    ctx.outputs.append(text)
    emit(event("speak", text=text, avatar=persona.get("avatar"), history_id=hid, **ctx.base(node)))


def run_llm(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    persona = ctx.persona
    # A picture a tool just showed needs a model with vision (the persona's VISION_MODEL chain).
    seeing = any(m.get("images") for m in ctx.messages)
    model, notice = ctx.ports.model_for(persona, "vision" if seeing else node.model_type)
    if notice:
        emit(event("notice", text=notice, kind="model_fallback", **ctx.base(node)))
    prompt: Message | None = None
    if node.action is not None:
        prompt = Message(role="user", content=as_text(render(node.action, vars_, playbook=ctx.playbook, node=node.id)))
    schema = node.response_schema
    if schema is not None:
        schema = prepare_schema(schema, ctx.ports.router_playbooks())
    fitted = ctx.ports.prompt_context(persona, ctx.building_id, ctx.pulse_id, model,
                                      ctx.messages + ([prompt] if prompt else []))
    request = ChatRequest(
        messages=fitted["messages"],
        system=fitted["system"],
        response_schema=schema,
        tools=[ToolSpec(**spec) for spec in ctx.ports.tool_specs(node.available_tools or [])],
        persona_name=persona.get("name"),
    )
    updates: dict[str, Any] = {}
    if node.speak and schema is None and not request.tools:
        parts: list[str] = []
        for chunk in model.stream(request):
            ctx.check_cancel()
            parts.append(chunk)
            emit(event("speak_chunk", delta=chunk, **ctx.base(node)))
        text = "".join(parts)
        ctx.usage["input_tokens"] += fitted["input_tokens"]  # a stream reports no usage: the fitted count
        speak(ctx, node, text, emit)
    else:
        result = model.generate(request)
        ctx.usage["input_tokens"] += int(result.usage.get("input_tokens") or fitted["input_tokens"])
        ctx.usage["output_tokens"] += int(result.usage.get("output_tokens", 0) or 0)
        text = result.text
        data = result.data
        if schema is not None:
            if node.output_key:
                updates[node.output_key] = data
            for src, dest in (node.output_mapping or {}).items():
                if not isinstance(data, dict) or src not in data:
                    raise PlaybookError(f"the model's answer has no field {src!r} for output_mapping",
                                        playbook=ctx.playbook, node=node.id, field="output_mapping")
                updates[dest] = data[src]
        call = dict(result.tool_calls[0]) if result.tool_calls else None
        keys = node.output_keys or []
        if keys:
            updates[keys[0]] = text
            if len(keys) > 1:
                updates[keys[1]] = call
        elif request.tools:
            updates["tool_call"] = call
        if node.speak and text:
            speak(ctx, node, text, emit)
    ctx.messages += ([prompt] if prompt else []) + [Message(role="assistant", content=text)]
    updates["last"] = text
    if node.output_key and schema is None:
        updates[node.output_key] = text
    if node.memorize:
        opt = None if isinstance(node.memorize, bool) else node.memorize
        tags = list(opt.tags) if opt else []
        role = opt.role if opt else "assistant"
        ctx.ports.remember(persona["persona_id"], role, text, tags, ctx.pulse_id)
        emit(event("memorize", text=text, tags=tags, **ctx.base(node)))
    return updates


def run_tool(ctx: RunContext, node: Node, name: str, args: dict[str, Any], emit: Emit) -> dict[str, Any]:
    emit(event("tool_call", tool=name, args=args, **ctx.base(node)))
    ids = {"pulse_id": ctx.pulse_id, "persona_id": ctx.persona["persona_id"]}
    # Events a tool produces (items made, a production run's data-* parts) stream out as they happen.
    result = ctx.ports.call_tool(name, args, ctx.persona, ctx.building_id, ctx.pulse_id,
                                 lambda ev: emit({**ev, **ids}))
    if isinstance(result, ToolOutput):
        # Pictures a tool showed are given to the next model call as images (vision).
        if result.images:
            ctx.messages.append(Message(role="user", content=f"[{name} の結果の画像]", images=list(result.images)))
        result = result.value
    emit(event("tool_result", tool=name, result=result, **ctx.base(node)))
    out: dict[str, Any] = {"last": as_text(result)}
    if node.output_keys and isinstance(result, (list, tuple)):
        out.update({k: v for k, v in zip(node.output_keys, result, strict=False) if k})
    if node.output_key:
        out[node.output_key] = result
    return out


def _resolve_arg(ctx: RunContext, node: Node, value: Any, vars_: dict[str, Any]) -> Any:
    """An `args_input` value: the name of a state key, or a template / literal."""
    if isinstance(value, str) and value.isidentifier():
        if value not in vars_:
            raise PlaybookError(f"args_input refers to {value!r}, which is not set",
                                playbook=ctx.playbook, node=node.id, field="args_input")
        return vars_[value]
    return render(value, vars_, playbook=ctx.playbook, node=node.id)


def run_simple(ctx: RunContext, pb: Playbook, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """Every node type except subplay / exec (those need the compiler; see sea.runtime)."""
    persona = ctx.persona
    if node.type == "llm":
        return run_llm(ctx, node, vars_, emit)
    if node.type == "speak":
        speak(ctx, node, text_of(ctx, node, vars_), emit)
        return {}
    if node.type == "say":
        text = text_of(ctx, node, vars_)
        hid = ctx.ports.post_to_building(ctx.building_id, persona, text, ctx.pulse_id)
        ctx.outputs.append(text)
        emit(event("say", text=text, avatar=persona.get("avatar"), history_id=hid, **ctx.base(node)))
        return {}
    if node.type == "think":
        # An internal note: memory only, never outputs (the spec's known bug is not reproduced).
        text = text_of(ctx, node, vars_)
        ctx.ports.remember(persona["persona_id"], "assistant", text, ["internal"], ctx.pulse_id)
        emit(event("think", text=text, **ctx.base(node)))
        return {}
    if node.type == "memorize":
        text = text_of(ctx, node, vars_)
        tags = list(node.tags or [])
        ctx.ports.remember(persona["persona_id"], node.role or "assistant", text, tags, ctx.pulse_id)
        if not ctx.is_meta:
            ctx.outputs.append(text)
        emit(event("memorize", text=text, tags=tags, **ctx.base(node)))
        return {}
    if node.type == "pass":
        return {}
    if node.type == "set":
        updates: dict[str, Any] = {}
        scope = dict(vars_)
        for key, expr in (node.assignments or {}).items():
            try:
                value = evaluate(expr, scope) if isinstance(expr, str) and expr.startswith("=") else render(
                    expr, scope, playbook=ctx.playbook, node=node.id)
            except ExpressionError as exc:
                raise PlaybookError(str(exc), playbook=ctx.playbook, node=node.id, field=f"assignments.{key}") from exc
            updates[key] = scope[key] = value
        return updates
    if node.type == "tool":
        args = {k: _resolve_arg(ctx, node, v, vars_) for k, v in (node.args_input or {}).items()}
        return run_tool(ctx, node, node.action or "", args, emit)
    if node.type == "tool_call":
        call = vars_.get(node.call_source or "")
        if not call:
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
        return run_tool(ctx, node, str(call["name"]), dict(call.get("arguments") or {}), emit)
    raise PlaybookError(f"node type {node.type!r} needs the compiler", playbook=pb.name, node=node.id)
