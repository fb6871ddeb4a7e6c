"""Validation of a playbook against the world it will run in, before anything runs (docs/ARCHITECTURE.md, "Playbooks").

`sea.playbook.parse_playbook` already checked the shape (types, fields, edges, reachability).
This adds what needs the other playbooks and the tool registry: arguments the callee does not
declare or required ones not passed, template variables nobody sets, `args_input` values that are
not state paths, and writes into the `_` system namespace.

A tool or called playbook that is not here does not make a playbook invalid (upstream playbooks
name tools this install lacks): the report lists it under `needs`, and running the playbook fails
at that node with the same words. Upstream fields without effect here are listed under `ignored`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from sea.compat import deprecated_fields, ignored_fields
from sea.expr import referenced_names, syntax_problem
from sea.playbook import Node, Playbook, PlaybookError
from sea.templates import referenced
from words import say

RUNTIME_VARS = frozenset({"input", "last", "last_error", "metadata", "executed_playbooks"})
"""Set by the runtime for every run: `input` (the caller's input unless passed), `last` as nodes
run, `last_error` before an `error_next` jump, `metadata` (the pulse's metadata object, `{}` unless
the caller gives one) and `executed_playbooks` (names `exec` nodes ran, as upstream)."""

PATH_RE = re.compile(r"^[A-Za-z_]\w*(\.\w+)*$")
"""An `args_input` state path: a variable name, optionally followed by `.field` / `.0` parts."""

DEFAULT_PLAYBOOK_SOURCE = "selected_playbook"
"""Upstream's default `playbook_source` of an exec node."""
DEFAULT_ARGS_SOURCE = "selected_args"
"""Upstream's default `args_source` of an exec node."""
DEFAULT_CALL_SOURCE = "fc"
"""Upstream's default `call_source` of a tool_call node."""


@dataclass
class ValidationReport:
    """What a valid playbook still lacks here, and which of its fields have no effect."""

    needs: list[str] = field(default_factory=list)
    """`needs tool X (not available here)` / `needs playbook X (not imported here)`."""
    ignored: list[str] = field(default_factory=list)
    """Upstream fields kept as written but without effect here, each with the reason."""
    expects: list[str] = field(default_factory=list)
    """Variables read that nothing in the playbook sets, in a playbook that calls others (a callee's
    `output_schema` is written back). If no callee sets one, the run stops where it is read."""
    deprecated: list[str] = field(default_factory=list)
    """Fields upstream v0.3 deprecates (honoured here), each with its replacement."""

    def to_dict(self) -> dict[str, list[str]]:
        return {"needs": list(self.needs), "ignored": list(self.ignored), "expects": list(self.expects),
                "deprecated": list(self.deprecated)}


def needs_tool(name: str) -> str:
    """The words for a tool this install lacks (validation and the run-time error say the same)."""
    return f"needs tool {name} (not available here)"


def needs_playbook(name: str) -> str:
    """The words for a called playbook that is not in the catalog."""
    return f"needs playbook {name} (not imported here)"


LITERAL_KEY = "$literal"
"""`{"$literal": V}` in `args_input` is the value V itself (upstream's form for a fixed string)."""


def literal_arg(value: Any) -> tuple[bool, Any]:
    """(True, value) for an `args_input` literal: `{"$literal": V}` → V; any non-string JSON value."""
    if isinstance(value, dict) and set(value) == {LITERAL_KEY}:
        return True, value[LITERAL_KEY]
    return (not isinstance(value, str)), value


def written_by(node: Node, playbooks: Mapping[str, Playbook] | None = None) -> set[str]:
    """The playbook variables a node writes (a subplay also writes its callee's `output_schema`)."""
    out: set[str] = set()
    if node.type in ("llm", "tool", "tool_call", "subplay", "exec"):
        out.add("last")
    if node.type in ("subplay", "exec"):
        out.add("report_to_parent")  # upstream v0.3: what the callee handed back (sea/calls.py)
    if node.output_key:
        out.add(node.output_key)
    elif node.type == "llm" and node.response_schema is not None:
        out.add(node.id)  # upstream: structured output goes under the node id without output_key
    out.update((node.output_mapping or {}).values())
    out.update(node.written_keys())
    if node.type == "llm" and node.available_tools:
        out.update(("tool_called", "has_speak_content"))  # upstream flags of a tool-offering llm node
        if not node.output_keys:
            out.update(("tool_call", "tool_name", "tool_args"))
    out.update((node.assignments or {}).keys())
    if node.assignments and "executed_playbooks_init" in node.assignments:
        out.add("executed_playbooks")
    if node.type == "subplay" and playbooks is not None and node.playbook in playbooks:
        out.update(output_names(playbooks[node.playbook]))
    return out


def _reads(node: Node) -> list[tuple[str, set[str]]]:
    """(field, variables read) for every templated field of a node."""
    reads: list[tuple[str, set[str]]] = []
    if node.action is not None and node.type not in ("tool", "subplay"):
        reads.append(("action", referenced(node.action)))
    if node.args is not None:
        reads.append(("args", referenced(node.args)))
    if node.input_template is not None:
        reads.append(("input_template", referenced(node.input_template)))
    for key, value in (node.args_input or {}).items():
        if not literal_arg(value)[0]:
            reads.append((f"args_input.{key}", {value.split(".")[0]}))
    for key, expr in (node.assignments or {}).items():
        if isinstance(expr, str) and expr.startswith("="):
            reads.append((f"assignments.{key}", referenced_names(expr)))
        else:
            reads.append((f"assignments.{key}", referenced(expr)))
    if node.conditional_next:
        reads.append(("conditional_next.field", {node.conditional_next.field.split(".")[0]}))
    if node.type == "exec":
        source = node.playbook_source or ("" if node.playbook else DEFAULT_PLAYBOOK_SOURCE)
        if source:
            reads.append(("playbook_source", {source.split(".")[0]}))
    if node.type == "tool_call":
        reads.append(("call_source", {(node.call_source or DEFAULT_CALL_SOURCE).split(".")[0]}))
    if node.metadata_key:
        reads.append(("metadata_key", {node.metadata_key.split(".")[0]}))
    return reads


def validate_playbook(
    pb: Playbook, *, playbooks: Mapping[str, Playbook], tools: Collection[str],
    tool_args: Mapping[str, Collection[str]] | None = None, system_vars: Collection[str] = (),
) -> ValidationReport:
    """Raise PlaybookError (naming playbook, node and field) for the first problem found; otherwise
    report what the playbook needs that is not here and which of its fields are ignored.

    `tools` are the tools that can run here; `tool_args` their argument names."""
    report = ValidationReport(ignored=ignored_fields(pb), deprecated=deprecated_fields(pb))
    for param in pb.input_schema:
        if param.name.startswith("_"):
            raise PlaybookError(say("pv_param_system"),
                                playbook=pb.name, field=f"input_schema.{param.name}")
    for name in output_names(pb):
        if name.startswith("_"):
            raise PlaybookError(say("pv_returns_system", name=name),
                                playbook=pb.name, field="output_schema")
    known = {p.name for p in pb.input_schema} | RUNTIME_VARS | set(system_vars)
    for node in pb.nodes:
        for var in written_by(node, playbooks):
            if var.startswith("_"):
                if var == node.output_key:
                    # Upstream's own `wait` keeps a tool result as `_wait_result`: the result is not kept.
                    report.ignored.append(f"node {node.id!r}: output_key {var!r} ('_' variables belong to the "
                                          "runtime; the result is not kept)")
                    continue
                raise PlaybookError(say("pv_writes_system", name=var),
                                    playbook=pb.name, node=node.id, field="output")
        known |= written_by(node, playbooks)
    # A playbook that calls others may read what they were meant to return (one chosen at run time, one
    # not imported yet, or an upstream callee that forgot its output_schema): listed, checked when it runs.
    open_calls = any(n.type in ("exec", "subplay") for n in pb.nodes)
    text_names: set[str] = set()
    for node in pb.nodes:
        _check_node(pb, node, playbooks, tools, tool_args, report)
        for key, value in (node.args_input or {}).items():
            if not literal_arg(value)[0] and not PATH_RE.match(value):
                raise PlaybookError(say("pv_not_path", value=value), playbook=pb.name, node=node.id,
                                    field=f"args_input.{key}")
        for fld, names in _reads(node):
            for name in sorted(names):
                if name in known:
                    continue
                if open_calls:
                    report.expects.append(f"{{{name}}} (node {node.id!r}, {fld})")
                    continue
                if fld == "conditional_next.field":
                    report.ignored.append(f"node {node.id!r}: conditional_next.field {{{name}}} (no parameter or "
                                          "node sets it; it compares as empty, so the fallback is taken)")
                    continue
                if fld == "action":
                    text_names.add(name)
                    report.ignored.append(f"node {node.id!r}: action {{{name}}} (no parameter or node sets it; "
                                          "kept as written, as upstream does)")
                    continue
                raise PlaybookError(say("pv_unset", name=name), playbook=pb.name, node=node.id, field=fld)
    pb._text_names = frozenset(text_names)
    report.needs = list(dict.fromkeys(report.needs))
    report.expects = list(dict.fromkeys(report.expects))
    return report


def _check_node(pb: Playbook, node: Node, playbooks: Mapping[str, Playbook], tools: Collection[str],
                tool_args: Mapping[str, Collection[str]] | None, report: ValidationReport) -> None:
    def fail(message: str, fld: str) -> PlaybookError:
        return PlaybookError(message, playbook=pb.name, node=node.id, field=fld)

    if node.type == "tool":
        if not node.action:
            raise fail(say("pv_tool_needs_action"), "action")
        if node.action not in tools:
            report.needs.append(needs_tool(node.action))
        elif tool_args is not None and node.action in tool_args:
            for key in node.args_input or {}:
                if key not in tool_args[node.action]:
                    report.ignored.append(f"node {node.id!r}: args_input.{key} (tool {node.action} does not take "
                                          "it here; it is left out when the node runs)")
    for name in node.available_tools or []:
        if name not in tools:
            report.needs.append(needs_tool(name))
    if node.type == "subplay":
        target = node.playbook or ""
        callee = playbooks.get(target)
        if callee is None:
            report.needs.append(needs_playbook(target))
            return
        # The callee's `input` defaults to the caller's (sea/calls.py), so it is always passed.
        implicit = {"input": ""} if any(p.name == "input" for p in callee.input_schema) else {}
        check_args(callee, {**implicit, **(node.args or {})}, caller=pb.name, node=node.id)
        outputs = output_names(callee)
        for src in node.output_mapping or {}:
            if src not in outputs:
                raise fail(say("pv_maps_missing", src=src, target=target), "output_mapping")
    if node.type == "set" and not node.assignments:
        raise fail(say("pv_set_needs"), "assignments")
    for key, expr in (node.assignments or {}).items():
        problem = syntax_problem(expr) if isinstance(expr, str) and expr.startswith("=") else None
        if problem:
            raise fail(problem, f"assignments.{key}")


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
                say("pv_undeclared", key=key, callee=callee.name,
                    declared=", ".join(repr(d) for d in sorted(declared)) or say("pv_declares_nothing")),
                playbook=caller or callee.name, node=node, field=f"args.{key}",
            )
    if partial:
        return
    for p in callee.input_schema:
        if p.required and p.name not in args:
            raise PlaybookError(say("pv_required_missing", name=p.name, callee=callee.name),
                                playbook=caller or callee.name, node=node, field="args")
