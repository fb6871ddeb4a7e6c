"""State of the production workflow (docs/ARCHITECTURE.md, "Production"), canonical names only.

A run's state is plain JSON-able data so the LangGraph SQLite checkpointer can persist it after
every node; a killed run resumes from its last checkpoint.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import MessagesState

Capability = Literal["writer", "researcher", "visualizer", "data_analyst"]
"""Which worker runs a step; routing uses this field alone."""
CAPABILITIES: tuple[str, ...] = ("writer", "researcher", "visualizer", "data_analyst")
StepStatus = Literal["pending", "in_progress", "completed", "blocked"]
"""Where a step is in its life."""
PatchOpKind = Literal["edit_pending", "split_pending", "append_tail"]
"""The three ways an instruction given during a run changes the frozen plan."""
PATCH_OPS: tuple[str, ...] = ("edit_pending", "split_pending", "append_tail")


class TargetScope(TypedDict, total=False):
    """What the work is about and for whom (kept with the plan and each step)."""

    building_id: str
    """Where artifacts are placed."""
    persona_id: str
    """Who is working."""
    topic: str
    """The subject of the request (e.g. 猫の冒険)."""
    kind: str
    """The kind of product (e.g. 絵本, 資料)."""
    pages: int
    """How many pages (scenes, chapters) the request asked for; absent when it named no count."""


class TaskStep(TypedDict, total=False):
    """One step of the plan: only what the run reads (docs/ARCHITECTURE.md, "Production")."""

    id: int
    """1-based, unique in the run; patches and alternatives take the next free number."""
    capability: Capability
    instruction: str
    """What the worker is to do (patches rewrite it)."""
    title: str
    depends_on: list[int]
    """Steps that must be completed (or blocked) before this one starts."""
    target_scope: TargetScope
    status: StepStatus
    result_summary: str | None
    """The artifact's summary once completed, or why it failed."""
    fallback: list[str]
    """`step:<id>` of the alternative step that replaced this one after its retries ran out."""
    attempts: int
    """How many times a worker tried it (retry bound)."""
    started_at: float
    """When a worker last took it up (epoch seconds): the plan panel shows when and how long."""
    finished_at: float
    """When it was completed or blocked (epoch seconds)."""


class PlanPatchOp(TypedDict, total=False):
    """An instruction given during a run, as an operation on the plan."""

    op: PatchOpKind
    step_id: int
    """edit_pending / split_pending: the step concerned."""
    instruction: str
    """edit_pending: the new or added instruction."""
    title: str
    parts: list[dict[str, Any]]
    """split_pending: the steps (title, instruction[, capability]) replacing the one step."""
    step: dict[str, Any]
    """append_tail: the new step (capability, title, instruction)."""
    source: str
    """The instruction text it came from."""
    status: Literal["applied", "rejected", "warning"]
    message: str


class ProductionState(MessagesState, total=False):
    """The graph state: the production contract's fields plus what the run needs to route."""

    plan: list[TaskStep]
    artifacts: dict[str, Any]
    plan_patch_log: Annotated[list[PlanPatchOp], operator.add]
    selected_image_inputs: list[dict[str, Any]]
    target_scope: TargetScope
    request: str
    """The user's request that started the run."""
    instructions: list[str]
    """Instructions received during the run, not yet turned into patches."""
    proposed_ops: list[dict[str, Any]]
    """patch_planner's output, checked by patch_gate."""
    current_step: int | None
    route: str
    """Where the last router decided to go."""
    research: dict[str, Any]
    """The researcher subgraph's working data."""
