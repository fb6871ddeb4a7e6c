"""The production workflow: plan, patches and the gate, routing, retry/alternative, artifacts as
items, mid-run instructions (rules offline, the model's structured ops online), what each kind of
request produces offline, and resuming a run whose process was killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chat import LLMError
from saiverse.manager import SAIVerseManager
from saiverse.pulse._production import RunPorts
from saiverse.seed import draw_starry_night
from saiverse.settings import load_settings
from sea.production.graph import patch_planner, supervisor
from sea.production.patches import PATCH_SCHEMA, apply_ops, propose_ops
from sea.production.planner import PLAN_SCHEMA, read_request, template_plan
from sea.production.state import TargetScope
from tests.support.fakes_llm import FakeServer, Reply, openai_image, openai_message
from tests.support.models import MakeManager, ScriptedModel
from tests.support.production_runs import interrupted_run

ROOT = Path(__file__).resolve().parents[1]
STEP_FIELDS = {"id", "capability", "instruction", "title", "fallback", "depends_on", "target_scope", "status",
               "result_summary", "attempts"}


@pytest.fixture(autouse=True)
def _in_the_atelier(request: pytest.FixtureRequest) -> None:
    """A test that opens the conftest world has ソラ and the user in the atelier."""
    if "manager" in request.fixturenames:
        manager = request.getfixturevalue("manager")
        manager.world.move_persona("sora", "atelier")
        manager.move_user("atelier")


def production_items(m: SAIVerseManager, building: str = "atelier") -> list[Any]:
    return [i for i in m.items.list_owned("building", building) if "production_run" in i.state]


# ---- plan and patches (pure) ------------------------------------------------------------------

def test_offline_plan_for_a_picture_book() -> None:
    assert read_request("絵本を作って: 猫の冒険") == ("絵本", "猫の冒険")
    plan = template_plan("絵本を作って: 猫の冒険", TargetScope(building_id="atelier", persona_id="sora"))
    assert [s["capability"] for s in plan] == ["researcher", "writer", "writer", "visualizer", "data_analyst"]
    for s in plan:
        assert STEP_FIELDS <= set(s) and s["status"] == "pending"
        assert s["target_scope"]["topic"] == "猫の冒険" and s["target_scope"]["building_id"] == "atelier"
    assert plan[4]["depends_on"] == [3, 4]


def _plan() -> list[Any]:
    plan = template_plan("絵本を作って: 猫の冒険", TargetScope(building_id="atelier"))
    plan[0]["status"] = "completed"
    return plan


def test_each_patch_op_applies_to_pending_steps_only() -> None:
    plan, log = apply_ops(_plan(), [
        {"op": "edit_pending", "step_id": 2, "instruction": "主人公は白い猫にする"},
        {"op": "split_pending", "step_id": 3, "parts": [{"title": "前半", "instruction": "前半を書く"},
                                                       {"title": "後半", "instruction": "後半を書く"}]},
        {"op": "append_tail", "step": {"capability": "writer", "title": "あとがき", "instruction": "あとがきを書く"}},
    ])
    assert [e["status"] for e in log] == ["applied", "applied", "applied"]
    by_id = {s["id"]: s for s in plan}
    assert by_id[2]["instruction"] == "主人公は白い猫にする"
    assert 3 not in by_id and [by_id[6]["title"], by_id[7]["title"]] == ["前半", "後半"]
    assert by_id[7]["depends_on"] == [6] and by_id[5]["depends_on"] == [7, 4]  # the bundle waits for the last part
    assert plan[-1]["title"] == "あとがき" and plan[-1]["status"] == "pending"


@pytest.mark.parametrize(("op", "reason"), [
    ({"op": "rewrite_everything"}, "unknown op"),
    ({"op": "edit_pending", "instruction": "x"}, "integer step_id"),
    ({"op": "edit_pending", "step_id": "2", "instruction": "x"}, "integer step_id"),
    ({"op": "edit_pending", "step_id": 2, "instruction": "  "}, "non-empty instruction"),
    ({"op": "split_pending", "step_id": 2, "parts": [{"instruction": "only one"}]}, "at least two parts"),
    ({"op": "append_tail", "step": {"capability": "poet", "instruction": "x"}}, "unknown capability"),
    ({"op": "append_tail"}, "step object"),
    ("not even an object", "must be an object"),
])
def test_gate_hard_rejects_malformed_ops(op: Any, reason: str) -> None:
    before = _plan()
    plan, log = apply_ops(before, [op])
    assert plan == before and log[0]["status"] == "rejected" and reason in log[0]["message"]


def test_gate_warns_on_unknown_or_started_steps() -> None:
    before = _plan()
    plan, log = apply_ops(before, [{"op": "edit_pending", "step_id": 1, "instruction": "やり直し"},
                                   {"op": "edit_pending", "step_id": 99, "instruction": "x"}])
    assert plan == before
    assert [e["status"] for e in log] == ["warning", "warning"]
    assert "completed" in log[0]["message"] and "does not exist" in log[1]["message"]


def test_patch_planner_picks_ops_from_wording() -> None:
    plan = _plan()
    assert propose_ops("最後にあとがきも追加して", plan)[0]["op"] == "append_tail"
    assert propose_ops("表紙の絵も足して", plan)[0]["step"]["capability"] == "visualizer"
    assert propose_ops("本文を前半と後半に分けて", plan)[0]["op"] == "split_pending"
    edit = propose_ops("もっと明るい雰囲気で", plan)[0]
    assert edit["op"] == "edit_pending" and edit["step_id"] == 2


class _Ports:
    run_id = "r"

    def take_instructions(self) -> list[str]:
        return []

    def emit(self, event: dict[str, Any]) -> None:
        self.last = event


def test_supervisor_routes_by_capability_alone() -> None:
    plan = _plan()
    plan[1]["status"] = plan[2]["status"] = "completed"
    ports = _Ports()
    out = supervisor({"plan": plan}, {"configurable": {"production": ports}})
    assert out["route"] == "visualizer" and out["current_step"] == 4
    plan[3]["capability"] = "writer"  # same step, another capability → another worker
    assert supervisor({"plan": plan}, {"configurable": {"production": ports}})["route"] == "writer"


# ---- full runs through the app --------------------------------------------------------------

def test_picture_book_in_the_atelier_makes_items(manager: SAIVerseManager, saiverse_home: Path) -> None:
    events = list(manager.handle_user_input("atelier", "絵本を作って: 猫の冒険"))
    types = [e["type"] for e in events]
    assert "production_playbook" in {e.get("playbook") for e in events}
    for expected in ("data-plan_update", "data-writer-output", "data-image-search-results", "data-visual-image",
                     "data-analyst-stats", "data-analyst-package"):
        assert expected in types, expected
    assert all(e["pulse_id"] and e["persona_id"] == "sora" for e in events if e["type"].startswith("data-"))
    final = [e for e in events if e["type"] == "data-plan_update"][-1]["plan"]
    assert [s["status"] for s in final] == ["completed"] * 5
    items = production_items(manager)
    assert sorted(i.type for i in items) == ["document"] * 4 + ["picture"] * 4  # a picture per scene
    for i in items:
        assert (saiverse_home / i.file_path).exists()
    pictures = sorted(i.name for i in items if i.type == "picture")
    assert pictures == [f"猫の冒険 — 挿絵 {n}" for n in (1, 2, 3, 4)]
    bundle = next(i for i in items if "bundle" in i.state)
    assert (saiverse_home / bundle.state["bundle"]).stat().st_size > 0 and bundle.state["files"] == 7
    stats = next(e for e in events if e["type"] == "data-analyst-stats")["stats"]
    assert (stats["documents"], stats["pictures"]) == (3, 4)
    said = next(e for e in events if e["type"] == "speak")["text"]
    assert "作った" in said and "猫の冒険 — 本文" in said and "run " not in said  # told in words


def test_instruction_during_a_run_patches_pending_steps(manager: SAIVerseManager,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    replies: list[list[dict[str, Any]]] = []
    original = RunPorts.create_document

    def create_and_interrupt(self: RunPorts, step_id: int, key: str, name: str, content: str) -> dict[str, Any]:
        if not replies:  # the user speaks while the first step is being written
            replies.append(list(manager.handle_user_input("atelier", "最後にあとがきも追加して")))
        return original(self, step_id, key, name, content)

    monkeypatch.setattr(RunPorts, "create_document", create_and_interrupt)
    events = list(manager.handle_user_input("atelier", "絵本を作って: 猫の冒険"))
    assert replies[0][-1]["kind"] == "production_instruction"
    plans = [e["plan"] for e in events if e["type"] == "data-plan_update"]
    final = plans[-1]
    assert len(final) == 6 and final[-1]["title"] == "あとがき" and final[-1]["status"] == "completed"
    run_id = next(e for e in events if e.get("kind") == "production_started")["run_id"]
    log = manager.production.engine.summary(run_id).patch_log
    assert log[0]["op"] == "append_tail" and log[0]["status"] == "applied"


def test_blocked_step_is_retried_then_replaced(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def broken(self: RunPorts, *args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(1)
        raise OSError("画像生成サービスに接続できません")

    monkeypatch.setattr(RunPorts, "create_picture", broken)
    events = list(manager.handle_user_input("atelier", "絵本を作って: 猫の冒険"))
    assert len(calls) == 2  # tried, retried once, then the alternative
    final = [e for e in events if e["type"] == "data-plan_update"][-1]["plan"]
    visual = next(s for s in final if s["capability"] == "visualizer")
    alt = next(s for s in final if s["title"] == "絵の代わりの情景描写")
    bundle = next(s for s in final if s["capability"] == "data_analyst")
    assert visual["status"] == "blocked" and alt["status"] == "completed" and bundle["status"] == "completed"
    assert alt["id"] in bundle["depends_on"]
    assert any(e.get("kind") == "step_retry" for e in events)


def test_resume_after_a_killed_process(saiverse_home: Path) -> None:
    slow = Reply(json=openai_message({"role": "assistant", "content": "ページ1: 猫が旅に出た。"}), delay=1.5)
    picture = openai_image(draw_starry_night(64))
    picture.match = "/images/"
    with FakeServer() as fake:
        fake.fallback = slow
        fake.queue(picture)
        env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home), "SAIVERSE_OPENAI_BASE_URL": fake.url + "/v1"}
        run = [sys.executable, str(ROOT / "main.py")]
        assert subprocess.run(run + ["world"], env=env, capture_output=True, check=False).returncode == 0
        m = SAIVerseManager(load_settings(saiverse_home))
        with m.db.session() as s:  # sora writes with a (slow) OpenAI-compatible model, plans offline
            from database.models import Persona

            sora = s.get(Persona, "sora")
            sora.default_model, sora.lightweight_model, sora.building_id = "openai:slow", "offline", "atelier"
        m.close()
        proc = subprocess.Popen(run + ["chat", "--persona", "sora", "--building", "atelier", "絵本を作って: 猫の冒険"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        seen: list[dict[str, Any]] = []
        assert proc.stdout is not None
        done_before: set[int] = set()
        for line in proc.stdout:
            seen.append(json.loads(line))
            if seen[-1]["type"] == "data-plan_update":
                done_before = {s["id"] for s in seen[-1]["plan"] if s["status"] == "completed"}
                if 2 in done_before:  # the first writer step is checkpointed; the next one is running
                    proc.send_signal(signal.SIGKILL)
                    break
        proc.wait(timeout=30)
        assert done_before == {1, 2}
        listed = subprocess.run(run + ["production", "list", "--json"], env=env, capture_output=True, text=True,
                                check=False)
        (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
        assert row["status"] == "running"
        resumed = subprocess.run(run + ["production", "resume", row["run_id"]], env=env, capture_output=True,
                                 text=True, check=False, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        events = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert events[-1]["finished"] and all(status == "completed" for _, status in events[-1]["steps"]), events
    rewritten = {e["step_id"] for e in events if e["type"] == "data-writer-output"}
    assert not (rewritten & done_before)  # no completed step ran again
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        items = production_items(m)
        keys = [(i.state["step"], i.state["key"]) for i in items]
        assert len(keys) == len(set(keys)) == 5  # no item was made twice
        assert m.production.runs()[0]["status"] == "done"
    finally:
        m.close()


def test_interrupted_runs_resume_when_the_app_starts(manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    interrupted_run(manager, monkeypatch)
    before = {(i.state["step"], i.state["key"]) for i in production_items(manager)}
    events: list[list[dict[str, Any]]] = []
    ticker = manager.ticker(interval=3600, on_events=events.append)
    ticker.resume_productions()  # what Ticker.start() runs in the background at launch
    assert manager.production.runs()[0]["status"] == "done"
    after = {(i.state["step"], i.state["key"]) for i in production_items(manager)}
    assert before < after and len(after) == 8  # 4 documents, 4 scene pictures
    kinds = [e["type"] for e in events[0]]
    assert "data-visual-image" in kinds and "data-writer-output" not in kinds  # only what was left ran


# ---- the patch planner asks a model that follows instructions --------------------------------------

class _ModelPorts(_Ports):
    def __init__(self, model: ScriptedModel) -> None:
        self.the_model = model
        self.events: list[dict[str, Any]] = []

    def model(self, kind: str = "normal") -> ScriptedModel:
        return self.the_model

    def system_prompt(self) -> str:
        return "あなたはソラです。"

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)


def _patch(model: ScriptedModel, instruction: str) -> tuple[list[dict[str, Any]], _ModelPorts]:
    ports = _ModelPorts(model)
    out = patch_planner({"plan": _plan(), "instructions": [instruction]}, {"configurable": {"production": ports}})
    assert out["instructions"] == []
    return out["proposed_ops"], ports


def test_patch_planner_takes_the_models_structured_ops() -> None:
    model = ScriptedModel()
    split = {"op": "split_pending", "step_id": 3, "parts": [
        {"title": "昼の場面", "instruction": "昼の港を書く"}, {"title": "夜の場面", "instruction": "夜の港を書く"}]}
    model.enqueue(data={"ops": [split]})
    ops, ports = _patch(model, "もっと明るい雰囲気で")  # the rules would make this an edit of step 2
    assert ops == [{**split, "source": "もっと明るい雰囲気で"}] and not ports.events
    (request,) = model.history
    assert request.response_schema == PATCH_SCHEMA and "もっと明るい雰囲気で" in request.messages[0]["content"]
    assert '"id": 3' in request.messages[0]["content"]  # the plan is in the prompt
    plan, log = apply_ops(_plan(), ops)
    assert log[0]["status"] == "applied" and [s["title"] for s in plan][2:4] == ["昼の場面", "夜の場面"]


def test_patch_planner_uses_the_rules_only_when_the_model_cannot() -> None:
    offline_like = ScriptedModel(follows_instructions=False)
    ops, ports = _patch(offline_like, "表紙の絵も足して")
    assert ops == propose_ops("表紙の絵も足して", _plan()) and not offline_like.history and not ports.events
    for answer in ({"error": LLMError("timed out", kind="timeout")}, {"data": {"ops": []}}, {"text": "はい、わかりました"}):
        model = ScriptedModel()
        model.enqueue(**answer)
        ops, ports = _patch(model, "本文を前半と後半に分けて")
        assert ops[0]["op"] == "split_pending" and len(model.history) == 1, answer
        assert [e["kind"] for e in ports.events] == ["patch_fallback"]


def test_online_run_plans_and_patches_through_the_model(make_manager: MakeManager, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel()
    manager = make_manager(model)
    manager.world.move_persona("sora", "atelier")
    model.enqueue(when="次の作業者で実行する計画", data={"steps": [
        {"capability": "writer", "title": "下書き", "instruction": "灯台守の一日を書く"},
        {"capability": "writer", "title": "清書", "instruction": "下書きを清書する", "depends_on": [1]},
        {"capability": "data_analyst", "title": "まとめ", "instruction": "まとめる", "depends_on": [2]}]})
    model.enqueue(when="清書は二つに", data={"ops": [{"op": "split_pending", "step_id": 2, "parts": [
        {"title": "清書 (朝)", "instruction": "朝の場面を清書する"},
        {"title": "清書 (夜)", "instruction": "夜の場面を清書する"}]}]})
    original = RunPorts.create_document
    said: list[str] = []

    def create_and_instruct(self: RunPorts, step_id: int, key: str, name: str, content: str) -> dict[str, Any]:
        if not said:
            said.append("x")
            list(manager.handle_user_input("atelier", "清書は二つに分けてほしい"))
        return original(self, step_id, key, name, content)

    monkeypatch.setattr(RunPorts, "create_document", create_and_instruct)
    events: list[dict[str, Any]] = []
    summary = manager.production.start("sora", "atelier", "作品を作って: 灯台守の一日", events.append)
    assert summary.finished and not model.queue  # both scripted answers were asked for
    assert [s["title"] for s in summary.plan] == ["下書き", "清書 (朝)", "清書 (夜)", "まとめ"]
    assert all(s["status"] == "completed" for s in summary.plan)
    assert summary.patch_log[0]["op"] == "split_pending" and summary.patch_log[0]["status"] == "applied"
    schemas = [r.response_schema for r in model.history if r.response_schema]
    assert schemas == [PLAN_SCHEMA, PATCH_SCHEMA]
    assert not any(e.get("kind") in ("plan_fallback", "patch_fallback") for e in events)
