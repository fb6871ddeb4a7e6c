"""The production graph (docs/ARCHITECTURE.md, "Production"): coordinator → plan_manager →
planner | patch_planner → patch_gate → supervisor → writer / researcher / visualizer / data_analyst
→ retry_or_alt_mode, checkpointed after every node so a killed run resumes where it stopped.
"""

from __future__ import annotations

import re
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from chat import LLMError
from sea.production import workers
from sea.production.patches import apply_ops, capability_for, model_ops, propose_ops
from sea.production.placement import positioned_ops
from sea.production.planner import model_plan, request_kind, template_plan
from sea.production.ports import ProductionPorts
from sea.production.research import build_research_graph
from sea.production.state import CAPABILITIES, ProductionState, TaskStep
from sea.production.workers import plan_event

MAX_ATTEMPTS = 2
"""A blocked step is retried until it has been tried this often; then an alternative is added."""
PRODUCTION_WORDS = ("制作", "作品を作", "本を作")
"""Words that make a request a production besides the kinds in planner.KINDS and a 作って-style verb."""
_ALTERNATIVES = {
    "visualizer": ("writer", "絵の代わりの情景描写", "絵が用意できなかったので、その場面を言葉で描写する"),
    "researcher": ("writer", "手持ちの知識でまとめる", "調査できなかったので、分かっていることだけで要点をまとめる"),
    "writer": ("writer", "短い版", "短く簡潔な版を書く"),
}


def _ports(config: RunnableConfig) -> ProductionPorts:
    return config["configurable"]["production"]


