"""Running, resuming and inspecting production runs on a LangGraph checkpointer.

The run id is the LangGraph thread id. Every node's result is checkpointed in
`SAIVERSE_HOME/checkpoints.db` (SqliteSaver), or, for a city in PostgreSQL, in that database's
checkpoint tables (langgraph-checkpoint-postgres' PostgresSaver); `resume` continues a run from its
last checkpoint, so completed steps are never re-run (and a step interrupted half-way finds the item
it already made).

Runs use `durability="sync"`: LangGraph's default ("async") writes checkpoints in the background,
and a process killed mid-run was seen to leave a last checkpoint with no next node — the run then
looked finished with steps still pending. A few ms per node buys a resume that always works.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

from sea.production.graph import build_graph
from sea.production.ports import ProductionPorts
from sea.production.state import TargetScope


@dataclass
class RunSummary:
    """Where a run stands, from its last checkpoint."""

    run_id: str
    finished: bool
    plan: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, Any] = field(default_factory=dict)
    patch_log: list[dict[str, Any]] = field(default_factory=list)
    next_nodes: tuple[str, ...] = ()


class ProductionEngine:
    """One compiled graph on one checkpoint database."""

    def __init__(self, checkpoints_path: Path | str) -> None:
        """`checkpoints_path`: the SQLite file, or a `postgresql+psycopg://` URL of the city's database."""
        self._conn: Any
        if isinstance(checkpoints_path, str) and checkpoints_path.startswith("postgresql+psycopg://"):
            import psycopg
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row

            # PostgresSaver's documented connection: autocommit, dict rows, no server-side prepares.
            self._conn = psycopg.connect("postgresql://" + checkpoints_path[len("postgresql+psycopg://"):],
                                         autocommit=True, prepare_threshold=0, row_factory=dict_row)
            self.saver: Any = PostgresSaver(self._conn)
        else:
            path = Path(checkpoints_path)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(path), check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self.saver = SqliteSaver(self._conn)
        self.saver.setup()
        self.graph = build_graph(self.saver)

    def close(self) -> None:
        self._conn.close()

    def _config(self, ports: ProductionPorts) -> RunnableConfig:
        return {"configurable": {"thread_id": ports.run_id, "production": ports}, "recursion_limit": 200}

    def start(self, ports: ProductionPorts, request: str, scope: TargetScope) -> RunSummary:
        """Plan and run a new production to its end (or until the process dies: then `resume`)."""
        initial = {"request": request, "target_scope": scope, "plan": [], "artifacts": {}, "plan_patch_log": [],
                   "selected_image_inputs": [], "instructions": [], "messages": []}
        self.graph.invoke(initial, config=self._config(ports), durability="sync")
        return self.summary(ports.run_id)

    def resume(self, ports: ProductionPorts) -> RunSummary:
        """Continue a run from its last checkpoint; a finished run is left as it is.

        Normally the checkpoint names the next node and the run simply goes on. If the process died
        between a node's state write and its routing write, the checkpoint has unfinished steps but
        no next node; the run then re-enters at the coordinator, which restarts interrupted steps.
        """
        current = self.summary(ports.run_id)
        if not current.finished:
            resume_input = None if current.next_nodes else {"instructions": []}
            self.graph.invoke(resume_input, config=self._config(ports), durability="sync")
        return self.summary(ports.run_id)

    def summary(self, run_id: str) -> RunSummary:
        snapshot = self.graph.get_state({"configurable": {"thread_id": run_id}})
        values = snapshot.values or {}
        if not values:
            raise LookupError(f"production run {run_id!r} has no checkpoint")
        plan = list(values.get("plan", []))
        open_steps = any(s.get("status") in ("pending", "in_progress") for s in plan)
        return RunSummary(run_id=run_id, finished=not snapshot.next and not open_steps, plan=plan,
                          artifacts=dict(values.get("artifacts", {})), patch_log=list(values.get("plan_patch_log", [])),
                          next_nodes=tuple(snapshot.next))
