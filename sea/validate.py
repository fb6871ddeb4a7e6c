"""Validation of a playbook against the world it will run in, before anything runs (docs/ARCHITECTURE.md, "Playbooks").

`sea.playbook.parse_playbook` already checked the shape (types, fields, edges, reachability).
This adds what needs the other playbooks and the tool registry: unknown tools, subplay targets,
arguments the callee does not declare or required ones not passed, template variables nobody
sets, and writes into the `_` system namespace.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sea.expr import referenced_names
from sea.playbook import Node, Playbook, PlaybookError
from sea.templates import referenced

ALWAYS_SET = {"last", "last_error"}
"""Written by the runtime itself: `last` as nodes run, `last_error` before an `error_next` jump."""


def written_by(node: Node) -> set[str]:
    """The playbook variables a node writes."""
    out: set[str] = set()
    if node.type in ("llm", "tool", "tool_call", "subplay", "exec"):
        out.add("last")
    if node.output_key:
        out.add(node.output_key)
    out.update((node.output_mapping or {}).values())
    out.update(k for k in (node.output_keys or []) if k)
    out.update((node.assignments or {}).keys())
    return out


def _reads(node: Node) -> list[tuple[str, set[str]]]:
    """(field, variables read) for every templated field of a node."""
    reads: list[tuple[str, set[str]]] = []
    if node.action is not None and node.type not in ("tool", "subplay"):
        reads.append(("action", referenced(node.action)))
    if node.args is not None:
        reads.append(("args", referenced(node.args)))
    if node.args_input:
        # args_input values are state keys (or templates / literals)
        keys = {v for v in node.args_input.values() if isinstance(v, str) and v.isidentifier()}
        reads.append(("args_input", referenced(node.args_input) | keys))
    for key, expr in (node.assignments or {}).items():
        if isinstance(expr, str) and expr.startswith("="):
            reads.append((f"assignments.{key}", referenced_names(expr)))
        else:
            reads.append((f"assignments.{key}", referenced(expr)))
    if node.conditional_next:
        reads.append(("conditional_next.field", {node.conditional_next.field.split(".")[0]}))
    for name in ("playbook_source", "args_source", "call_source"):
        value = getattr(node, name)
        if value:
            reads.append((name, {value.split(".")[0]}))
    return reads


def validate_playbook(
    pb: Playbook, *, playbooks: Mapping[str, Playbook], tools: Collection[str],
    system_vars: Collection[str] = (),
) -> None:
    """Raise PlaybookError (naming playbook, node and field) for the first problem found."""
    for param in pb.input_schema:
        if param.name.startswith("_"):
            raise PlaybookError("parameter names may not start with '_' (system namespace)",
                                playbook=pb.name, field=f"input_schema.{param.name}")
    known = {p.name for p in pb.input_schema} | ALWAYS_SET | set(system_vars)
    for node in pb.nodes:
        for var in written_by(node):
            if var.startswith("_"):
                raise PlaybookError(f"writes {var!r}: '_' variables belong to the runtime",
                                    playbook=pb.name, node=node.id, field="output")
        known |= written_by(node)
    for node in pb.nodes:
        _check_node(pb, node, playbooks, tools)
        for field, names in _reads(node):
            for name in sorted(names):
                if name not in known:
                    raise PlaybookError(
                        f"reads {{{name}}}, which is neither a parameter nor set by any node",
                        playbook=pb.name, node=node.id, field=field,
                    )


def _check_node(pb: Playbook, node: Node, playbooks: Mapping[str, Playbook], tools: Collection[str]) -> None:
    def fail(message: str, field: str) -> PlaybookError:
        return PlaybookError(message, playbook=pb.name, node=node.id, field=field)

    if node.type == "tool":
        if not node.action:
            raise fail("tool node needs `action` (the tool name)", "action")
        if node.action not in tools:
            raise fail(f"unknown tool {node.action!r}", "action")
    for tool in node.available_tools or []:
        if tool not in tools:
            raise fail(f"unknown tool {tool!r}", "available_tools")
    if node.type == "tool_call" and not node.call_source:
        raise fail("tool_call node needs `call_source`", "call_source")
    if node.type == "subplay":
        target = node.playbook or ""
        callee = playbooks.get(target)
        if callee is None:
            raise fail(f"subplay target {target!r} does not exist", "playbook")
        check_args(callee, node.args or {}, caller=pb.name, node=node.id)
        outputs = output_names(callee)
        for src in node.output_mapping or {}:
            if src not in outputs:
                raise fail(f"maps output {src!r}, which playbook {target!r} does not declare in output_schema",
                           "output_mapping")
    if node.type == "exec" and not (node.playbook_source or node.playbook):
        raise fail("exec node needs `playbook_source`", "playbook_source")
    if node.type == "set" and not node.assignments:
        raise fail("set node needs `assignments`", "assignments")


def output_names(pb: Playbook) -> list[str]:
    """Names a playbook returns to its caller (its `output_schema`)."""
    schema = pb.output_schema
    if isinstance(schema, dict):
        return list((schema.get("properties") or {}).keys())
    names: list[str] = []
    for entry in schema or []:
        if isinstance(entry, str):
            names.append(entry)
        elif isinstance(entry, dict) and entry.get("name"):
            names.append(str(entry["name"]))
    return names


def check_args(callee: Playbook, args: Mapping[str, Any], *, caller: str = "", node: str = "",
               partial: bool = False) -> None:
    """Arguments against the callee's signature: nothing undeclared, every required one passed."""
    declared = {p.name for p in callee.input_schema}
    for key in args:
        if key not in declared:
            raise PlaybookError(
                f"passes argument {key!r}, which playbook {callee.name!r} does not declare "
                f"(it declares: {', '.join(sorted(declared)) or 'nothing'})",
                playbook=caller or callee.name, node=node, field=f"args.{key}",
            )
    if partial:
        return
    for p in callee.input_schema:
        if p.required and p.name not in args:
            raise PlaybookError(
                f"does not pass required argument {p.name!r} of playbook {callee.name!r}",
                playbook=caller or callee.name, node=node, field="args",
            )