def coordinator(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    request = state.get("request", "")
    if state.get("plan"):
        # Re-entered with a plan: a run restarted after a crash. A step caught in progress starts over.
        plan = [dict(s) for s in state["plan"]]
        for s in plan:
            if s.get("status") == "in_progress":
                s["status"] = "pending"
        plan_event(_ports(config), plan, "中断した制作を再開します")  # type: ignore[arg-type]
        return {"plan": plan, "route": "plan_manager"}
    production = (request_kind(request) is not None or any(w in request for w in PRODUCTION_WORDS)
                  or bool(re.search(r"(作って|制作して|作成して)", request)))
    return {"route": "plan_manager" if production else END}


def plan_manager(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    if not state.get("plan"):
        return {"route": "planner"}
    return {"route": "patch_planner" if state.get("instructions") else "supervisor"}


def planner(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    scope = state.get("target_scope", {})
    model = ports.model("lightweight")
    plan = None
    if model.follows_instructions:
        plan = model_plan(model, ports.system_prompt(), state.get("request", ""), scope)
        if plan is None:
            ports.emit({"type": "notice", "kind": "plan_fallback",
                        "text": "計画を読み取れなかったので、定型の計画で進めます。"})
    plan = plan or template_plan(state.get("request", ""), scope)
    plan_event(ports, plan, "計画を立てました")
    return {"plan": plan, "target_scope": plan[0].get("target_scope", scope), "artifacts": {},
            "selected_image_inputs": []}


def patch_planner(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    """Instructions → ops: asked of a model that follows instructions, by the wording rules otherwise."""
    ports = _ports(config)
    model = ports.model("lightweight")
    plan = state.get("plan", [])
    ops: list[dict[str, Any]] = []
    for text in state.get("instructions", []):
        placed = positioned_ops(text, plan, capability_for(text))
        if placed is not None:  # the wording names the place: no model decides that differently
            ops += placed
            continue
        asked = model_ops(model, ports.system_prompt(), text, plan) if model.follows_instructions else None
        if asked is None and model.follows_instructions:
            ports.emit({"type": "notice", "kind": "patch_fallback",
                        "text": "指示を計画の変更として読み取れなかったので、言葉の手がかりで反映します。"})
        ops += asked if asked is not None else propose_ops(text, plan)
    return {"proposed_ops": ops, "instructions": []}


def patch_gate(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    plan, log = apply_ops(state.get("plan", []), state.get("proposed_ops", []))
    for entry in log:
        if entry.get("status") != "applied":
            ports.emit({"type": "notice", "kind": f"patch_{entry.get('status')}", "text": entry.get("message", "")})
    plan_event(ports, plan, "指示を計画に反映しました")
    return {"plan": plan, "plan_patch_log": log, "proposed_ops": []}


def _ready(plan: list[TaskStep]) -> TaskStep | None:
    done = {s["id"] for s in plan if s.get("status") in ("completed", "blocked")}
    return next((s for s in plan if s.get("status") == "pending" and set(s.get("depends_on", [])) <= done), None)


def supervisor(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    arrived = ports.take_instructions()
    if arrived:
        return {"instructions": list(state.get("instructions", [])) + arrived, "route": "plan_manager"}
    plan = [dict(s) for s in state.get("plan", [])]
    if any(s.get("status") == "blocked" and s.get("attempts", 0) <= MAX_ATTEMPTS for s in plan):
        return {"route": "retry_or_alt_mode"}
    step = _ready(plan)  # type: ignore[arg-type]
    if step is None:
        plan_event(ports, plan, "すべての作業が終わりました")  # type: ignore[arg-type]
        return {"route": END, "current_step": None}
    step["status"] = "in_progress"
    step["started_at"] = time.time()
    plan_event(ports, plan, f"{step['title']} に取りかかります")  # type: ignore[arg-type]
    return {"plan": plan, "current_step": step["id"], "route": step["capability"]}


def _run_worker(kind: str) -> Any:
    work = getattr(workers, kind)

    def node(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
        ports = _ports(config)
        plan = [dict(s) for s in state.get("plan", [])]
        step = next(s for s in plan if s["id"] == state.get("current_step"))
        step["attempts"] = int(step.get("attempts", 0)) + 1
        try:
            artifact = work(ports, state, step)
        except (LLMError, OSError, ValueError, LookupError, RuntimeError) as exc:
            step["status"], step["result_summary"] = "blocked", f"失敗: {exc}"
            step["finished_at"] = time.time()
            ports.emit({"type": "notice", "kind": "step_blocked", "text": f"{step['title']}: {exc}"})
            return {"plan": plan}
        step["status"] = "completed"
        step["result_summary"] = artifact.get("summary") or artifact.get("name")
        step["finished_at"] = time.time()
        # Its ✓ is reported by the supervisor, right after this node's checkpoint: a step shown done never runs again.
        return {"plan": plan, "artifacts": {**state.get("artifacts", {}), f"step{step['id']}": artifact}}

    return node


def researcher_entry(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    plan = [dict(s) for s in state.get("plan", [])]
    for s in plan:
        if s["id"] == state.get("current_step"):
            s["attempts"] = int(s.get("attempts", 0)) + 1
    return {"plan": plan}


def retry_or_alt_mode(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    plan = [dict(s) for s in state.get("plan", [])]
    for step in plan:
        if step.get("status") != "blocked" or step.get("attempts", 0) >= MAX_ATTEMPTS + 1:
            continue
        if step.get("attempts", 0) < MAX_ATTEMPTS:
            step["status"] = "pending"
            ports.emit({"type": "notice", "kind": "step_retry", "text": f"{step['title']} をもう一度試します"})
            continue
        step["attempts"] = MAX_ATTEMPTS + 1  # retries used up: handled once, here
        alt = _ALTERNATIVES.get(step["capability"])
        if alt:
            cap, title, instruction = alt
            new_id = max(s["id"] for s in plan) + 1
            plan.append({**step, "id": new_id, "capability": cap, "title": title, "attempts": 0,
                         "instruction": f"{instruction}: {step.get('instruction', '')}", "status": "pending",
                         "result_summary": None, "fallback": [], "depends_on": list(step.get("depends_on", []))})
            for s in plan:
                if step["id"] in s.get("depends_on", []) and s["id"] != new_id:
                    s["depends_on"] = [new_id if d == step["id"] else d for d in s["depends_on"]]
            step["fallback"] = [f"step:{new_id}"]
    plan_event(ports, plan, "つまずいた作業を立て直しました")  # type: ignore[arg-type]
    return {"plan": plan}


def _route(state: ProductionState) -> str:
    return state.get("route") or END


def build_graph(checkpointer: Any = None) -> Any:
    """The production graph, compiled with `checkpointer` (LangGraph SqliteSaver in the app)."""
    g = StateGraph(ProductionState)
    g.add_node("coordinator", coordinator)
    g.add_node("plan_manager", plan_manager)
    g.add_node("planner", planner)
    g.add_node("patch_planner", patch_planner)
    g.add_node("patch_gate", patch_gate)
    g.add_node("supervisor", supervisor)
    for kind in ("writer", "visualizer", "data_analyst"):
        g.add_node(kind, _run_worker(kind))
    g.add_node("researcher_entry", researcher_entry)
    g.add_node("researcher", build_research_graph())
    g.add_node("retry_or_alt_mode", retry_or_alt_mode)
    g.add_edge(START, "coordinator")
    g.add_conditional_edges("coordinator", _route, ["plan_manager", END])
    g.add_conditional_edges("plan_manager", _route, ["planner", "patch_planner", "supervisor"])
    g.add_edge("planner", "supervisor")
    g.add_edge("patch_planner", "patch_gate")
    g.add_edge("patch_gate", "supervisor")
    targets = [c if c != "researcher" else "researcher_entry" for c in CAPABILITIES]
    g.add_conditional_edges(
        "supervisor", lambda s: "researcher_entry" if _route(s) == "researcher" else _route(s),
        targets + ["plan_manager", "retry_or_alt_mode", END])
    g.add_edge("researcher_entry", "researcher")
    for kind in ("writer", "visualizer", "data_analyst", "researcher"):
        g.add_edge(kind, "supervisor")
    g.add_edge("retry_or_alt_mode", "supervisor")
    return g.compile(checkpointer=checkpointer, name="production")
