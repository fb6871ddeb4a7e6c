"""Production runs as the domain sees them: the `production_run` table, the ports the engine is
handed (items, models, memory, instructions), and start / resume / add-instruction.

`ProductionService` is given the parts it uses (database, world, items, memory, a model resolver,
a picture drawer, where files go); manager.py wires them. Artifacts become items in the run's
building. Each item carries `production_run`, `step` and `key` in its state, which is what makes a
re-run step find its item instead of making another.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import threading
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from chat import ChatModel
from database import Database
from database.models import Item, ItemLocation, ProductionRun
from saiverse.claims import claim
from saiverse.disk import private_folder
from saiverse.errors import UserError
from saiverse.llm.names import made_by_note
from saiverse.memory import SAIMemory
from saiverse.metering import acting_for
from saiverse.pulse._journal import ModelResolver, persona_context, system_prompt_for
from saiverse.world import ItemInfo, ItemStore, World, atomic_write, new_file_name
from words import say

if TYPE_CHECKING:  # LangGraph and the production graph load on a production's first use, not at start-up
    from sea.production import ProductionEngine, RunSummary

RESEARCH_BYPRODUCTS = ("notes", "bundle")
"""Item keys of production runs that are not sources for another run's research."""
PictureDrawer = Callable[[str, str, str, str, dict[str, Any]], ItemInfo]
"""(persona_id, building_id, prompt, name, state) → the picture item it drew (manager.draw_picture)."""


class UnknownRunError(UserError, LookupError):
    """A production run id that names no run (or no checkpoint)."""


def bundle_entry_name(name: str) -> str:
    """An item name as one safe zip entry component: no directories, no `..`, no control characters."""
    clean = "".join("_" if ch in '/\\:' or ord(ch) < 32 else ch for ch in name).strip().strip(".")
    return clean[:120] or "item"


class RunBusyError(UserError):
    """The run is being run by another process right now."""


@dataclass
class RunPorts:
    """`sea.production.ProductionPorts` for one run of one persona."""

    service: ProductionService
    run_id: str
    persona_id: str
    building_id: str
    emit_fn: Callable[[dict[str, Any]], None]
    pulse_id: str | None = None
    base: dict[str, Any] = field(default_factory=dict)

    def model(self, kind: str = "normal") -> ChatModel:
        persona = persona_context(self.service.world.persona(self.persona_id))
        return self.service.models(persona, kind)[0]

    def system_prompt(self) -> str:
        persona = persona_context(self.service.world.persona(self.persona_id))
        return system_prompt_for(persona, self.service.world.building(self.building_id))

    def draft_note(self, model: ChatModel) -> str:
        return made_by_note(model.name)

    def emit(self, event: dict[str, Any]) -> None:
        if event.get("type") == "data-plan_update":
            self.service.note_plan(self.building_id, event)
        self.emit_fn({**self.base, **event})

    def find_item(self, step_id: int, key: str) -> dict[str, Any] | None:
        marker = f'"production_run": "{self.run_id}"'
        items = self.service.items
        with self.service.db.session() as s:
            rows = s.scalars(select(Item).where(Item.state_json.contains(marker))).all()
            for row in rows:
                state = json.loads(row.state_json or "{}")
                if state.get("step") == step_id and state.get("key") == key:
                    info = items.get(row.item_id).to_dict()
                    if info["type"] == "document":
                        info["text"] = items.read_document(row.item_id)
                    return info
        return None

    def _state(self, step_id: int, key: str) -> dict[str, Any]:
        return {"production_run": self.run_id, "step": step_id, "key": key, "created_by": self.persona_id}

    def _created(self, info: Any) -> dict[str, Any]:
        data = info.to_dict()
        self.emit_fn({**self.base, "type": "item_created", "item": data, "building_id": self.building_id})
        return data

    def create_document(self, step_id: int, key: str, name: str, content: str) -> dict[str, Any]:
        persona = self.service.world.persona(self.persona_id)
        info = self.service.items.create_document(name, content, owner_kind="building", owner_id=self.building_id,
                                                  state=self._state(step_id, key),
                                                  summary_model=persona.lightweight_model)
        return self._created(info)

    def create_picture(self, step_id: int, key: str, name: str, prompt: str) -> dict[str, Any]:
        info = self.service.draw_picture(self.persona_id, self.building_id, prompt, name, self._state(step_id, key))
        return self._created(info)

    def package(self, step_id: int, key: str, name: str, item_ids: list[str], manifest: str) -> dict[str, Any]:
        """A zip under documents/bundles/ with every artifact file and the manifest; the manifest is the
        document item, and names the zip."""
        items = self.service.items
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.txt", manifest)
            for item_id in item_ids:
                info = items.get(item_id)
                if info.file_path:
                    path = items.file_of(info)
                    zf.write(path, arcname=f"{info.type}/{bundle_entry_name(info.name)}{path.suffix}")
        zip_path = self.service.bundles_dir / new_file_name("zip")
        atomic_write(zip_path, buf.getvalue())
        rel = zip_path.relative_to(self.service.home).as_posix()
        try:
            info = items.create_document(name, f"{manifest}\n\nまとめたファイル: {rel}", owner_kind="building",
                                         owner_id=self.building_id,
                                         state={**self._state(step_id, key), "bundle": rel, "files": len(item_ids)})
        except BaseException:
            zip_path.unlink(missing_ok=True)
            raise
        return self._created(info)

    def search_memory(self, query: str, limit: int) -> list[dict[str, Any]]:
        # The request itself (this pulse) is not a finding; identical lines count once.
        seen: set[str] = set()
        out = []
        for r in self.service.memory.search(self.persona_id, query, limit=limit + 10):
            if (self.pulse_id and r.get("pulse_id") == self.pulse_id) or r["content"] in seen:
                continue
            seen.add(r["content"])
            out.append(dict(r))
        return out[:limit]

    def search_items(self, query: str, limit: int) -> list[dict[str, Any]]:
        # This run's own items are not sources, nor any run's research notes and bundle manifests
        # (they only repeat what was found before); other runs' finished texts and pictures are.
        names = {b.building_id: b.name for b in self.service.world.buildings()}
        like = f"%{query}%"
        with self.service.db.session() as s:
            rows = s.execute(
                select(Item, ItemLocation).join(ItemLocation, ItemLocation.item_id == Item.item_id)
                .where(Item.type.in_(("document", "picture")))
                .where((Item.name.like(like)) | (Item.description.like(like)))
                .where(~Item.state_json.contains(f'"production_run": "{self.run_id}"'))
                .order_by(Item.updated_at.desc()).limit(limit * 3)).all()
            out = []
            for i, loc in rows:
                state = json.loads(i.state_json or "{}")
                if "production_run" in state and state.get("key") in RESEARCH_BYPRODUCTS:
                    continue
                out.append({"item_id": i.item_id, "name": i.name, "type": i.type, "description": i.description,
                            "file_path": i.file_path, "building_name": names.get(loc.owner_id, "")})
            return out[:limit]

    def take_instructions(self) -> list[str]:
        return self.service.take_instructions(self.run_id)


