"""The llm node: one model call — text, structured output or a tool call — and where its answer goes."""

from __future__ import annotations

from typing import Any

from chat import CUT_LENGTH, CUT_STOPPED, ChatRequest, Message, TokenCounter, ToolSpec, estimate_tokens
from sea.compat import add_playbook_enum, model_type, sees_context
from sea.decisions import generate_deciding
from sea.events import event
from sea.nodes import MISSING, Emit, PulseCancelled, RunContext, metadata_of, path_value, speak
from sea.playbook import Node, Playbook, PlaybookError
from sea.router import prepare_schema, with_targets
from sea.templates import as_text, render


def _schema(ctx: RunContext, node: Node, vars_: dict[str, Any]) -> dict[str, Any] | None:
    schema = node.response_schema
    if schema is None:
        return None
    schema = prepare_schema(schema, ctx.ports.router_playbooks())
    if "available_playbooks" in vars_:
        schema = add_playbook_enum(schema, vars_["available_playbooks"])
    if schema is not node.response_schema:  # a router's schema (from the catalogue or its listing): what is here
        schema = with_targets(schema, lambda kind: ctx.ports.target_names(kind, ctx.building_id))
    return schema


def run_llm(ctx: RunContext, pb: Playbook, node: Node, vars_: dict[str, Any], emit: Emit) -> dict[str, Any]:
    persona = ctx.persona
    # A picture a tool just showed needs a model with vision (the persona's VISION_MODEL chain).
    seeing = any(m.get("images") for m in ctx.messages)
    model, notice = ctx.ports.model_for(persona, "vision" if seeing else model_type(node, sub_line=bool(ctx.line_id)))
    if notice:
        emit(event("notice", text=str(notice), kind=getattr(notice, "kind", "model_fallback"), **ctx.base(node)))
    prompt: Message | None = None
    if node.action is not None:
        prompt = Message(role="user", content=as_text(render(node.action, vars_, playbook=ctx.playbook, node=node.id,
                                                                keep=pb.text_placeholders)))
    schema = _schema(ctx, node, vars_)
    pending = ctx.messages + ([prompt] if prompt else [])
    if sees_context(node):
        # Memory, history and the pulse's messages, fitted to the persona's token budget by the domain.
        depth = (pb.context_requirements or {}).get("history_depth")
        fitted = ctx.ports.prompt_context(
            persona, ctx.building_id, ctx.pulse_id, model, pending, exclude_tags=frozenset(ctx.threads.closed),
            history_depth=depth if not node.context_profile else None, line_id=ctx.line_id)
        messages, system, fitted_tokens = fitted["messages"], fitted["system"], fitted["input_tokens"]
    else:
        messages, system, fitted_tokens = pending, None, 0  # upstream's isolated worker profiles see no history
    request = ChatRequest(
        messages=messages,
        system=system,
        response_schema=schema,
        tools=[ToolSpec(**spec) for spec in ctx.ports.tool_specs(
            node.available_tools or [], ctx.persona, lambda ev: emit({**ev, **ctx.base(node)}))],
        persona_name=persona.get("name"),
    )
    memo = None if isinstance(node.memorize, bool) else node.memorize
    memo_tags = list(memo.tags) if memo else []
    line = {"line_role": memo.line_role, "scope": memo.scope} if memo else {}
    targets = node.output_targets()
    updates: dict[str, Any] = {}
    if node.speak and schema is None and not request.tools:
        parts: list[str] = []
        chunk_event = event("speak_chunk", **ctx.base(node))  # its fields made once, each chunk's delta added
        stream = model.stream(request)
        try:
            while True:
                try:
                    chunk = next(stream)
                except StopIteration as end:  # a generator's return value: why the stream ended
                    cut = end.value if end.value == CUT_LENGTH else None
                    break
                ctx.check_cancel()
                parts.append(chunk)
                emit({**chunk_event, "delta": chunk})  # type: ignore[typeddict-item]
        except PulseCancelled:
            ctx.spent.append((model.name, fitted_tokens, _counted(model, "".join(parts))))
            if ctx.cancel.keep_said and "".join(parts).strip():  # said before the stop: kept, to continue
                ctx.answered.append(model.name)
                speak(ctx, node, "".join(parts), emit, tags=memo_tags, metadata=metadata_of(node, vars_),
                      cut=CUT_STOPPED, **line)
            raise
        finally:
            done = getattr(stream, "close", None)
            if callable(done):
                done()  # a local model's child stops at its next token (saiverse/llm/local/_model.py)
        text = "".join(parts)
        ctx.answered.append(model.name)
        said = _counted(model, text)
        ctx.usage["input_tokens"] += fitted_tokens  # a stream reports no usage: the fitted count, the text counted
        ctx.usage["output_tokens"] += said
        ctx.spent.append((model.name, fitted_tokens, said))
        # A speaking node is remembered once, as conversation; `memorize` adds its tags to that message.
        speak(ctx, node, text, emit, tags=memo_tags, metadata=metadata_of(node, vars_), cut=cut, **line)
        call = None
    else:
        result = generate_deciding(ctx, node, model, request, emit)  # the rules decide what it could not
        ctx.answered.append(result.model or model.name)
        took = int(result.usage.get("input_tokens") or fitted_tokens)
        gave = int(result.usage.get("output_tokens", 0) or 0) or _counted(model, result.text or "")
        ctx.usage["input_tokens"] += took
        ctx.usage["output_tokens"] += gave
        ctx.spent.append((result.model or model.name, took, gave))
        text = result.text
        if schema is not None:
            # Upstream stores structured output under the node id when no output_key is given.
            updates[node.output_key or node.id] = result.data
            for src, dest in (node.output_mapping or {}).items():
                value = _field(result.data, src, node.output_key or node.id)
                if value is MISSING:
                    raise PlaybookError(f"the model's answer has no field {src!r} for output_mapping",
                                        playbook=ctx.playbook, node=node.id, field="output_mapping")
                updates[dest] = value
        call = None
        if result.tool_calls:
            first = dict(result.tool_calls[0])
            # `arguments` is ours, `args` upstream's (`{call_source}.args`): both name the same object.
            call = {**first, "args": first.get("arguments", {})}
        if request.tools:
            # Upstream's flags after a tool-offering llm node (its playbooks branch on them).
            updates["tool_called"] = call is not None
            updates["has_speak_content"] = call is None and bool(text)
            if not targets:
                updates["tool_call"] = call
                updates["tool_name"] = call["name"] if call else ""
                updates["tool_args"] = call["args"] if call else {}
        if node.speak and text:
            speak(ctx, node, text, emit, tags=memo_tags, metadata=metadata_of(node, vars_), **line)
    # A model may have something to say about its own answer (the small local model: "pull a better one").
    take = getattr(model, "take_notices", None)
    for note in take() if callable(take) else []:
        emit(event("notice", text=note.get("text", ""), kind=note.get("kind", "model"), **ctx.base(node)))
    if "text" in targets:
        updates[targets["text"]] = text
    if "function_call" in targets:
        updates[targets["function_call"]] = call
    if "thought" in targets:
        updates[targets["thought"]] = ""  # no model here reports its thinking separately
    ctx.messages += ([prompt] if prompt else []) + [Message(role="assistant", content=text)]
    updates["last"] = text
    if node.output_key and schema is None:
        updates[node.output_key] = text
    if node.memorize and not node.speak:
        role = memo.role if memo else "assistant"
        ctx.remember(role, text, memo_tags, **line)
        emit(event("memorize", text=text, tags=memo_tags, **ctx.base(node)))
    return updates


def _counted(model: Any, text: str) -> int:
    """Output tokens of `text`: by the model's own tokenizer when it has one, else estimated."""
    if not text:
        return 0
    return model.count_tokens(text) if isinstance(model, TokenCounter) else estimate_tokens(text)


def _field(data: Any, path: str, key: str) -> Any:
    """An output_mapping source: a dotted path in the answer (upstream also allows `<output_key>.path`)."""
    if path.startswith(f"{key}."):
        path = path[len(key) + 1:]
    return path_value(data, path)
