"""Frozen plan + patch: turning instructions into ops, and the gate that applies them.

The plan is made once. An instruction that arrives during a run becomes `edit_pending`,
`split_pending` or `append_tail` ops: a model that follows instructions is asked for them as
structured output (`model_ops`); otherwise, or when its answer is unusable, the wording rules of
`propose_ops` decide. `patch_gate` hard-rejects ops whose *shape* is wrong (unknown op, missing or
mistyped fields, unknown capability) and turns every other problem (unknown step, a step already
started or finished) into a warning — the op is skipped, the run goes on. Completed steps are
never edited.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from chat import ChatModel, ChatRequest, LLMError, Message
from sea.production.placement import new_step_fields, positioned_ops
from sea.production.state import CAPABILITIES, PATCH_OPS, PlanPatchOp, TaskStep

_PART = {"type": "object", "properties": {
    "title": {"type": "string"}, "instruction": {"type": "string"},
    "capability": {"type": "string", "enum": list(CAPABILITIES)},
}, "required": ["title", "instruction"]}
PATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ops": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": list(PATCH_OPS)},
            "step_id": {"type": "integer"},
            "instruction": {"type": "string"},
            "title": {"type": "string"},
            "parts": {"type": "array", "minItems": 2, "items": _PART},
            "step": {**_PART, "required": ["capability", "title", "instruction"]},
        },
        "required": ["op"],
    }}},
    "required": ["ops"],
}
"""What the model answers when asked to turn an instruction into ops (checked again by the gate)."""

_CAP_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("visualizer", ("絵", "画像", "挿絵", "イラスト", "描", "表紙")),
    ("researcher", ("調べ", "調査", "資料を探", "リサーチ")),
    ("data_analyst", ("まとめて", "パッケージ", "zip", "統計", "集計", "束ね")),
]


def capability_for(text: str, default: str = "writer") -> str:
    """The worker an instruction most likely needs (keyword match; writer otherwise)."""
    for cap, words in _CAP_WORDS:
        if any(w in text for w in words):
            return cap
    return default


def model_ops(model: ChatModel, system: str, instruction: str, plan: list[TaskStep]) -> list[dict[str, Any]] | None:
    """The model's ops for `instruction` (structured output), or None when it gives nothing usable."""
    steps = [{k: s.get(k) for k in ("id", "capability", "status", "title", "instruction", "depends_on")} for s in plan]
    prompt = (
        "制作の途中でユーザーから指示が届きました。計画を変更する操作 (ops) に変えてください。\n"
        "- edit_pending: まだ始まっていない (pending) ステップ step_id の instruction を、"
        "指示を反映した全文に置き換える\n"
        "- split_pending: pending のステップ step_id を parts (2つ以上、各 title と instruction) に分ける\n"
        "- append_tail: 計画の最後に step (capability, title, instruction) を加える\n"
        "完了・実行中のステップは変えられません。capability は writer / researcher / visualizer / data_analyst。\n\n"
        f"指示: {instruction}\n\n計画:\n{json.dumps(steps, ensure_ascii=False, indent=1)}")
    try:
        result = model.generate(ChatRequest(messages=[Message(role="user", content=prompt)], system=system,
                                             response_schema=PATCH_SCHEMA))
    except LLMError:
        return None
    ops = result.data.get("ops") if isinstance(result.data, dict) else None
    if not isinstance(ops, list) or not ops:
        return None
    return [{**op, "source": instruction} if isinstance(op, dict) else op for op in ops]


def propose_ops(instruction: str, plan: list[TaskStep]) -> list[dict[str, Any]]:
    """Rule-based patch planning: an instruction that names its place goes there (sea/production/placement.py);
    otherwise the wording picks the op. A model that does not follow instructions always comes here."""
    text = instruction.strip()
    pending = [s for s in plan if s.get("status") == "pending"]
    placed = positioned_ops(text, plan, capability_for(text))
    if placed is not None:
        return placed
    if re.search(r"(追加|足して|加えて|最後に|も作って|もつけて)", text) or not pending:
        return [{"op": "append_tail", "source": text, "step": new_step_fields(text, capability_for(text))}]
    target = next((s for s in pending if capability_for(text, "") == s.get("capability")), pending[0])
    if re.search(r"(分けて|分割|二つに|2つに|ふたつに)", text):
        base = target.get("instruction", "")
        return [{"op": "split_pending", "step_id": target["id"], "source": text, "parts": [
            {"title": f"{target.get('title', '')} (前半)", "instruction": f"{base}\n前半: {text}"},
            {"title": f"{target.get('title', '')} (後半)", "instruction": f"{base}\n後半: {text}"},
        ]}]
    return [{"op": "edit_pending", "step_id": target["id"], "source": text,
             "instruction": f"{target.get('instruction', '')}\n追加の指示: {text}"}]