class ProductionService:
    """Starts and resumes runs; holds the instructions users add while a run works."""

    def __init__(self, *, db: Database, world: World, items: ItemStore, memory: SAIMemory, models: ModelResolver,
                 draw_picture: PictureDrawer, home: Path, bundles_dir: Path, checkpoints_path: Path | str) -> None:
        self.db = db
        self.world = world
        self.items = items
        self.memory = memory
        self.models = models
        """(persona, kind) → (model, notice): the persona's model chain."""
        self.draw_picture = draw_picture
        self.home = home
        """The data home: bundle paths are stored relative to it."""
        self.bundles_dir = bundles_dir
        """Where the zip bundles go (under the home)."""
        self._checkpoints_path = checkpoints_path
        self._engine: ProductionEngine | None = None
        self._engine_lock = threading.Lock()
        if isinstance(checkpoints_path, Path) and not checkpoints_path.exists():
            # The file is there from the start (backups carry it) though the engine is built on first use
            # (a PostgreSQL city checkpoints into its database: a URL, no file).
            private_folder(checkpoints_path.parent)
            # Made 0600 before SQLite opens it: its -wal and -shm take the database's mode (as saiverse.db's).
            os.close(os.open(checkpoints_path, os.O_WRONLY | os.O_CREAT, 0o600))
            conn = sqlite3.connect(str(checkpoints_path))
            try:
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
        self._instructions: dict[str, list[str]] = {}
        self._plans: dict[str, dict[str, Any]] = {}
        self._live: set[str] = set()
        """Runs executing in this process right now (a 'running' row from a killed process is not live)."""
        self._lock = threading.Lock()

    @property
    def engine(self) -> ProductionEngine:
        """The checkpointed production graph, built on first use (LangGraph is a heavy import)."""
        if self._engine is None:
            with self._engine_lock:
                if self._engine is None:
                    from sea.production import ProductionEngine
                    self._engine = ProductionEngine(self._checkpoints_path)
        return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()

    def _set_status(self, run_id: str, status: str) -> None:
        with self.db.session() as s:
            row = s.get(ProductionRun, run_id)
            if row is not None:
                row.status, row.updated_at = status, datetime.now()

    def active_run(self, building_id: str) -> str | None:
        """The run working in this building right now, if any (instructions go to it)."""
        with self._lock:
            live = set(self._live)
        if not live:
            return None
        with self.db.session() as s:
            row = s.scalars(select(ProductionRun).where(ProductionRun.building_id == building_id,
                                                        ProductionRun.run_id.in_(live))
                            .order_by(ProductionRun.created_at.desc())).first()
            return row.run_id if row else None

    def live_runs(self) -> list[tuple[str, str, str]]:
        """(run id, persona id, building id) of every run working in this process right now."""
        with self._lock:
            live = set(self._live)
        if not live:
            return []
        with self.db.session() as s:
            rows = s.scalars(select(ProductionRun).where(ProductionRun.run_id.in_(live))).all()
            return [(r.run_id, r.persona_id, r.building_id) for r in rows]

    def runs(self, status: str | None = None) -> list[dict[str, Any]]:
        with self.db.session() as s:
            q = select(ProductionRun).order_by(ProductionRun.created_at.desc())
            if status:
                q = q.where(ProductionRun.status == status)
            return [{"run_id": r.run_id, "persona_id": r.persona_id, "building_id": r.building_id,
                     "request": r.request, "status": r.status} for r in s.scalars(q).all()]

    def note_plan(self, building_id: str, event: dict[str, Any]) -> None:
        """Remember the latest plan shown in a building (the side panel's plan panel reads it)."""
        with self._lock:
            self._plans[building_id] = {"run_id": event.get("run_id"), "note": event.get("note", ""),
                                        "plan": event.get("plan", [])}

    def current_plan(self, building_id: str) -> dict[str, Any] | None:
        """The latest plan of a production in this building, as last reported (None if none yet)."""
        with self._lock:
            return self._plans.get(building_id)

    def add_instruction(self, run_id: str, text: str) -> None:
        with self._lock:
            self._instructions.setdefault(run_id, []).append(text)

    def take_instructions(self, run_id: str) -> list[str]:
        with self._lock:
            return self._instructions.pop(run_id, [])

    def _ports(self, run_id: str, persona_id: str, building_id: str,
               emit: Callable[[dict[str, Any]], None], pulse_id: str | None = None) -> RunPorts:
        return RunPorts(self, run_id, persona_id, building_id, emit, pulse_id)

    def start(self, persona_id: str, building_id: str, request: str,
              emit: Callable[[dict[str, Any]], None], *, run_id: str | None = None,
              pulse_id: str | None = None) -> RunSummary:
        run_id = run_id or uuid.uuid4().hex
        with self.db.session() as s:
            s.add(ProductionRun(run_id=run_id, persona_id=persona_id, building_id=building_id, request=request,
                                status="running", created_at=datetime.now(), updated_at=datetime.now()))
        emit({"type": "notice", "kind": "production_started", "run_id": run_id,
              "text": say("run_started", run=run_id[:8])})
        from sea.production.state import TargetScope

        def work() -> RunSummary:
            with acting_for(persona_id):  # the documents' summaries are hers (saiverse/metering.py)
                return self.engine.start(self._ports(run_id, persona_id, building_id, emit, pulse_id), request,
                                         TargetScope(building_id=building_id, persona_id=persona_id))

        return self._finish(run_id, work)

    def resume(self, run_id: str, emit: Callable[[dict[str, Any]], None]) -> RunSummary:
        """Continue a run from its last checkpoint (UnknownRunError when there is none)."""
        with self.db.session() as s:
            row = s.get(ProductionRun, run_id)
            if row is None:
                raise UnknownRunError(say("no_run", id=run_id))
            persona_id, building_id = row.persona_id, row.building_id
        self.summary(run_id)

        def work() -> RunSummary:
            self._set_status(run_id, "running")
            with acting_for(persona_id):
                return self.engine.resume(self._ports(run_id, persona_id, building_id, emit))

        return self._finish(run_id, work)

    def summary(self, run_id: str) -> RunSummary:
        """Where a run stands, from its last checkpoint."""
        with self.db.session() as s:  # an unknown id is refused without building the engine
            known = s.get(ProductionRun, run_id) is not None
        try:
            if not known:
                raise LookupError(run_id)
            return self.engine.summary(run_id)
        except LookupError as exc:
            raise UnknownRunError(say("no_run_record", id=run_id)) from exc

    def resume_interrupted(self, emit: Callable[[dict[str, Any]], None]) -> list[RunSummary]:
        """Resume every run a previous process left unfinished (called when the app starts)."""
        with self._lock:
            live = set(self._live)
        out = []
        for run in self.runs():
            if run["status"] in ("running", "interrupted") and run["run_id"] not in live:
                try:
                    out.append(self.resume(run["run_id"], emit))
                except RunBusyError:
                    continue  # another process runs it right now (saiverse/claims.py)
                except LookupError:
                    self._set_status(run["run_id"], "failed")  # no checkpoint: it never really started
        return out

    def _finish(self, run_id: str, work: Callable[[], RunSummary]) -> RunSummary:
        # The run's city-wide claim: a run another process (the app, a CLI command, another app of a
        # PostgreSQL city) is running is never resumed here, so it never runs twice.
        with claim(self.home, self.db.url, f"production:{run_id}") as mine:
            if not mine:
                raise RunBusyError(say("run_busy", id=run_id))
            with self._lock:
                self._live.add(run_id)
            try:
                summary = work()
            except BaseException:
                self._set_status(run_id, "interrupted")
                raise
            finally:
                with self._lock:
                    self._live.discard(run_id)
            self._set_status(run_id, "done" if summary.finished else "interrupted")
            return summary
