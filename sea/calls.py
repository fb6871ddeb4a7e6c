"""subplay and exec: one playbook calling another as a function.

The callee gets `args` (its `input` defaults to the caller's `input`, as upstream); when it ends,
every name of its `output_schema` it has set is written back into the caller under the same name
(upstream's rule), and `output_key` / `output_mapping` may take results under other names. What it
hands back (`last`, `report_to_parent`) is its `report_template` filled in when it has one, else what
it said or its last value; a `line: "sub"` call runs the callee on a sub-line (sea/lines.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chat import Message
from sea.compat import coerce_param
from sea.events import event
from sea.lines import render_report
from sea.nodes import Emit, RunContext
from sea.playbook import Node, Playbook, PlaybookError
from sea.templates import as_text, render
from sea.validate import (
    DEFAULT_ARGS_SOURCE,
    DEFAULT_PLAYBOOK_SOURCE,
    check_args,
    needs_playbook,
    output_names,
)

MAX_DEPTH = 8
"""How deep playbooks may call playbooks (a cycle of exec/subplay ends here, clearly)."""

Invoke = Callable[[Playbook, RunContext, dict[str, Any], Emit], dict[str, Any]]
"""Runs a compiled playbook to its end and returns its final variables (sea.runtime supplies it)."""


class PlaybookMissing(PlaybookError):
    """A subplay / exec names a playbook that is not in the catalog."""

    kind = "playbook_missing"


def bind_args(pb: Playbook, args: dict[str, Any] | None, *, runtime: dict[str, Any] | None = None) -> dict[str, Any]:
    """Function-call semantics: `input_schema` is the signature, `args` the arguments (converted to an
    upstream `param_type`); `runtime` variables (`input`, `metadata`, ...) are set unless a parameter is."""
    args = dict(args or {})
    check_args(pb, args)
    out: dict[str, Any] = dict(runtime or {})
    for p in pb.input_schema:
        if p.name in args:
            out[p.name] = coerce_param(pb, p, args[p.name]) if p.param_type else args[p.name]
        elif p.default is not None:
            out[p.name] = p.default
        elif not p.required:
            out[p.name] = ""
    return out


def runtime_vars(input_text: Any, metadata: dict[str, Any]) -> dict[str, Any]:
    """Variables the runtime sets for every run (see sea.validate.RUNTIME_VARS)."""
    return {"input": input_text if input_text is not None else "", "metadata": metadata, "executed_playbooks": []}


def _call(ctx: RunContext, node: Node, callee: Playbook, args: dict[str, Any], vars_: dict[str, Any],
          emit: Emit, invoke: Invoke, *, child_input: Any = None) -> dict[str, Any]:
    if ctx.depth + 1 > MAX_DEPTH:
        raise PlaybookError(f"playbooks call each other more than {MAX_DEPTH} levels deep",
                            playbook=ctx.playbook, node=node.id)
    declared = {p.name for p in callee.input_schema}
    if "input" in declared and "input" not in args and "input" in vars_:
        args = {**args, "input": vars_["input"]}
    isolated = bool(node.isolate_pulse_context) or node.execution == "subagent"
    sub_line = node.type == "subplay" and node.line == "sub"
    child = ctx.child(callee.name, isolated=isolated, sub_line=sub_line)
    child_input = args.get("input", vars_.get("input", "") if child_input is None else child_input)
    final = invoke(callee, child, bind_args(callee, args, runtime=runtime_vars(child_input, ctx.metadata)), emit)
    if callee.report_template is not None:
        # Upstream v0.3: the callee's report, filled from its variables without another model call.
        result = render_report(callee.report_template, final)
    else:
        result = "\n".join(child.outputs) if child.outputs else as_text(final.get("last", ""))
    if sub_line:
        # A sub-line's own messages stay with it; its caller sees only the report (sea/lines.py).
        ctx.messages.append(Message(role="user", content=f"<system>\n{result}\n</system>"))
    if node.propagate_output or (node.type == "exec" and ctx.is_meta):
        ctx.outputs.extend(child.outputs)
    returned = {name: final[name] for name in output_names(callee) if name in final}
    updates: dict[str, Any] = {**returned, "last": result, "report_to_parent": result}
    if node.output_key:
        updates[node.output_key] = returned if returned else result
    for src, dest in (node.output_mapping or {}).items():
        if src not in returned:
            raise PlaybookError(f"playbook {callee.name!r} did not return {src!r}",
                                playbook=ctx.playbook, node=node.id, field="output_mapping")
        updates[dest] = returned[src]
    return updates


def run_subplay(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit, invoke: Invoke) -> dict[str, Any]:
    callee = ctx.ports.playbook(node.playbook or "")
    if callee is None:
        raise PlaybookMissing(needs_playbook(node.playbook or ""), playbook=ctx.playbook, node=node.id,
                              field="playbook")
    args = render(node.args or {}, vars_, playbook=ctx.playbook, node=node.id)
    child_input = None
    if node.input_template is not None and "input" not in args:
        child_input = render(node.input_template, vars_, playbook=ctx.playbook, node=node.id)
        if any(p.name == "input" for p in callee.input_schema):
            args["input"] = child_input
        # else: the callee's runtime `input` (upstream passes it whether or not the callee declares it)
    return _call(ctx, node, callee, args, vars_, emit, invoke, child_input=child_input)


def run_exec(ctx: RunContext, node: Node, vars_: dict[str, Any], emit: Emit, invoke: Invoke) -> dict[str, Any]:
    """The target is chosen at run time (usually by a router), so it is checked here, clearly.
    Without `playbook_source` / `args_source` the upstream defaults apply (`selected_playbook`,
    `selected_args`); an `args_source` that is not set means no extra arguments."""
    source = node.playbook_source or ("" if node.playbook else DEFAULT_PLAYBOOK_SOURCE)
    if source:
        root = source.split(".")[0]
        if root not in vars_:
            raise PlaybookError(f"exec reads {{{root}}} for the playbook to run, which is not set",
                                playbook=ctx.playbook, node=node.id, field="playbook_source")
        name = render("{" + source + "}", vars_, playbook=ctx.playbook, node=node.id)
    else:
        name = node.playbook
    name = str(name or "").strip()
    callee = ctx.ports.playbook(name) if name else None
    if callee is None:
        raise PlaybookMissing(f"exec target {name!r} (from {source or 'playbook'!r}) is not a known playbook",
                              playbook=ctx.playbook, node=node.id, field="playbook_source")
    declared = {p.name for p in callee.input_schema}
    args: dict[str, Any] = {}
    args_source = node.args_source or DEFAULT_ARGS_SOURCE
    dynamic = vars_.get(args_source.split(".")[0])
    if dynamic is not None and "." in args_source:
        dynamic = render("{" + args_source + "}", vars_, playbook=ctx.playbook, node=node.id)
    if dynamic not in (None, ""):
        if not isinstance(dynamic, dict):
            raise PlaybookError(f"args_source {args_source!r} must hold an object",
                                playbook=ctx.playbook, node=node.id, field="args_source")
        dropped = sorted(set(dynamic) - declared)
        if dropped:
            emit(event("notice", kind="args_dropped", **ctx.base(node),
                       text=f"{callee.name} が宣言していない引数を無視しました: {', '.join(dropped)}"))
        args.update({k: v for k, v in dynamic.items() if k in declared})
    static = render(node.args or {}, vars_, playbook=ctx.playbook, node=node.id)
    args.update({k: v for k, v in static.items() if k in declared and (k not in args or args[k] in ("", None))})
    check_args(callee, {**({"input": ""} if "input" in declared else {}), **args}, caller=ctx.playbook,
               node=node.id)
    updates = _call(ctx, node, callee, args, vars_, emit, invoke)
    done = vars_.get("executed_playbooks")
    if isinstance(done, list):
        updates["executed_playbooks"] = [*done, callee.name]
    return updates