def _shape_error(op: Any) -> str | None:
    """Why an op is malformed (hard reject), or None."""
    if not isinstance(op, dict):
        return "op must be an object"
    kind = op.get("op")
    if kind not in PATCH_OPS:
        return f"unknown op {kind!r} (edit_pending, split_pending, append_tail)"
    if kind in ("edit_pending", "split_pending") and (not isinstance(op.get("step_id"), int)
                                                      or isinstance(op.get("step_id"), bool)):
        return f"{kind} needs an integer step_id"
    if kind == "edit_pending" and not (isinstance(op.get("instruction"), str) and op["instruction"].strip()):
        return "edit_pending needs a non-empty instruction"
    if kind == "split_pending":
        parts = op.get("parts")
        if not isinstance(parts, list) or len(parts) < 2:
            return "split_pending needs at least two parts"
        for p in parts:
            if not isinstance(p, dict) or not isinstance(p.get("instruction"), str) or not p["instruction"].strip():
                return "every split part needs a non-empty instruction"
            if "capability" in p and p["capability"] not in CAPABILITIES:
                return f"unknown capability {p['capability']!r}"
            deps = p.get("depends_on", [])
            if not isinstance(deps, list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in deps):
                return "a split part's depends_on must be a list of step ids"
    if kind == "append_tail":
        step = op.get("step")
        if not isinstance(step, dict):
            return "append_tail needs a step object"
        if step.get("capability") not in CAPABILITIES:
            return f"unknown capability {step.get('capability')!r} ({', '.join(CAPABILITIES)})"
        if not isinstance(step.get("instruction"), str) or not step["instruction"].strip():
            return "append_tail step needs a non-empty instruction"
    return None


def _new_step(plan: list[TaskStep], fields: dict[str, Any], scope: dict[str, Any]) -> TaskStep:
    next_id = max((s["id"] for s in plan), default=0) + 1
    return TaskStep(
        id=next_id, capability=fields.get("capability", "writer"), instruction=fields["instruction"],
        title=fields.get("title") or fields["instruction"][:30], fallback=[],
        depends_on=list(fields.get("depends_on", [])), target_scope=scope, status="pending", result_summary=None,
        attempts=0,
    )


def apply_ops(plan: list[TaskStep], ops: list[Any]) -> tuple[list[TaskStep], list[PlanPatchOp]]:
    """The gate: returns the new plan and one log entry per op (applied / warning / rejected)."""
    plan = copy.deepcopy(plan)
    log: list[PlanPatchOp] = []
    for op in ops:
        problem = _shape_error(op)
        if problem:
            log.append(PlanPatchOp(op=op.get("op") if isinstance(op, dict) else None,  # type: ignore[typeddict-item]
                                   status="rejected", message=problem))
            continue
        entry = PlanPatchOp(**{k: v for k, v in op.items() if k in PlanPatchOp.__annotations__})
        kind = op["op"]
        if kind == "append_tail":
            scope = plan[-1].get("target_scope", {}) if plan else {}
            step = _new_step(plan, op["step"], scope)
            plan.append(step)
            entry.update(status="applied", message=f"step {step['id']} appended")
            log.append(entry)
            continue
        target = next((s for s in plan if s["id"] == op["step_id"]), None)
        if target is None:
            entry.update(status="warning", message=f"step {op['step_id']} does not exist; skipped")
        elif target.get("status") != "pending":
            entry.update(status="warning",
                         message=f"step {target['id']} is {target.get('status')}; only pending steps change")
        elif kind == "edit_pending":
            target["instruction"] = op["instruction"]
            if op.get("title"):
                target["title"] = op["title"]
            entry.update(status="applied", message=f"step {target['id']} edited")
        else:
            index = plan.index(target)
            first_id = max(s["id"] for s in plan) + 1
            new_steps: list[TaskStep] = []
            known = {s["id"] for s in plan}
            for n, part in enumerate(op["parts"]):
                # A part's own depends_on (a step placed before or after another) is kept; every later
                # part also waits for the part before it.
                own = [d for d in part["depends_on"] if d in known] if "depends_on" in part else None
                deps = (own if own is not None else list(target.get("depends_on", []))) if n == 0 else \
                    [*(own or []), first_id + n - 1]
                step = _new_step(plan + new_steps, {
                    "capability": part.get("capability", target["capability"]), "title": part.get("title"),
                    "instruction": part["instruction"], "depends_on": deps,
                }, target.get("target_scope", {}))
                new_steps.append(step)
            for s in plan:  # whoever waited for the split step now waits for its last part
                if target["id"] in s.get("depends_on", []):
                    s["depends_on"] = [new_steps[-1]["id"] if d == target["id"] else d for d in s["depends_on"]]
            plan[index:index + 1] = new_steps
            if op.get("position") in ("before", "after"):
                added = new_steps[0] if op["position"] == "before" else new_steps[-1]
                entry.update(status="applied", message=f"step {added['id']} ({added['title']}) placed "
                             f"{op['position']} {target.get('title', '')} (now step "
                             f"{new_steps[1 if op['position'] == 'before' else 0]['id']})")
            else:
                entry.update(status="applied", message=f"step {target['id']} split into "
                             + ", ".join(str(s["id"]) for s in new_steps))
        log.append(entry)
    return plan, log
